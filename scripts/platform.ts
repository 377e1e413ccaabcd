/**
 * `npm start`: brings up the whole platform on one machine — PostgreSQL (configured, local or
 * embedded), Temporal (configured cluster or a dev server with a SQLite file), the worker and the
 * API — and keeps the worker and API running until interrupted.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import {
  createDatabase,
  createDatabaseIfMissing,
  databaseUrlFor,
  DatabaseUnavailableError,
  migrateToLatest,
  resolvePostgresServer,
  type PostgresServer,
} from '@engram/db';
import { ConfigError, createTemporalClient, firstIssueLine, parseTemporalConfig, withoutEmptyValues } from '@engram/temporal/client';
import { writeWorkflowBundle } from '@engram/temporal/bundle';
import { ensureTemporalCli, startDevServer, waitForTemporal, type DevServer } from '@engram/temporal/dev-server';
import { createApiKeyService, createTierLimitGuard, createOrganizationService, parseApiConfig } from '@engram/api';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** What the first-start organization of `npm start` may reach besides the public internet, unless the operator says otherwise. */
const FIRST_ORGANIZATION_LOOPBACK = '127.0.0.0/8,::1';

const PlatformConfigSchema = z.object({
  DATABASE_URL: z.string().url('must be a postgres:// URL').optional(),
  ENGRAM_DATA_DIR: z.string().default(path.join(ROOT, '.data')),
  TEMPORAL_PORT: z.coerce.number().int().min(1).max(65535).default(7233),
  TEMPORAL_UI_PORT: z.coerce.number().int().min(1).max(65535).default(8233),
});

function log(line: string): void {
  console.log(`[engram] ${line}`);
}

type Managed = { name: string; child: ChildProcess | null; stopping: boolean };

/** `[name] ` before every line of a chunk of output (a chunk can hold several lines, or end mid-line). */
function prefixLines(name: string): (chunk: Buffer) => string {
  let atLineStart = true;
  return (chunk) => {
    const text = chunk.toString();
    const prefixed = text.replace(/\n(?=.)/g, `\n[${name}] `);
    const result = atLineStart ? `[${name}] ${prefixed}` : prefixed;
    atLineStart = text.endsWith('\n');
    return result;
  };
}

function runNodeProcess(managed: Managed, entry: string, env: NodeJS.ProcessEnv, logFile: string): void {
  const child = spawn(process.execPath, ['--import', 'tsx', entry], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    // A process group of its own: Ctrl-C reaches only this process, which stops the API and the worker once,
    // in order. Otherwise they got the terminal's SIGINT and then our SIGTERM, and the API's graceful close
    // took the second signal for impatience ("second SIGTERM, exiting") and quit mid-close.
    detached: true,
  });
  const append = (chunk: Buffer) => writeFileSync(logFile, chunk, { flag: 'a' });
  const prefix = prefixLines(managed.name);
  child.stdout?.on('data', append);
  child.stderr?.on('data', (chunk: Buffer) => {
    append(chunk);
    process.stderr.write(prefix(chunk));
  });
  child.once('exit', (code, signal) => {
    managed.child = null;
    if (managed.stopping) return;
    log(`${managed.name} exited (${signal ?? code}); restarting in 1 s`);
    setTimeout(() => runNodeProcess(managed, entry, env, logFile), 1000);
  });
  managed.child = child;
}

/**
 * The local Temporal dev server, kept up like the API and the worker: one that dies is started again on
 * the same port from its SQLite state, and the worker and the API reconnect to it by themselves.
 */
async function superviseDevServer(options: Parameters<typeof startDevServer>[0]): Promise<Pick<DevServer, 'address' | 'stop'>> {
  let stopping = false;
  let current = await startDevServer(options);
  const restart = async (): Promise<void> => {
    if (stopping) return;
    try {
      current = await startDevServer(options);
      watch(current);
      log('Temporal dev server restarted');
    } catch (error) {
      log(`Temporal dev server failed to restart (${(error as Error).message}); retrying in 1 s`);
      setTimeout(() => void restart(), 1000);
    }
  };
  const watch = (server: DevServer) => {
    server.process.once('exit', (code, signal) => {
      if (stopping) return;
      log(`Temporal dev server exited (${signal ?? code}); restarting in 1 s`);
      setTimeout(() => void restart(), 1000);
    });
  };
  watch(current);
  return {
    address: current.address,
    stop: async () => {
      stopping = true;
      await current.stop();
    },
  };
}

async function stopManaged(managed: Managed): Promise<void> {
  managed.stopping = true;
  const child = managed.child;
  if (!child) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(killer);
}

