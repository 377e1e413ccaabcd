import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const STDIO_ENTRY = fileURLToPath(new URL('./stdio.ts', import.meta.url));
const HTTP_ENTRY = fileURLToPath(new URL('./http.ts', import.meta.url));

/**
 * A folder every user may read, holding the stdio fixture bundled into one file. Stdio servers run sandboxed as
 * `nobody`, who cannot reach the repository when it sits in a private folder (a clean clone under `mktemp -d`), so
 * the sandbox is given this folder (ENGRAM_MCP_STDIO_READ_ONLY_PATHS) instead of the repository and its node_modules.
 */
export const FIXTURE_STDIO_DIR = path.join(tmpdir(), `engram-mcp-fixture-${process.getuid?.() ?? 'user'}`);

/** Bundles the fixture anew (files importing this module at once each write their own copy, renamed into place whole). */
function bundleStdioFixture(): string {
  mkdirSync(FIXTURE_STDIO_DIR, { recursive: true });
  chmodSync(FIXTURE_STDIO_DIR, 0o755);
  const bundle = path.join(FIXTURE_STDIO_DIR, 'stdio.mjs');
  const written = `${bundle}.${process.pid}.${randomBytes(4).toString('hex')}`;
  buildSync({
    entryPoints: [STDIO_ENTRY],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile: written,
    // The SDK's CommonJS dependencies require Node built-ins, which an ES module bundle must give them.
    banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
    logLevel: 'silent',
  });
  chmodSync(written, 0o644);
  renameSync(written, bundle);
  return bundle;
}

/** The stdio fixture as an MCP server config would name it. */
export const FIXTURE_STDIO_COMMAND = { command: process.execPath, args: [bundleStdioFixture()] };

export type FixtureHttpOptions = {
  transport: 'sse' | 'streamable_http';
  /** Requests without this exact header get 401: `{ name: 'X-Api-Key', value: 'secret' }`. */
  requireHeader?: { name: string; value: string };
  /** Protect the server with the fixture's OAuth authorization server. */
  oauth?: boolean;
  /** Streamable HTTP only: refuse the standalone event stream, so clients notice a restart only when they send. */
  noEventStream?: boolean;
};

export type FixtureHttpServer = {
  /** The URL an MCP client connects to (`/mcp` or `/sse`). */
  url: string;
  port: number;
  /** SIGKILL, as in a crash. */
  kill(): Promise<void>;
  /** Starts it again on the same port (with fresh state: it remembers no session). */
  restart(): Promise<void>;
  stop(): Promise<void>;
};

/** Resolves with the port the fixture reports once it listens; rejects with its output when it exits first. */
function listeningPort(child: ChildProcess, output: () => string): Promise<number> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`MCP fixture did not listen within 60 s:\n${output()}`)), 60_000);
    const onData = () => {
      const port = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(output())?.[1];
      if (port) done(() => resolve(Number(port)));
    };
    const onExit = () => fail(new Error(`MCP fixture exited:\n${output()}`));
    const done = (settle: () => void) => {
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.off('exit', onExit);
      settle();
    };
    const fail = (error: Error) => done(() => reject(error));
    child.stdout?.on('data', onData);
    child.once('exit', onExit);
  });
}

/** Starts the HTTP fixture in a process of its own, on a loopback port the system gives it. */
export async function startFixtureHttpServer(options: FixtureHttpOptions): Promise<FixtureHttpServer> {
  const argsFor = (port: number | undefined) => {
    const args = ['--import', 'tsx', HTTP_ENTRY, '--transport', options.transport];
    if (port !== undefined) args.push('--port', String(port));
    if (options.requireHeader) args.push('--require-header', `${options.requireHeader.name}: ${options.requireHeader.value}`);
    if (options.oauth) args.push('--oauth');
    if (options.noEventStream) args.push('--no-event-stream');
    return args;
  };
  let child: ChildProcess;

  const start = async (port: number | undefined) => {
    let output = '';
    child = spawn(process.execPath, argsFor(port), { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    return listeningPort(child, () => output);
  };
  const signal = async (name: NodeJS.Signals) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill(name);
    await exited;
  };

  const port = await start(undefined);
  /**
   * A restart must listen on the port its clients know, so it names it; while the fixture was down another
   * process may have been given that port (an outgoing connection's, most likely, which goes soon), so a start
   * that finds it taken tries again for a while.
   */
  const restart = async () => {
    for (let attempt = 1; ; attempt++) {
      try {
        await start(port);
        return;
      } catch (error) {
        if (attempt >= 20 || !String(error).includes('EADDRINUSE')) throw error;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }
  };
  return {
    url: `http://127.0.0.1:${port}${options.transport === 'sse' ? '/sse' : '/mcp'}`,
    port,
    kill: () => signal('SIGKILL'),
    restart,
    stop: () => signal('SIGTERM'),
  };
}
