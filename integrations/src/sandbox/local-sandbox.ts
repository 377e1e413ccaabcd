import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runBounded, sandboxEnvironment, type BoundedRun } from './child-process.js';
import { sandboxedCommand, type SandboxIsolation } from './isolation.js';
import { NODE_RUNNER, PYTHON_RUNNER } from './runners.js';
import { prepareTypeScriptEntry } from './typescript-entry.js';
import { startEgressProxy, type EgressPolicy, type EgressProxy } from '../egress/index.js';

export type SandboxLanguage = 'python' | 'typescript';

export type LocalSandboxInput = {
  language: SandboxLanguage;
  sourceCode: string;
  functionName: string;
  args: Record<string, unknown>;
  /** The whole environment of the tool besides PATH, HOME and LANG: nothing of the server's own is added. */
  env: Record<string, string>;
  timeoutMs: number;
  maxOutputBytes: number;
  memoryLimitMb: number;
  /** The interpreter of a virtualenv with the tool's requirements; the system python3 otherwise. */
  venvPython?: string;
  /** Found once at start by `detectSandboxIsolation`. */
  isolation: SandboxIsolation;
  /**
   * The sandbox config lets the tool reach the network, through the egress policy for its organization; otherwise
   * it has no network at all. (Without bubblewrap, ENGRAM_UNSAFE_LOCAL_TOOLS, nothing is isolated, this included.)
   */
  network?: { egress: Pick<EgressPolicy, 'fetchFor' | 'connect'>; organizationId: string };
};

/** Where the runner finds the egress proxy's socket; it removes the variable before the tool runs. */
const EGRESS_SOCKET_VARIABLE = 'ENGRAM_EGRESS_SOCKET';

export type SandboxOutcome = { status: 'success' | 'error'; funcReturn: string; stdout: string[]; stderr: string[] };

/** Error text returned to the model is capped, as the reference server caps it. */
const MAX_ERROR_CHARS = 1_000;

function errorOutcome(functionName: string, errorType: string, message: string, run?: BoundedRun): SandboxOutcome {
  const text = `Error executing function ${functionName}: ${message === '' ? errorType : `${errorType}: ${message}`}`;
  return {
    status: 'error',
    funcReturn: text.length > MAX_ERROR_CHARS ? text.slice(0, MAX_ERROR_CHARS) : text,
    stdout: run && run.stdout !== '' ? [run.stdout] : [],
    stderr: run && run.stderr !== '' ? [run.stderr] : [],
  };
}

type Launch = { command: string; args: string[] } | { error: string };

async function preparePython(workDir: string, input: LocalSandboxInput): Promise<Launch> {
  const toolPath = path.join(workDir, 'tool.py');
  const runnerPath = path.join(workDir, 'runner.py');
  await writeFile(toolPath, input.sourceCode);
  await writeFile(runnerPath, PYTHON_RUNNER);
  return { command: input.venvPython ?? 'python3', args: [runnerPath, input.functionName, toolPath, String(input.memoryLimitMb)] };
}

async function prepareTypeScript(workDir: string, input: LocalSandboxInput): Promise<Launch> {
  const entry = await prepareTypeScriptEntry(input.sourceCode, input.functionName);
  if (!entry.ok) return { error: entry.error };
  const toolPath = path.join(workDir, 'tool.mjs');
  const runnerPath = path.join(workDir, 'runner.mjs');
  await writeFile(toolPath, entry.code);
  await writeFile(runnerPath, NODE_RUNNER);
  // The heap cap is the memory limit node offers; native memory is not counted.
  return {
    command: process.execPath,
    args: [`--max-old-space-size=${input.memoryLimitMb}`, runnerPath, toolPath, JSON.stringify(entry.call)],
  };
}

function withNote(text: string, note: string): string[] {
  return [text === '' ? note : `${text}\n${note}`];
}

type RunnerOutcome = { status: 'success'; value: unknown } | { status: 'error'; error_type: string; error_message: string };

