import { startApiProcess, startWorkerProcess, type ApiProcess, type ManagedProcess } from './processes.js';

/** The processes of a crash test: each started in its own process, so the test can SIGKILL one and start its successor. */
export type CrashTestProcesses = {
  /** Starts a worker with the environment's settings (a test stack's `workerEnv`). */
  worker(): ManagedProcess;
  /** Starts an API server (on `port` when given: a successor of a killed one); resolves once it listens. */
  api(port?: number): Promise<ApiProcess>;
  /** SIGKILLs every process started so far: in `afterAll`, or so no earlier worker takes the next test's work. */
  killAll(): Promise<void>;
};

/**
 * `env` is read at each start, so a file may call this before its `beforeAll` has started the stack whose
 * `workerEnv` it returns.
 */
export function crashTestProcesses(env: () => NodeJS.ProcessEnv): CrashTestProcesses {
  const started: ManagedProcess[] = [];
  const track = <Process extends ManagedProcess>(managed: Process): Process => {
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
