import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeSandboxIsolation, detectSandboxIsolation, type SandboxIsolation } from './isolation.js';
import { runInLocalSandbox, type SandboxOutcome } from './local-sandbox.js';

/**
 * Escape attempts against the bubblewrap sandbox, as a hostile tool would make them. Each must fail
 * inside the tool (it reports what it saw) or be stopped by a limit with a clear error, and the test
 * process, standing in for the worker, carries on unharmed.
 */

const WORKER_SECRET = `worker-secret-${process.pid}`;
let isolation: SandboxIsolation;
let secretDir: string;
let secretFile: string;
let listener: Server;
let listenerPort: number;

const limits = { timeoutMs: 20_000, maxOutputBytes: 64 * 1024, memoryLimitMb: 512 };

const attempt = (sourceCode: string, overrides: { timeoutMs?: number; allowNetwork?: boolean } = {}): Promise<SandboxOutcome> =>
  runInLocalSandbox({ language: 'python', sourceCode, functionName: 'attempt', args: {}, env: { TOOL_VARIABLE: 'given' }, isolation, ...limits, ...overrides });

beforeAll(async () => {
  process.env.ENGRAM_ESCAPE_TEST_SECRET = WORKER_SECRET;
  isolation = await detectSandboxIsolation({ allowUnsafeLocalTools: false });
  secretDir = await mkdtemp(path.join(tmpdir(), 'engram-worker-data-'));
  secretFile = path.join(secretDir, 'secret-key');
  await writeFile(secretFile, WORKER_SECRET, { mode: 0o600 });
  listener = createServer((socket) => socket.end('reached'));
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  listenerPort = (listener.address() as { port: number }).port;
});

afterAll(async () => {
  delete process.env.ENGRAM_ESCAPE_TEST_SECRET;
  await rm(secretDir, { recursive: true, force: true });
  await new Promise((resolve) => listener.close(resolve));
});

