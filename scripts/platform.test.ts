import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { createServer, type AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createDatabase, createDatabaseIfMissing, databaseUrlFor, dropDatabase, Organization } from '@engram/db';
import pg from 'pg';
import { startScriptedModelServer, until, type ScriptedModelServer } from '@engram/testing';
import { startOnReservedPorts } from '@engram/testing/ports';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

type Started = { child: ChildProcess; output: () => string; exit: Promise<number | null> };

function startPlatform(env: NodeJS.ProcessEnv): Started {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/platform.ts'], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, exit };
}

async function waitForOutput(started: Started, pattern: RegExp, timeoutMs: number): Promise<void> {
  const printedOrExited = await until(() => pattern.test(started.output()) || started.child.exitCode !== null, { timeoutMs, what: `${pattern}` }).catch((error: Error) => {
    throw new Error(`${error.message}:\n${started.output()}`);
  });
  if (printedOrExited && !pattern.test(started.output())) throw new Error(`platform exited early:\n${started.output()}`);
}

type Ports = { PORT: string; TEMPORAL_PORT: string; TEMPORAL_UI_PORT: string };

/**
 * `npm start` until it is up, on ports chosen for it: it restarts what dies on the same ports, so it is told them
 * rather than taking port 0 (and is started again on others when another program took one first).
 */
function startPlatformUntilUp(env: NodeJS.ProcessEnv): Promise<Started & { ports: Ports }> {
  return startOnReservedPorts(3, async (ports) => {
    const [PORT, TEMPORAL_PORT, TEMPORAL_UI_PORT] = ports.map(String) as [string, string, string];
    const started = startPlatform({ ...env, PORT, TEMPORAL_PORT, TEMPORAL_UI_PORT });
    await waitForOutput(started, /Press Ctrl-C to stop/, 150_000);
    return { ...started, ports: { PORT, TEMPORAL_PORT, TEMPORAL_UI_PORT } };
  });
}

function stderrLinesOf(output: string): string[] {
  return output.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('npm warn'));
}

describe('bad configuration fails at start with one clear line', () => {
  it('names DATABASE_URL when it cannot be reached', async () => {
    const started = startPlatform({ DATABASE_URL: 'postgres://postgres@127.0.0.1:1/engram', TEMPORAL_ADDRESS: '' });
    expect(await started.exit).toBe(1);
    const lines = stderrLinesOf(started.output());
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^\[engram\] DATABASE_URL: cannot connect to 127\.0\.0\.1:1\/engram/);
  });

  it('names TEMPORAL_ADDRESS when it is malformed', async () => {
    const started = startPlatform({ TEMPORAL_ADDRESS: 'not an address' });
    expect(await started.exit).toBe(1);
    const lines = stderrLinesOf(started.output());
    expect(lines).toEqual(['[engram] TEMPORAL_ADDRESS: must be host:port, e.g. 127.0.0.1:7233']);
  });

  it('names PORT when another program already listens on it, instead of restarting the API forever', async () => {
    const occupant = createServer();
    await new Promise<void>((resolve) => occupant.listen(0, '127.0.0.1', resolve));
    try {
      const port = (occupant.address() as AddressInfo).port;
      const started = startPlatform({ PORT: String(port), TEMPORAL_ADDRESS: '' });
      expect(await started.exit).toBe(1);
      expect(stderrLinesOf(started.output())).toEqual([`[engram] PORT: ${port} is already in use on 127.0.0.1 (another Engram, or another program); choose another with PORT=…`]);
    } finally {
      await new Promise((resolve) => occupant.close(resolve));
    }
  });

  it('names PORT when it is the port of the local Temporal server', async () => {
    const started = startPlatform({ PORT: '7391', TEMPORAL_UI_PORT: '7391', TEMPORAL_ADDRESS: '' });
    expect(await started.exit).toBe(1);
    expect(stderrLinesOf(started.output())).toEqual(['[engram] PORT: 7391 is also TEMPORAL_PORT or TEMPORAL_UI_PORT; give the API a port of its own']);
  });

  it('names PORT when it is not a port', async () => {
    const started = startPlatform({ PORT: 'eighty' });
    expect(await started.exit).toBe(1);
    expect(stderrLinesOf(started.output())).toEqual([expect.stringMatching(/^\[engram\] PORT: /)]);
  });
});

