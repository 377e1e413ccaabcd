import { beforeAll, describe, expect, it } from 'vitest';
import { detectSandboxIsolation, type SandboxIsolation } from './isolation.js';
import { runInLocalSandbox, type LocalSandboxInput } from './local-sandbox.js';

const limits = { timeoutMs: 10_000, maxOutputBytes: 64 * 1024, memoryLimitMb: 512 };

let isolation: SandboxIsolation;

beforeAll(async () => {
  isolation = await detectSandboxIsolation({ allowUnsafeLocalTools: false });
});

const python = (sourceCode: string, functionName: string, args: Record<string, unknown> = {}, overrides: Partial<LocalSandboxInput> = {}) =>
  runInLocalSandbox({ language: 'python', sourceCode, functionName, args, env: {}, isolation, ...limits, ...overrides });

const typescript = (sourceCode: string, functionName: string, args: Record<string, unknown> = {}, overrides: Partial<LocalSandboxInput> = {}) =>
  runInLocalSandbox({ language: 'typescript', sourceCode, functionName, args, env: {}, isolation, ...limits, ...overrides });

describe('the local sandbox, python', () => {
  it('passes arguments as JSON and returns the JSON-encoded value with the output captured', async () => {
    const outcome = await python(
      'import datetime\ndef add(a: int, b: int):\n    print("adding", a, b)\n    return {"sum": a + b, "when": datetime.date(2024, 1, 2)}',
      'add',
      { a: 2, b: 40 },
    );
    expect(outcome).toEqual({ status: 'success', funcReturn: '{"sum":42,"when":"2024-01-02"}', stdout: ['adding 2 40\n'], stderr: [] });
  });

  it('returns a string as it is and awaits async functions', async () => {
    expect((await python('async def hello(name: str):\n    return "hi " + name', 'hello', { name: 'ada' })).funcReturn).toBe('hi ada');
  });

  it("reports the tool's exception with its type and message, and the traceback on stderr", async () => {
    const outcome = await python('def fail():\n    raise KeyError("missing thing")', 'fail');
    expect(outcome.status).toBe('error');
    expect(outcome.funcReturn).toBe("Error executing function fail: KeyError: 'missing thing'");
    expect(outcome.stderr.join('')).toContain('Traceback');
  });

  it('caps the error text at 1000 characters', async () => {
    const outcome = await python('def fail():\n    raise ValueError("x" * 5000)', 'fail');
    expect(outcome.funcReturn).toHaveLength(1000);
  });

  it('stops a tool that runs past its timeout, with everything it started', async () => {
    const started = Date.now();
    const outcome = await python(
      'import subprocess, time\ndef slow():\n    subprocess.Popen(["sleep", "60"])\n    time.sleep(60)',
      'slow',
      {},
      { timeoutMs: 1_500 },
    );
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(outcome).toMatchObject({ status: 'error', funcReturn: 'Error executing function slow: TimeoutError: the tool did not finish within 1.5 s and was stopped' });
  });

  it('stops reading and kills a tool that prints more than the output cap', async () => {
    const outcome = await python('def flood():\n    print("x" * 10_000_000)\n    return "done"', 'flood');
    expect(outcome.status).toBe('error');
    expect(outcome.funcReturn).toContain('OutputLimitExceeded: the tool wrote more than 65536 bytes of output and was stopped');
    const stdout = outcome.stdout.join('');
    expect(stdout.length).toBeLessThan(70_000);
    expect(stdout).toMatch(/\[output truncated: the tool wrote more than 65536 bytes and was stopped\]$/);
  });

  it('refuses a return value larger than the cap', async () => {
    const outcome = await python('def big():\n    return "y" * 1_000_000', 'big');
    expect(outcome.funcReturn).toBe('Error executing function big: OutputLimitExceeded: the return value is larger than 65536 bytes');
  });

  it('applies the memory limit', async () => {
    const outcome = await python('def hog():\n    return len(bytearray(2 * 1024 ** 3))', 'hog', {}, { memoryLimitMb: 256 });
    expect(outcome.funcReturn).toBe('Error executing function hog: MemoryError');
  });

  it('sees only the variables it is given, a PATH, LANG and its own temporary HOME', async () => {
    process.env.ENGRAM_SANDBOX_CANARY = 'server-secret';
    const outcome = await python('import os\ndef env():\n    return {"env": dict(os.environ), "cwd": os.getcwd()}', 'env', {}, { env: { GIVEN: 'yes' } });
    const { env, cwd } = JSON.parse(outcome.funcReturn) as { env: Record<string, string>; cwd: string };
    expect(Object.keys(env).sort()).toEqual(['GIVEN', 'HOME', 'LANG', 'PATH']);
    expect(env.GIVEN).toBe('yes');
    expect(env.HOME).toBe(cwd);
    delete process.env.ENGRAM_SANDBOX_CANARY;
  });

  it('runs each call in a fresh directory that is removed afterwards', async () => {
    const source = 'import os\ndef where():\n    open("scratch.txt", "w").write("x")\n    return os.getcwd()';
    const first = (await python(source, 'where')).funcReturn;
    const second = (await python(source, 'where')).funcReturn;
    expect(first).not.toBe(second);
    const exists = await python(`import os\ndef check():\n    return os.path.exists(${JSON.stringify(first)})`, 'check');
    expect(exists.funcReturn).toBe('false');
  });

  it('says when the function is not in the source', async () => {
    expect((await python('def other():\n    return 1', 'wanted')).funcReturn).toBe(
      "Error executing function wanted: NameError: the source defines no function named 'wanted'",
    );
  });
});

describe('the local sandbox, typescript', () => {
  it('transpiles the tool and passes named arguments positionally by parameter name', async () => {
    const outcome = await typescript(
      'export function greet(greeting: string, name?: string): string {\n  console.log("greeting");\n  return `${greeting}, ${name ?? "you"}`;\n}',
      'greet',
      { name: 'Ada', greeting: 'Hello' },
    );
    expect(outcome).toEqual({ status: 'success', funcReturn: 'Hello, Ada', stdout: ['greeting\n'], stderr: [] });
  });

  it('passes the arguments object to a tool that destructures one, and encodes non-string returns', async () => {
    const outcome = await typescript('const double = async ({ x }: { x: number }) => ({ doubled: x * 2 });', 'double', { x: 21 });
    expect(outcome.funcReturn).toBe('{"doubled":42}');
  });

  it("reports a thrown error with its name and message", async () => {
    const outcome = await typescript('function boom(): never { throw new RangeError("too far"); }', 'boom');
    expect(outcome.status).toBe('error');
    expect(outcome.funcReturn).toBe('Error executing function boom: RangeError: too far');
    expect(outcome.stderr.join('')).toContain('RangeError: too far');
  });

  it('sees only the variables it is given', async () => {
    const outcome = await typescript('export function env() { return Object.keys(process.env).sort(); }', 'env', {}, { env: { GIVEN: 'yes' } });
    expect(JSON.parse(outcome.funcReturn)).toEqual(['GIVEN', 'HOME', 'LANG', 'PATH']);
  });

  it('stops a busy loop at the timeout', async () => {
    const outcome = await typescript('export function spin() { for (;;) {} }', 'spin', {}, { timeoutMs: 1_500 });
    expect(outcome.funcReturn).toContain('TimeoutError');
  });

  it('reports a syntax error without starting a process', async () => {
    const outcome = await typescript('export function broken( {', 'broken');
    expect(outcome.funcReturn).toMatch(/^Error executing function broken: SandboxError: TypeScript syntax error: /);
  });
});
