import { startApiProcess, startWorkerProcess, type ManagedProcess } from './processes.js';

/** The processes of a crash test: each started in its own process, so the test can SIGKILL one and start its successor. */
export type CrashTestProcesses = {
  /** Starts a worker with the environment's settings (a test stack's `workerEnv`). */
  worker(): ManagedProcess;
  /** Starts an API server on `port`; resolves once it answers. */
  api(port: number): Promise<ManagedProcess>;
  /** SIGKILLs every process started so far: in `afterAll`, or so no earlier worker takes the next test's work. */
  killAll(): Promise<void>;
};

/**
 * `env` is read at each start, so a file may call this before its `beforeAll` has started the stack whose
 * `workerEnv` it returns.
 */
export function crashTestProcesses(env: () => NodeJS.ProcessEnv): CrashTestProcesses {
  const started: ManagedProcess[] = [];
  const track = (managed: ManagedProcess) => {
    started.push(managed);
    return managed;
  };
  return {
    worker: () => track(startWorkerProcess(env())),
    api: async (port) => track(await startApiProcess(env(), port)),
    killAll: async () => {
      await Promise.all(started.splice(0).map((managed) => managed.kill()));
    },
  };
}

/** Polls `condition` every 50 ms until it holds; throws naming `what` once `timeoutMs` passed without it. */
export async function until(condition: () => boolean | Promise<boolean>, timeoutMs = 60_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`${what} not met in time`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