describe('npm start brings the platform up and keeps its data across restarts', () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'engram-platform-'));
  const databaseName = `engram_platform_${randomBytes(4).toString('hex')}`;

  afterAll(async () => {
    await dropDatabase(inject('postgresAdminUrl'), databaseName);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('creates the default tenant once, prints a working key, and reuses everything on restart', async () => {
    await createDatabaseIfMissing(inject('postgresAdminUrl'), databaseName);
    const databaseUrl = databaseUrlFor(inject('postgresAdminUrl'), databaseName);
    const env = { DATABASE_URL: databaseUrl, ENGRAM_DATA_DIR: dataDir, TEMPORAL_ADDRESS: '' };
    const health = (started: Started & { ports: Ports }, key: string) =>
      fetch(`http://127.0.0.1:${started.ports.PORT}/v1/health/`, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.status);

    const first = await startPlatformUntilUp(env);
    expect(first.output()).toMatch(/first start: created the default organization/);
    expect(first.output()).toMatch(/end-to-end check passed/);
    const credentials = path.join(dataDir, 'credentials');
    expect(statSync(credentials).mode & 0o777).toBe(0o600);
    const key = /ENGRAM_API_KEY=(\S+)/.exec(readFileSync(credentials, 'utf8'))?.[1] ?? '';
    expect(first.output()).toContain(key);
    expect(await health(first, key)).toBe(200);
    expect(await health(first, 'sk-engram-wrong')).toBe(401);
    // The first-start organization may reach a model server on this machine: npm start allows it loopback.
    const localModel = await startScriptedModelServer({ models: ['llama3'] });
    const checked = await fetch(`http://127.0.0.1:${first.ports.PORT}/v1/providers/check`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ provider_type: 'openai', api_key: 'local', base_url: localModel.url }),
    });
    expect(checked.status, await checked.text()).toBe(200);
    await localModel.close();
    first.child.kill('SIGINT');
    expect(await first.exit).toBe(0);

    const second = await startPlatformUntilUp(env);
    expect(second.output()).not.toMatch(/first start/);
    expect(await health(second, key)).toBe(200);
    const db = createDatabase({ url: databaseUrl, pool: { max: 1 } });
    expect(await Organization.query(db).resultSize()).toBe(1);
    expect(await Organization.firstStartId(db)).toBe((await Organization.query(db).first())?.id);
    await db.destroy();
    second.child.kill('SIGINT');
    expect(await second.exit).toBe(0);
  }, 360_000);
});