/** The key that encrypts stored secrets: generated once per data directory unless ENGRAM_SECRET_KEY is set. */
function readOrCreateSecretKey(file: string): string {
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const key = randomBytes(32).toString('base64');
  writeFileSync(file, `${key}\n`, { mode: 0o600 });
  return key;
}

async function waitForHttp(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const response = await fetch(url);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms (see the logs in .data/logs)`);
}

/** Whether something already listens on the port: then the API would fail to start, and be restarted, forever. */
function portInUse(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(true));
    probe.listen(port, host, () => probe.close(() => resolve(false)));
  });
}

/** The API's port must be free and not one the local Temporal server is about to take. */
async function checkApiPort(host: string, port: number, temporalPorts: number[] | null): Promise<void> {
  if (port === 0) return;
  if (temporalPorts?.includes(port)) {
    throw new ConfigError(`PORT: ${port} is also TEMPORAL_PORT or TEMPORAL_UI_PORT; give the API a port of its own`);
  }
  if (await portInUse(host, port)) {
    throw new ConfigError(`PORT: ${port} is already in use on ${host} (another Engram, or another program); choose another with PORT=…`);
  }
}

async function main(): Promise<void> {
  const parsed = PlatformConfigSchema.safeParse(withoutEmptyValues(process.env));
  if (!parsed.success) throw new ConfigError(firstIssueLine(parsed.error));
  const platform = parsed.data;
  const temporalConfig = parseTemporalConfig(process.env);
  const apiConfig = parseApiConfig(process.env);
  await checkApiPort(apiConfig.host, apiConfig.port, temporalConfig.address ? null : [platform.TEMPORAL_PORT, platform.TEMPORAL_UI_PORT]);

  const dataDir = path.resolve(platform.ENGRAM_DATA_DIR);
  const logDir = path.join(dataDir, 'logs');
  mkdirSync(logDir, { recursive: true });

  const cleanups: Array<() => Promise<void>> = [];
  const managed: Managed[] = [];
  // The API and the worker run in process groups of their own, so nothing else stops them if this process ends.
  process.once('exit', () => {
    for (const { child } of managed) child?.kill('SIGKILL');
  });
  let stopping = false;
  const shutdown = async (code: number) => {
    stopping = true;
    for (const cleanup of cleanups.reverse()) await cleanup().catch((error) => console.error(error));
    // A start that failed has said why in its one line; only an asked-for stop is announced.
    if (code === 0) log('stopped.');
    process.exit(code);
  };
  const onSignal = () => {
    if (stopping) {
      log('stopping at once (a second interrupt)');
      process.exit(1);
    }
    log('stopping…');
    void shutdown(0);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  try {
    const pgServer: PostgresServer = await resolvePostgresServer({ databaseUrl: platform.DATABASE_URL, dataDir });
    cleanups.push(() => pgServer.stop());
    let databaseUrl = pgServer.adminUrl;
    if (pgServer.kind !== 'configured') {
      await createDatabaseIfMissing(pgServer.adminUrl, 'engram');
      databaseUrl = databaseUrlFor(pgServer.adminUrl, 'engram');
    }
    log(`PostgreSQL: ${pgServer.kind} (${new URL(databaseUrl).host}${new URL(databaseUrl).pathname})`);

    let temporalAddress = temporalConfig.address;
    if (temporalAddress) {
      await waitForTemporal(temporalAddress, 10_000).catch(() => {
        throw new ConfigError(`TEMPORAL_ADDRESS: no Temporal frontend answers at ${temporalAddress}`);
      });
      log(`Temporal: ${temporalAddress} (configured)`);
    } else {
      const cliPath = ensureTemporalCli({ log });
      let devServer: Pick<DevServer, 'address' | 'stop'>;
      try {
        devServer = await superviseDevServer({
          cliPath,
          port: platform.TEMPORAL_PORT,
          uiPort: platform.TEMPORAL_UI_PORT,
          dbFilename: path.join(dataDir, 'temporal.db'),
          namespace: temporalConfig.namespace,
          logFile: path.join(logDir, 'temporal.log'),
        });
      } catch (error) {
        throw new Error(`Temporal dev server failed to start on port ${platform.TEMPORAL_PORT}: ${(error as Error).message}`);
      }
      cleanups.push(() => devServer.stop());
      temporalAddress = devServer.address;
      log(`Temporal: ${temporalAddress} (dev server, state in ${path.join(dataDir, 'temporal.db')})`);
    }

    const db = createDatabase({ url: databaseUrl, pool: { max: 2 } });
    const temporal = await createTemporalClient({ address: temporalAddress, namespace: temporalConfig.namespace });
    cleanups.push(async () => {
      await temporal.connection.close();
      await db.destroy();
    });
    const applied = await migrateToLatest(db);
    if (applied.length > 0) log(`applied migrations: ${applied.join(', ')}`);

    const secretKey = process.env.ENGRAM_SECRET_KEY ?? readOrCreateSecretKey(path.join(dataDir, 'secret-key'));
    // The first-start key is issued, not created: no tier limit applies to it.
    const organizations = createOrganizationService({ db, apiKeys: createApiKeyService({ db, limits: createTierLimitGuard({ mode: 'off' }) }) });
    const credentialsFile = path.join(dataDir, 'credentials');
    const created = await organizations.bootstrapIfEmpty();
    if (created) {
      writeFileSync(credentialsFile, `ENGRAM_API_KEY=${created.apiKey.key}\n`, { mode: 0o600 });
      chmodSync(credentialsFile, 0o600);
      log('first start: created the default organization, an admin user, a default project and an API key');
    }

    const bundlePath = await writeWorkflowBundle(path.join(dataDir, 'workflow-bundle.js'));
    const childEnv: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: databaseUrl,
      TEMPORAL_ADDRESS: temporalAddress,
      ENGRAM_WORKFLOW_BUNDLE: bundlePath,
      ENGRAM_SECRET_KEY: secretKey,
      // The console links each run to its workflow in the local dev server's Web UI.
      ...(temporalConfig.address || process.env.TEMPORAL_UI_URL ? {} : { TEMPORAL_UI_URL: `http://127.0.0.1:${platform.TEMPORAL_UI_PORT}` }),
      // The self-hoster's own organization may reach a model or MCP server on this machine (set `none` to refuse it).
      ...(process.env.ENGRAM_EGRESS_ALLOW_FIRST_ORGANIZATION ? {} : { ENGRAM_EGRESS_ALLOW_FIRST_ORGANIZATION: FIRST_ORGANIZATION_LOOPBACK }),
    };
    const worker: Managed = { name: 'worker', child: null, stopping: false };
    const api: Managed = { name: 'api', child: null, stopping: false };
    managed.push(worker, api);
    runNodeProcess(worker, 'temporal/src/worker-main.ts', childEnv, path.join(logDir, 'worker.log'));
    runNodeProcess(api, 'api/src/server.ts', childEnv, path.join(logDir, 'api.log'));
    cleanups.push(() => stopManaged(worker));
    cleanups.push(() => stopManaged(api));

    const localHost = apiConfig.host === '0.0.0.0' ? '127.0.0.1' : apiConfig.host;
    const baseUrl = `http://${localHost}:${apiConfig.port}`;
    await waitForHttp(`${baseUrl}/v1/health/`, 60_000);
    const probe = await temporal.workflow.execute('healthCheckWorkflow', {
      taskQueue: temporalConfig.taskQueue,
      workflowId: `health-check-${Date.now()}`,
      workflowExecutionTimeout: '30 seconds',
    });
    log(`end-to-end check passed: API → Temporal → worker → PostgreSQL ${String((probe as { serverVersion: string }).serverVersion)}`);

    const key = existsSync(credentialsFile)
      ? /ENGRAM_API_KEY=(.+)/.exec(readFileSync(credentialsFile, 'utf8'))?.[1]
      : undefined;
    log('Engram is running.');
    log(`  Console:    ${baseUrl}/`);
    log(`  API:        ${baseUrl}/v1/  (docs: ${baseUrl}/docs)`);
    if (!temporalConfig.address) log(`  Temporal UI: http://127.0.0.1:${platform.TEMPORAL_UI_PORT}`);
    log(`  API key:    ${key ?? '(the key printed on first start; not stored here)'}  (also in ${credentialsFile})`);
    log(`  try: curl -H "Authorization: Bearer ${key ?? '<key>'}" ${baseUrl}/v1/health/`);
    if (await organizations.firstStartAdminUnclaimed()) {
      log(`Sign up at ${baseUrl}/signup — the first account becomes the admin of this organization (its agents and this key).`);
    }
    log('Press Ctrl-C to stop.');
  } catch (error) {
    const message =
      error instanceof ConfigError || error instanceof DatabaseUnavailableError
        ? error.message
        : `start failed: ${(error as Error).message}`;
    console.error(`[engram] ${message}`);
    await shutdown(1);
  }
}

main().catch((error: unknown) => {
  console.error(`[engram] ${error instanceof ConfigError ? error.message : `start failed: ${(error as Error).message}`}`);
  process.exit(1);
});