describe('the bubblewrap tool sandbox', () => {
  it('is what this machine runs tools in', () => {
    expect(isolation.kind).toBe('bubblewrap');
  });

  it('shows the tool a /proc of its own: no worker process, no worker environment', async () => {
    const outcome = await attempt(`
import os
def attempt():
    pids = sorted(int(p) for p in os.listdir('/proc') if p.isdigit())
    environs = []
    for pid in pids:
        try:
            environs.append(open(f'/proc/{pid}/environ', 'rb').read().decode(errors='replace'))
        except OSError as error:
            environs.append(type(error).__name__)
    return {'pids': pids, 'environs': environs, 'ppid': os.getppid(), 'uid': os.getuid(), 'env': dict(os.environ)}
`);
    expect(outcome.status).toBe('success');
    const seen = JSON.parse(outcome.funcReturn) as { pids: number[]; environs: string[]; uid: number; env: Record<string, string> };
    expect(Math.max(...seen.pids)).toBeLessThan(10);
    expect(seen.pids).not.toContain(process.pid);
    expect(seen.environs.join('\n')).not.toContain(WORKER_SECRET);
    expect(seen.uid).toBe(65534);
    expect(seen.env).toEqual(expect.objectContaining({ TOOL_VARIABLE: 'given' }));
    expect(JSON.stringify(seen.env)).not.toContain(WORKER_SECRET);
  });

  it("cannot read the worker's files: its data directory, its source, the database's", async () => {
    const outcome = await attempt(`
import os
def attempt():
    results = {}
    for target in [${JSON.stringify(secretFile)}, ${JSON.stringify(process.cwd())}, '/root', '/var/lib/postgresql', '/etc/shadow', '/etc/passwd']:
        try:
            results[target] = os.listdir(target) if os.path.isdir(target) else open(target).read()[:40]
        except OSError as error:
            results[target] = type(error).__name__
    return results
`);
    const results = JSON.parse(outcome.funcReturn) as Record<string, unknown>;
    expect(results[secretFile]).toBe('FileNotFoundError');
    expect(results[process.cwd()]).toBe('FileNotFoundError');
    expect(results['/root']).toBe('FileNotFoundError');
    expect(results['/var/lib/postgresql']).toBe('FileNotFoundError');
    expect(results['/etc/shadow']).toBe('FileNotFoundError');
    expect(JSON.stringify(results)).not.toContain(WORKER_SECRET);
  });

  it('cannot write outside its scratch directory', async () => {
    const outcome = await attempt(`
import os
def attempt():
    results = {}
    for target in ['/usr/escaped', '/etc/escaped', '/escaped', ${JSON.stringify(path.join(secretDir, 'escaped'))}, 'scratch-file']:
        try:
            with open(target, 'w') as handle:
                handle.write('x')
            results[target] = 'written'
        except OSError as error:
            results[target] = type(error).__name__
    return results
`);
    const results = JSON.parse(outcome.funcReturn) as Record<string, string>;
    expect(results['scratch-file']).toBe('written');
    expect(results['/usr/escaped']).toMatch(/Error/);
    expect(results['/etc/escaped']).toMatch(/Error/);
    expect(results['/escaped']).toMatch(/Error/);
    await expect(readFile(path.join(secretDir, 'escaped'))).rejects.toThrow(/ENOENT/);
  });

  it('has no network unless the sandbox config allows it: neither PostgreSQL nor the API nor anything else', async () => {
    const source = `
import socket
def attempt():
    results = {}
    for port in [5432, ${listenerPort}]:
        try:
            with socket.create_connection(('127.0.0.1', port), timeout=3) as connection:
                results[str(port)] = connection.recv(16).decode()
        except OSError as error:
            results[str(port)] = type(error).__name__
    return results
`;
    const closed = JSON.parse((await attempt(source)).funcReturn) as Record<string, string>;
    expect(closed[String(listenerPort)]).not.toBe('reached');
    expect(closed['5432']).toMatch(/Error/);
    const open = JSON.parse((await attempt(source, { allowNetwork: true })).funcReturn) as Record<string, string>;
    expect(open[String(listenerPort)]).toBe('reached');
  });

  it('stops a fork bomb at the process limit, and the worker carries on', async () => {
    const outcome = await attempt(`
import os, time
def attempt():
    children = 0
    try:
        while True:
            if os.fork() == 0:
                time.sleep(30)
                os._exit(0)
            children += 1
    except OSError as error:
        return {'stopped_after': children, 'error': type(error).__name__}
`);
    expect(outcome.status).toBe('success');
    const result = JSON.parse(outcome.funcReturn) as { stopped_after: number; error: string };
    expect(result.error).toBe('BlockingIOError');
    expect(result.stopped_after).toBeLessThan(64);
  });

  it('stops a tool that allocates 4 GB at its memory limit', async () => {
    const outcome = await attempt(`
def attempt():
    block = bytearray(4 * 1024 ** 3)
    return len(block)
`);
    expect(outcome.status).toBe('error');
    expect(outcome.funcReturn).toMatch(/MemoryError/);
  });

  it('stops a tool that loops forever at its wall-clock limit', async () => {
    const started = Date.now();
    const outcome = await attempt('def attempt():\n    while True:\n        pass\n', { timeoutMs: 2_000 });
    expect(outcome.status).toBe('error');
    expect(outcome.funcReturn).toMatch(/TimeoutError/);
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('refuses to run tools, with a clear message, where namespaces are unavailable and nobody allowed the unsafe path', async () => {
    const refused = await detectSandboxIsolation({ allowUnsafeLocalTools: false, bwrapPath: '/nonexistent/bwrap' });
    expect(refused.kind).toBe('refused');
    const outcome = await runInLocalSandbox({ language: 'python', sourceCode: 'def attempt():\n    return 1\n', functionName: 'attempt', args: {}, env: {}, isolation: refused, ...limits });
    expect(outcome.status).toBe('error');
    expect(outcome.funcReturn).toMatch(/SandboxUnavailableError: the local tool sandbox is unavailable.*ENGRAM_UNSAFE_LOCAL_TOOLS=true/);

    const unsafe = await detectSandboxIsolation({ allowUnsafeLocalTools: true, bwrapPath: '/nonexistent/bwrap' });
    expect(unsafe).toMatchObject({ kind: 'host', warning: expect.stringMatching(/WITHOUT a sandbox/) });
  });

  it('has one start-up line for each state: in use, unsafe by ENGRAM_UNSAFE_LOCAL_TOOLS, refused', async () => {
    expect(describeSandboxIsolation(isolation)).toEqual({ level: 'INFO', message: expect.stringMatching(/^Local tools run in the bubblewrap sandbox: .*as uid 65534, no network/) });
    const unsafe = await detectSandboxIsolation({ allowUnsafeLocalTools: true, bwrapPath: '/nonexistent/bwrap' });
    expect(describeSandboxIsolation(unsafe)).toEqual({ level: 'WARN', message: expect.stringMatching(/^Local tools run WITHOUT a sandbox.*\(ENGRAM_UNSAFE_LOCAL_TOOLS=true\): bubblewrap could not start/) });
    const refused = await detectSandboxIsolation({ allowUnsafeLocalTools: false, bwrapPath: '/nonexistent/bwrap' });
    expect(describeSandboxIsolation(refused)).toEqual({
      level: 'ERROR',
      message: expect.stringMatching(/^Local tools are refused: the local tool sandbox is unavailable: .*set ENGRAM_UNSAFE_LOCAL_TOOLS=true/),
    });
  });
});
