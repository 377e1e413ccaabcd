import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freePort } from '../ports.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const STDIO_ENTRY = fileURLToPath(new URL('./stdio.ts', import.meta.url));
const HTTP_ENTRY = fileURLToPath(new URL('./http.ts', import.meta.url));

/**
 * The stdio fixture as an MCP server config would name it. The spawning process must run from the
 * repository root (as the test runner and the API under test do), where `tsx` resolves.
 */
export const FIXTURE_STDIO_COMMAND = { command: process.execPath, args: ['--import', 'tsx', STDIO_ENTRY] };

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

async function waitForPort(port: number, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`MCP fixture exited:\n${output()}`);
    if (output().includes('listening on')) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`MCP fixture did not listen on ${port}:\n${output()}`);
}

/** Starts the HTTP fixture in a process of its own on a free loopback port. */
export async function startFixtureHttpServer(options: FixtureHttpOptions): Promise<FixtureHttpServer> {
  let port = await freePort();
  const argsFor = (listenOn: number) => {
    const args = ['--import', 'tsx', HTTP_ENTRY, '--transport', options.transport, '--port', String(listenOn)];
    if (options.requireHeader) args.push('--require-header', `${options.requireHeader.name}: ${options.requireHeader.value}`);
    if (options.oauth) args.push('--oauth');
    if (options.noEventStream) args.push('--no-event-stream');
    return args;
  };
  let child: ChildProcess;

  const start = async () => {
    let output = '';
    child = spawn(process.execPath, argsFor(port), { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await waitForPort(port, child, () => output);
  };
  const signal = async (name: NodeJS.Signals) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill(name);
    await exited;
  };

  // Another process can take the free port before the fixture binds it; the fixture then starts on another one.
  for (let attempt = 1; ; attempt++) {
    try {
      await start();
      break;
    } catch (error) {
      if (attempt >= 5 || !String(error).includes('EADDRINUSE')) throw error;
      port = await freePort();
    }
  }
  return {
    url: `http://127.0.0.1:${port}${options.transport === 'sse' ? '/sse' : '/mcp'}`,
    port,
    kill: () => signal('SIGKILL'),
    restart: start,
    stop: () => signal('SIGTERM'),
  };
}