describe('npm start keeps every process up: runs in flight survive killing all of them at once', () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'engram-platform-'));
  const databaseName = `engram_platform_${randomBytes(4).toString('hex')}`;
  let model: ScriptedModelServer | undefined;
  let platform: Started | undefined;

  afterAll(async () => {
    platform?.child.kill('SIGINT');
    await platform?.exit;
    await model?.close();
    await dropDatabase(inject('postgresAdminUrl'), databaseName);
    rmSync(dataDir, { recursive: true, force: true });
  });

  function commandLineOf(pid: string): string[] {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    } catch {
      return [];
    }
  }

  function parentOf(pid: string): number | undefined {
    try {
      // The command name (field 2) may hold spaces; the parent pid is the second field after it.
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    } catch {
      return undefined;
    }
  }

  /** The pid of the process `npm start` runs whose command line satisfies `matches`. */
  function childOfPlatform(matches: (commandLine: string[]) => boolean): number {
    for (const entry of readdirSync('/proc')) {
      if (/^\d+$/.test(entry) && parentOf(entry) === platform?.child.pid && matches(commandLineOf(entry))) return Number(entry);
    }
    throw new Error('no such process under npm start');
  }

  async function terminateDatabaseBackends(): Promise<number> {
    const admin = new pg.Client({ connectionString: inject('postgresAdminUrl') });
    await admin.connect();
    try {
      const terminated = await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [databaseName]);
      return terminated.rowCount ?? 0;
    } finally {
      await admin.end();
    }
  }

  it('SIGKILLs the worker, the API and the Temporal dev server and terminates every PostgreSQL backend mid-run: every run completes, each message once, in order, one answer each', async () => {
    model = await startScriptedModelServer({ models: ['gpt-4o-mini'] });
    // Slow answers keep the runs in flight while everything is killed.
    model.onRequest(() => ({ type: 'text', text: 'noted', delayMs: 3_000 }));
    await createDatabaseIfMissing(inject('postgresAdminUrl'), databaseName);
    const started = await startPlatformUntilUp({
      DATABASE_URL: databaseUrlFor(inject('postgresAdminUrl'), databaseName),
      ENGRAM_DATA_DIR: dataDir,
      TEMPORAL_ADDRESS: '',
      OPENAI_API_KEY: 'test',
      OPENAI_BASE_URL: model.url,
    });
    platform = started;
    const { PORT: port, TEMPORAL_PORT: temporalPort } = started.ports;
    const key = /ENGRAM_API_KEY=(\S+)/.exec(readFileSync(path.join(dataDir, 'credentials'), 'utf8'))?.[1] ?? '';
    const api = async (method: string, route: string, body?: unknown) => {
      const response = await fetch(`http://127.0.0.1:${port}/v1${route}`, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as any };
    };

    const agents: string[] = [];
    for (let index = 0; index < 8; index++) {
      const created = await api('POST', '/agents/', { model: 'openai/gpt-4o-mini', name: `supervised-${index}`, include_base_tools: false });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      agents.push(created.body.id);
    }
    const turns = [0, 1, 2, 3];
    const runs: string[] = [];
    for (const turn of turns) {
      for (const agentId of agents) {
        const sent = await api('POST', `/agents/${agentId}/messages/async`, { messages: [{ role: 'user', content: `${agentId} turn ${turn}` }] });
        expect(sent.status, JSON.stringify(sent.body)).toBe(200);
        runs.push(sent.body.id);
      }
    }
    const runStatus = async (runId: string) => (await api('GET', `/runs/${runId}`)).body.status as string;
    expect((await Promise.all(runs.map(runStatus))).filter((status) => status !== 'completed').length).toBeGreaterThan(runs.length / 2);

    const worker = childOfPlatform((commandLine) => commandLine.includes('temporal/src/worker-main.ts'));
    const apiServer = childOfPlatform((commandLine) => commandLine.includes('api/src/server.ts'));
    const devServer = childOfPlatform((commandLine) => commandLine.includes('start-dev') && commandLine[commandLine.indexOf('--port') + 1] === temporalPort);
    for (const pid of [worker, apiServer, devServer]) process.kill(pid, 'SIGKILL');
    expect(await terminateDatabaseBackends()).toBeGreaterThan(0);
    await waitForOutput(platform, /worker exited \(SIGKILL\)/, 30_000);
    await waitForOutput(platform, /api exited \(SIGKILL\)/, 30_000);
    await waitForOutput(platform, /Temporal dev server restarted/, 120_000);

    // The API answers again once `npm start` has restarted it; until then a request fails and is tried again.
    const statuses = await until(
      () => Promise.all(runs.map(runStatus)).catch(() => null),
      (current) => current?.every((status) => status === 'completed' || status === 'failed' || status === 'cancelled') ?? false,
      { timeoutMs: 300_000, intervalMs: 1000, what: 'every run settled' },
    );
    expect(statuses).toEqual(runs.map(() => 'completed'));
    for (const agentId of agents) {
      const messages = (await api('GET', `/agents/${agentId}/messages?limit=100&order=asc`)).body as Array<{ message_type: string; content: unknown }>;
      const userTexts = messages.filter((message) => message.message_type === 'user_message').map((message) => message.content);
      expect(userTexts).toEqual(turns.map((turn) => `${agentId} turn ${turn}`));
      expect(messages.filter((message) => message.message_type === 'assistant_message')).toHaveLength(turns.length);
    }
  }, 600_000);
});
