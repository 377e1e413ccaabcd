import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdirSync, openSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { SEARCH_ATTRIBUTES } from '@engram/workflows/search-attributes';

/** The last CLI release that `go install` can build (later ones carry a replace directive). */
export const TEMPORAL_CLI_MODULE = 'github.com/temporalio/cli/cmd/temporal@v1.5.1';

export function defaultCliCacheDir(): string {
  return path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'engram', 'bin');
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function onPath(binary: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const candidate = path.join(dir, binary);
    if (dir && isExecutable(candidate)) return candidate;
  }
  return undefined;
}

export function findTemporalCli(cacheDir = defaultCliCacheDir()): string | undefined {
  const cached = path.join(cacheDir, 'temporal');
  return isExecutable(cached) ? cached : onPath('temporal');
}

/** How often the CLI build says it is still going: it takes minutes, and go prints nothing while it compiles. */
const BUILD_PROGRESS_EVERY_MS = 15_000;

/**
 * Runs `go install` and prints a line every BUILD_PROGRESS_EVERY_MS while it does. It is a program for a plain
 * `node -e` child: ensureTemporalCli is synchronous for its callers, and a blocked process cannot run a timer.
 * Arguments: the interval, go, then go's arguments.
 */
const GO_INSTALL_WITH_PROGRESS = `
const { spawn } = require('node:child_process');
const [everyMs, go, ...args] = process.argv.slice(1);
const started = Date.now();
const ticker = setInterval(() => {
  console.log('  still building the Temporal CLI… ' + Math.round((Date.now() - started) / 1000) + ' s');
}, Number(everyMs));
const build = spawn(go, args, { stdio: 'inherit' });
build.on('error', (error) => { console.error(error.message); process.exit(1); });
build.on('exit', (code) => { clearInterval(ticker); process.exit(code ?? 1); });
`;

/** Finds the Temporal CLI, building it from the Go module proxy once if it is missing. */
export function ensureTemporalCli(
  options: { cacheDir?: string; log?: (line: string) => void } = {},
): string {
  const cacheDir = options.cacheDir ?? defaultCliCacheDir();
  const found = findTemporalCli(cacheDir);
  if (found) return found;
  const go = onPath('go') ?? (isExecutable('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : undefined);
  if (!go) {
    throw new Error(
      'The Temporal CLI is missing and Go is not installed to build it: install Go, put `temporal` on PATH, or set TEMPORAL_ADDRESS.',
    );
  }
  mkdirSync(cacheDir, { recursive: true });
  options.log?.(`Building the Temporal CLI (${TEMPORAL_CLI_MODULE}) into ${cacheDir}; this takes a few minutes once.`);
  const started = Date.now();
  const build = spawnSync(process.execPath, ['-e', GO_INSTALL_WITH_PROGRESS, String(BUILD_PROGRESS_EVERY_MS), go, 'install', TEMPORAL_CLI_MODULE], {
    env: { ...process.env, GOBIN: cacheDir, CGO_ENABLED: '0' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const built = path.join(cacheDir, 'temporal');
  if (build.status !== 0 || !isExecutable(built)) {
    throw new Error(`Building the Temporal CLI failed (go install exited ${build.status ?? build.signal}).`);
  }
  options.log?.(`Built the Temporal CLI in ${Math.round((Date.now() - started) / 1000)} s.`);
  return built;
}

export type DevServerOptions = {
  cliPath: string;
  port: number;
  /** Omit for a headless server. */
  uiPort?: number;
  /** Omit for an in-memory server (tests). */
  dbFilename?: string;
  namespace?: string;
  logFile?: string;
  startTimeoutMs?: number;
};

export type DevServer = { address: string; process: ChildProcess; stop(): Promise<void> };

export async function startDevServer(options: DevServerOptions): Promise<DevServer> {
  const args = [
    'server', 'start-dev',
    '--ip', '127.0.0.1',
    '--port', String(options.port),
    '--namespace', options.namespace ?? 'default',
    '--log-format', 'json',
    '--log-level', 'warn',
    ...SEARCH_ATTRIBUTES.flatMap((key) => ['--search-attribute', `${key.name}=Keyword`]),
    // A worker finishing a workflow task that schedules an activity gets the activity task in the same reply,
    // instead of one more trip through the task queue: a model call starts ~20 ms sooner each step.
    '--dynamic-config-value', 'system.enableActivityEagerExecution=true',
    // The history service reads new transfer tasks (a workflow task to dispatch, above all) at most 20 times a second
    // per shard by default, so a task waits ~25 ms on average before it reaches a poller; measured on 2 cores, a bare
    // workflow with one activity takes 40 ms instead of 100 ms at this rate, with no more CPU per workflow under load.
    '--dynamic-config-value', 'history.transferProcessorMaxPollRPS=1000',
    '--dynamic-config-value', 'history.transferProcessorMaxPollHostRPS=1000',
  ];
  if (options.uiPort === undefined) args.push('--headless');
  else args.push('--ui-port', String(options.uiPort));
  if (options.dbFilename) {
    mkdirSync(path.dirname(options.dbFilename), { recursive: true });
    args.push('--db-filename', options.dbFilename);
  }
  const out = options.logFile ? openSync(options.logFile, 'a') : 'ignore';
  const child = spawn(options.cliPath, args, { stdio: ['ignore', out, out] });
  const address = `127.0.0.1:${options.port}`;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(killer);
  };
  try {
    await waitForTemporal(address, options.startTimeoutMs ?? 60_000, exited);
  } catch (error) {
    await stop();
    // Why it did not start (a port taken meanwhile, say) is in its log.
    const logTail = options.logFile ? readFileSync(options.logFile, 'utf8').split('\n').slice(-20).join('\n') : '';
    throw logTail ? new Error(`${(error as Error).message}\nthe server's last log lines:\n${logTail}`) : error;
  }
  return { address, process: child, stop };
}

/** Polls the frontend until it answers; the SDK's own ephemeral server only waits 5 s. */
export async function waitForTemporal(
  address: string,
  timeoutMs: number,
  exited?: Promise<number | null>,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let processGone = false;
  void exited?.then(() => (processGone = true));
  let lastError: unknown;
  while (Date.now() < deadline) {
    if (processGone) throw new Error(`The Temporal server exited before it answered on ${address}.`);
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1000 });
      try {
        await connection.workflowService.getSystemInfo({});
        return;
      } finally {
        await connection.close();
      }
    } catch (error) {
      lastError = error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  throw new Error(`Temporal did not answer on ${address} within ${timeoutMs} ms: ${String(lastError)}`);
}
