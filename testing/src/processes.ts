import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
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

/** The API server in its own process; resolves once it answers on `port` (within `timeoutMs`, 60 s unless said). */
export function startApiProcess(env: NodeJS.ProcessEnv, port: number, timeoutMs = 60_000): Promise<ManagedProcess> {
  return profiled('api process start', () => apiProcessAnswering(env, port, timeoutMs));
}

async function apiProcessAnswering(env: NodeJS.ProcessEnv, port: number, timeoutMs: number): Promise<ManagedProcess> {
  const managed = run('api/src/server.ts', { ...env, PORT: String(port), HOST: '127.0.0.1' });
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (managed.child.exitCode !== null) throw new Error(`API process exited:\n${managed.output()}`);
    try {
      if ((await fetch(`http://127.0.0.1:${port}/v1/health/`)).ok) return managed;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  await managed.kill();
  throw new Error(`API process did not answer:\n${managed.output()}`);
}
