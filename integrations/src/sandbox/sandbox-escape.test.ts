import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer as createHttpServer, type IncomingMessage } from 'node:http';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeSandboxIsolation, detectSandboxIsolation, type SandboxIsolation } from './isolation.js';
import { runInLocalSandbox, type LocalSandboxInput, type SandboxOutcome } from './local-sandbox.js';
import { createEgressPolicy, parseEgressConfig, type EgressRefusal } from '../egress/index.js';

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

const attempt = (sourceCode: string, overrides: Partial<Pick<LocalSandboxInput, 'timeoutMs' | 'network' | 'language'>> = {}): Promise<SandboxOutcome> =>
  runInLocalSandbox({ language: 'python', sourceCode, functionName: 'attempt', args: {}, env: { TOOL_VARIABLE: 'given' }, isolation, ...limits, ...overrides });

const TOOL_ORGANIZATION = 'organization-tool';
const refusals: EgressRefusal[] = [];
/** The network a sandbox config allows, through the egress policy: public addresses, and what `allow` adds. */
const networkThrough = (allow?: string) => ({
  egress: createEgressPolicy({ ...parseEgressConfig({ ENGRAM_EGRESS_ALLOW: allow }), firstOrganizationId: null, onRefused: (refusal) => refusals.push(refusal) }),
  organizationId: TOOL_ORGANIZATION,
});

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

  it('has no network of its own, allowed or not: neither PostgreSQL nor the API nor anything else', async () => {
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
    const allowed = JSON.parse((await attempt(source, { network: networkThrough('127.0.0.1') })).funcReturn) as Record<string, string>;
    expect(allowed[String(listenerPort)]).not.toBe('reached');
    expect(allowed['5432']).toMatch(/Error/);
  });

  describe('allowed the network by its sandbox config', () => {
    const hits: IncomingMessage[] = [];
    const web = createHttpServer((request, response) => {
      hits.push(request);
      response.end(`hello from ${request.url}`);
    });
    let webUrl: string;

    beforeAll(async () => {
      await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
      webUrl = `http://127.0.0.1:${(web.address() as { port: number }).port}`;
    });

    afterAll(async () => {
      await new Promise((resolve) => web.close(resolve));
    });

    const pythonFetch = (url: string) => `
import http.client, urllib.error, urllib.request
def attempt():
    results = {}
    try:
        results['plain'] = urllib.request.urlopen('${url}/plain', timeout=10).read().decode()
    except urllib.error.HTTPError as error:
        results['plain'] = '%d %s' % (error.code, error.read().decode())
    except OSError as error:
        results['plain'] = type(error).__name__
    host, port = '${url}'.rsplit('/', 1)[1].split(':')
    tunnel = http.client.HTTPConnection('127.0.0.1', int(urllib.request.getproxies()['http'].rsplit(':', 1)[1]), timeout=10)
    tunnel.set_tunnel(host, int(port))
    try:
        tunnel.request('GET', '/tunnelled')
        results['tunnel'] = tunnel.getresponse().read().decode()
    except OSError as error:
        results['tunnel'] = str(error)
    return results
`;

    it('reaches what the egress policy allows, over plain requests and CONNECT tunnels, from python and from TypeScript fetch', async () => {
      const python = JSON.parse((await attempt(pythonFetch(webUrl), { network: networkThrough('127.0.0.1') })).funcReturn) as Record<string, string>;
      expect(python).toEqual({ plain: 'hello from /plain', tunnel: 'hello from /tunnelled' });
      const typescript = await attempt(`export async function attempt(): Promise<string> { return (await fetch('${webUrl}/from-node')).text(); }`, {
        language: 'typescript',
        network: networkThrough('127.0.0.1'),
      });
      expect(typescript).toMatchObject({ status: 'success', funcReturn: 'hello from /from-node' });
    });

    it('is refused what the egress policy refuses, with the reason, and the destination receives nothing', async () => {
      hits.length = 0;
      refusals.length = 0;
      const python = JSON.parse((await attempt(pythonFetch(webUrl), { network: networkThrough() })).funcReturn) as Record<string, string>;
      expect(python.plain).toMatch(/^403 Refused to connect to 127\.0\.0\.1: it is a loopback address/);
      expect(python.tunnel).toMatch(/403/);
      const typescript = await attempt(`export async function attempt(): Promise<string> { return (await fetch('${webUrl}/from-node')).text(); }`, {
        language: 'typescript',
        network: networkThrough(),
      });
      expect(typescript.status).toBe('error');
      expect(typescript.funcReturn).toMatch(/The egress proxy refused 127\.0\.0\.1:\d+: Refused to connect to 127\.0\.0\.1: it is a loopback address/);
      expect(hits).toHaveLength(0);
      expect(refusals.every((refusal) => refusal.organizationId === TOOL_ORGANIZATION && refusal.reason === 'loopback')).toBe(true);
      expect(refusals.length).toBeGreaterThanOrEqual(3);
    });
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