function interpret(input: LocalSandboxInput, run: BoundedRun): SandboxOutcome {
  const { functionName } = input;
  if (run.spawnError) return errorOutcome(functionName, 'SandboxError', `could not start the ${input.language} runtime: ${run.spawnError.message}`, run);
  if (run.timedOut) return errorOutcome(functionName, 'TimeoutError', `the tool did not finish within ${input.timeoutMs / 1000} s and was stopped`, run);
  if (run.outputExceeded) {
    const note = `[output truncated: the tool wrote more than ${input.maxOutputBytes} bytes and was stopped]`;
    const outcome = errorOutcome(functionName, 'OutputLimitExceeded', `the tool wrote more than ${input.maxOutputBytes} bytes of output and was stopped`, run);
    return { ...outcome, [run.outputExceeded]: withNote(run[run.outputExceeded], note) };
  }
  if (run.resultExceeded) return errorOutcome(functionName, 'OutputLimitExceeded', `the return value is larger than ${input.maxOutputBytes} bytes`, run);
  if (run.result === null) {
    const how = run.signal ? `was killed by ${run.signal}` : `exited with code ${run.exitCode}`;
    const hint = run.signal === 'SIGKILL' ? ' (out of memory?)' : '';
    return errorOutcome(functionName, 'SandboxError', `the tool process ${how}${hint} without returning a result`, run);
  }
  let outcome: RunnerOutcome;
  try {
    outcome = JSON.parse(run.result) as RunnerOutcome;
  } catch {
    return errorOutcome(functionName, 'SandboxError', 'the tool process returned a result that is not JSON', run);
  }
  if (outcome.status === 'error') return errorOutcome(functionName, outcome.error_type, outcome.error_message, run);
  return {
    status: 'success',
    funcReturn: typeof outcome.value === 'string' ? outcome.value : JSON.stringify(outcome.value),
    stdout: run.stdout === '' ? [] : [run.stdout],
    stderr: run.stderr === '' ? [] : [run.stderr],
  };
}

/**
 * Runs one tool call in a fresh child process (`python3`, or `node` for TypeScript) inside a temporary
 * working directory that is removed afterwards. Never throws for anything the tool does: its exceptions,
 * timeouts, crashes and floods of output all come back as an error outcome.
 */
export async function runInLocalSandbox(input: LocalSandboxInput): Promise<SandboxOutcome> {
  if (input.isolation.kind === 'refused') return errorOutcome(input.functionName, 'SandboxUnavailableError', input.isolation.reason);
  const workDir = await mkdtemp(path.join(tmpdir(), 'engram-tool-'));
  let proxy: EgressProxy | undefined;
  try {
    const prepared = input.language === 'python' ? await preparePython(workDir, input) : await prepareTypeScript(workDir, input);
    if ('error' in prepared) return errorOutcome(input.functionName, 'SandboxError', prepared.error);
    const launch =
      input.isolation.kind === 'bubblewrap'
        ? await sandboxedCommand(input.isolation, {
            ...prepared,
            workDir,
            readOnly: input.venvPython ? [path.dirname(path.dirname(input.venvPython))] : [],
            cpuSeconds: Math.max(1, Math.ceil(input.timeoutMs / 1000)),
          })
        : prepared;
    const socketPath = path.join(workDir, 'egress.sock');
    if (input.network && input.isolation.kind === 'bubblewrap') {
      proxy = await startEgressProxy({ egress: input.network.egress, scope: { organizationId: input.network.organizationId }, socketPath });
    }
    const run = await runBounded({
      ...launch,
      cwd: workDir,
      env: sandboxEnvironment(workDir, proxy ? { ...input.env, [EGRESS_SOCKET_VARIABLE]: socketPath } : input.env),
      stdin: JSON.stringify(input.args),
      timeoutMs: input.timeoutMs,
      maxOutputBytes: input.maxOutputBytes,
    });
    return interpret(input, run);
  } finally {
    await proxy?.close();
    await rm(workDir, { recursive: true, force: true });
  }
}
