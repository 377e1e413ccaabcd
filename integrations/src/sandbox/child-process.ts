import { spawn, type ChildProcessByStdio } from 'node:child_process';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';

// System directories only: the server's PATH may lead to its own tooling. The running node's directory is
// added so a tool can start `node` the way the sandbox itself does.
const SANDBOX_PATH = [...new Set([path.dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'])].join(':');

/** The whole environment of a sandboxed process: the given variables, a PATH, LANG and HOME — nothing of the server's. */
export function sandboxEnvironment(home: string, variables: Record<string, string>): Record<string, string> {
  return { PATH: SANDBOX_PATH, LANG: 'C.UTF-8', ...variables, HOME: home };
}

export type BoundedRunOptions = {
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  /** Start the process as this user and group (the worker is root and the sandbox runs as `nobody`). */
  uid?: number;
  gid?: number;
  stdin: string;
  timeoutMs: number;
  /** stdout and stderr together; the result channel (fd 3) has a budget of the same size of its own. */
  maxOutputBytes: number;
};

export type BoundedRun = {
  stdout: string;
  stderr: string;
  /** What the process wrote to file descriptor 3, or null when it wrote nothing. */
  result: string | null;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  /** stdout + stderr passed maxOutputBytes: reading stopped there and the process was killed. */
  outputExceeded: 'stdout' | 'stderr' | null;
  resultExceeded: boolean;
  spawnError: Error | null;
};

/** After a kill, how long to wait for the pipes to close before giving up on them (a child may have escaped the group). */
const PIPE_DRAIN_GRACE_MS = 1_000;

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // ESRCH: the group is already gone.
  }
}

/**
 * Runs one process in a process group of its own, so a timeout or an output overflow kills everything it
 * started. Output is read up to a byte budget and no further: a tool that prints without end costs the
 * caller at most the budget, never its memory.
 */
export function runBounded(options: BoundedRunOptions): Promise<BoundedRun> {
  return new Promise((resolve) => {
    const outcome: BoundedRun = {
      stdout: '',
      stderr: '',
      result: null,
      exitCode: null,
      signal: null,
      timedOut: false,
      outputExceeded: null,
      resultExceeded: false,
      spawnError: null,
    };
    let child: ChildProcessByStdio<Writable, Readable, Readable>;
    try {
      child = spawn(options.command, options.args, {
        cwd: options.cwd,
        env: options.env,
        uid: options.uid,
        gid: options.gid,
        stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
        detached: true,
      });
    } catch (error) {
      // An argument or variable Node refuses (a NUL byte, say) fails here, before any process exists.
      resolve({ ...outcome, spawnError: error as Error });
      return;
    }
    const chunks = { stdout: [] as Buffer[], stderr: [] as Buffer[], result: [] as Buffer[] };
    let outputBytes = 0;
    let resultBytes = 0;
    let drainTimer: NodeJS.Timeout | undefined;

    const stopEverything = () => {
      killGroup(child.pid);
      drainTimer ??= setTimeout(() => {
        for (const stream of [child.stdout, child.stderr, child.stdio[3]]) (stream as Readable | null)?.destroy();
      }, PIPE_DRAIN_GRACE_MS);
    };

    const readOutput = (name: 'stdout' | 'stderr') => (chunk: Buffer) => {
      if (outcome.outputExceeded) return;
      const room = options.maxOutputBytes - outputBytes;
      chunks[name].push(chunk.length > room ? chunk.subarray(0, room) : chunk);
      outputBytes += Math.min(chunk.length, room);
      if (chunk.length > room) {
        outcome.outputExceeded = name;
        stopEverything();
      }
    };
    child.stdout.on('data', readOutput('stdout'));
    child.stderr.on('data', readOutput('stderr'));
    (child.stdio[3] as Readable).on('data', (chunk: Buffer) => {
      if (outcome.resultExceeded) return;
      resultBytes += chunk.length;
      if (resultBytes > options.maxOutputBytes) {
        outcome.resultExceeded = true;
        stopEverything();
        return;
      }
      chunks.result.push(chunk);
    });
    // The process may exit (or never start) before reading its arguments.
    child.stdin.on('error', () => {});
    child.stdin.end(options.stdin);

    const timer = setTimeout(() => {
      outcome.timedOut = true;
      stopEverything();
    }, options.timeoutMs);

    child.on('error', (error) => {
      outcome.spawnError = error;
    });
    // Anything the tool left running in its group goes with it, and so stops holding the pipes open.
    child.on('exit', () => killGroup(child.pid));
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      clearTimeout(drainTimer);
      outcome.exitCode = code;
      outcome.signal = signal;
      outcome.stdout = Buffer.concat(chunks.stdout).toString('utf8');
      outcome.stderr = Buffer.concat(chunks.stderr).toString('utf8');
      outcome.result = chunks.result.length > 0 && !outcome.resultExceeded ? Buffer.concat(chunks.result).toString('utf8') : null;
      resolve(outcome);
    });
  });
}
