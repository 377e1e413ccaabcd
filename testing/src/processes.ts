import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { isPortConflict } from './ports.js';
import { profiled } from './profile/spans.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export type ManagedProcess = {
  child: ChildProcess;
  output(): string;
  /** SIGKILL: the process gets no chance to clean up, as in a crash. */
  kill(): Promise<void>;
  stop(): Promise<void>;
};

function run(entry: string, env: NodeJS.ProcessEnv): ManagedProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', entry], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const signal = async (name: NodeJS.Signals) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill(name);
    await exited;
  };
  return { child, output: () => output, kill: () => signal('SIGKILL'), stop: () => signal('SIGTERM') };
}

/** A worker in its own process, so a test can kill it mid-run. */
export function startWorkerProcess(env: NodeJS.ProcessEnv): ManagedProcess {
  return run('temporal/src/worker-main.ts', env);
}

export type ApiProcess = ManagedProcess & { port: number; baseUrl: string };

/**
 * The API server in its own process, on a port the system gives it, or on `port` when it must come back on the
 * port its clients know (a successor of a killed one); resolves once it listens (within `timeoutMs`, 60 s unless said).
 */
export function startApiProcess(env: NodeJS.ProcessEnv, port = 0, timeoutMs = 60_000): Promise<ApiProcess> {
  return profiled('api process start', async () => {
    // While a killed API was down another program may have been given its port (an outgoing connection's, most
    // likely, which goes soon): its successor tries again for a while.
    for (let attempt = 1; ; attempt++) {
      try {
        return await listeningApi(env, port, timeoutMs);
      } catch (error) {
        if (port === 0 || attempt >= 20 || !isPortConflict(error)) throw error;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }
  });
}

async function listeningApi(env: NodeJS.ProcessEnv, port: number, timeoutMs: number): Promise<ApiProcess> {
  const managed = run('api/src/server.ts', { ...env, PORT: String(port), HOST: '127.0.0.1' });
  try {
    const [, baseUrl, listeningPort] = await outputMatch(managed, /API listening on (http:\/\/127\.0\.0\.1:(\d+))/, timeoutMs);
    return { ...managed, port: Number(listeningPort), baseUrl: baseUrl! };
  } catch (error) {
    await managed.kill();
    throw error;
  }
}

/** Resolves with the match once the process prints `pattern`; rejects with its output when it exits first or `timeoutMs` passes. */
function outputMatch(managed: ManagedProcess, pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray> {
  const { child } = managed;
  return new Promise((resolve, reject) => {
    const check = () => {
      const match = pattern.exec(managed.output());
      if (match) settle(() => resolve(match));
    };
    const onExit = () => settle(() => reject(new Error(`the process exited:\n${managed.output()}`)));
    const timer = setTimeout(() => settle(() => reject(new Error(`the process did not print ${pattern} within ${timeoutMs} ms:\n${managed.output()}`))), timeoutMs);
    const settle = (outcome: () => void) => {
      clearTimeout(timer);
      child.stdout?.off('data', check);
      child.stderr?.off('data', check);
      child.off('close', onExit);
      outcome();
    };
    child.stdout?.on('data', check);
    child.stderr?.on('data', check);
    // 'close', not 'exit': what it printed last (why it stopped) is read by then.
    child.once('close', onExit);
    check();
  });
}
