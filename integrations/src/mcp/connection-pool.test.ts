import net from 'node:net';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { FIXTURE_STDIO_COMMAND, startFixtureHttpServer, type FixtureHttpServer } from '@engram/testing/mcp-fixture/index';
import { loopbackEgress } from '@engram/testing/egress';
import { sandboxedStdio } from '@engram/testing/mcp-stdio';
import { createMcpConnectionPool, type McpServerTarget } from './connection-pool.js';
import { McpServerError } from './errors.js';
import type { McpTransportConfig } from './transport-config.js';

const pool = createMcpConnectionPool({ timeouts: { connectMs: 5_000, listToolsMs: 5_000, callToolMs: 1_000 } });
const servers: FixtureHttpServer[] = [];

const target = (serverId: string, config: McpTransportConfig): McpServerTarget => ({ serverId, serverName: serverId, config, credentialVersion: '' });
// Sandboxed as in production: the process runs in bubblewrap.
const launch = sandboxedStdio(loopbackEgress()).launcherFor('organization-pool-test');
const stdio = (serverId: string, env: Record<string, string> = {}) => target(serverId, { type: 'stdio', ...FIXTURE_STDIO_COMMAND, env, launch });
const text = (result: { content: Array<{ type: string; text?: string }> }) => result.content.map((part) => part.text).join('');

async function failureOf(work: Promise<unknown>): Promise<McpServerError> {
  const error = await work.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(McpServerError);
  return error as McpServerError;
}

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.stop()));
});

afterAll(() => pool.close());

describe('MCP connection pool over stdio', () => {
  it('starts the process with its environment, lists and calls tools, and reuses the session', async () => {
    const server = stdio('stdio-basic', { ECHO_PREFIX: 'from env: ' });
    expect((await pool.listTools(server)).map((tool) => tool.name)).toEqual(['echo', 'add', 'slow', 'crash']);
    expect(text(await pool.callTool(server, 'echo', { text: 'hello' }))).toBe('from env: hello');
    expect(text(await pool.callTool(server, 'add', { a: 2, b: 40 }))).toBe('42');
  });

  it('answers a call the server rejects as a tool error, keeping the connection', async () => {
    const server = stdio('stdio-errors');
    const result = await pool.callTool(server, 'no_such_tool', {});
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/no_such_tool not found/);
    expect(text(await pool.callTool(server, 'add', { a: 1, b: 1 }))).toBe('2');
  });

  it('starts the process again on the next use after it died', async () => {
    const server = stdio('stdio-crash');
    expect(text(await pool.callTool(server, 'add', { a: 1, b: 2 }))).toBe('3');
    const crashed = await failureOf(pool.callTool(server, 'crash', {}));
    expect(crashed.kind).toBe('unreachable');
    expect(text(await pool.callTool(server, 'add', { a: 3, b: 4 }))).toBe('7');
  });

  it('fails clearly when the command cannot start or exits at once, with what it printed', async () => {
    const missing = await failureOf(pool.listTools(target('stdio-missing', { type: 'stdio', command: 'engram-no-such-command', args: [], env: {}, launch })));
    expect(missing.kind).toBe('unreachable');
    expect(missing.message).toMatch(/could not be started.*ENOENT/);

    const exiting = target('stdio-exit', { type: 'stdio', command: process.execPath, args: ['-e', 'console.error("missing API_KEY"); process.exit(3)'], env: {}, launch });
    const exited = await failureOf(pool.listTools(exiting));
    expect(exited.kind).toBe('unreachable');
    expect(exited.message).toContain('missing API_KEY');
  });

  it('times a slow call out without closing the session the next calls use', async () => {
    const server = stdio('stdio-slow');
    // The tool would answer long after the test's own timeout: only the pool's time-out can end this call.
    const slow = await failureOf(pool.callTool(server, 'slow', { ms: 600_000 }));
    expect(slow.kind).toBe('timeout');
    expect(slow.message).toMatch(/did not answer in time/);
    expect(text(await pool.callTool(server, 'slow', { ms: 10 }))).toBe('waited 10 ms');
  });
});

describe.each(['streamable_http', 'sse'] as const)('MCP connection pool over %s', (transport) => {
  it('lists and calls tools, fails fast while the server is down, and reconnects when it is back on its port', async () => {
    const fixture = await startFixtureHttpServer({ transport });
    servers.push(fixture);
    const server = target(`${transport}-restart`, { type: transport, url: fixture.url, headers: {}, fetch });
    expect((await pool.listTools(server)).map((tool) => tool.name)).toContain('add');
    expect(text(await pool.callTool(server, 'add', { a: 20, b: 22 }))).toBe('42');

    await fixture.kill();
    const started = Date.now();
    const down = await failureOf(pool.callTool(server, 'add', { a: 1, b: 1 }));
    expect(down.kind).toBe('unreachable');
    expect(Date.now() - started).toBeLessThan(3_000);

    await fixture.restart();
    expect(text(await pool.callTool(server, 'add', { a: 5, b: 5 }))).toBe('10');
  });

  it('recovers from a restart between two calls', async () => {
    const fixture = await startFixtureHttpServer({ transport });
    servers.push(fixture);
    const server = target(`${transport}-between`, { type: transport, url: fixture.url, headers: {}, fetch });
    expect(text(await pool.callTool(server, 'add', { a: 1, b: 2 }))).toBe('3');
    await fixture.kill();
    await fixture.restart();
    expect(text(await pool.callTool(server, 'add', { a: 2, b: 3 }))).toBe('5');
  });

  it('sends the configured headers, and a refused credential says so', async () => {
    const fixture = await startFixtureHttpServer({ transport, requireHeader: { name: 'X-Api-Key', value: 'sesame' } });
    servers.push(fixture);
    const allowed = target(`${transport}-auth`, { type: transport, url: fixture.url, headers: { 'X-Api-Key': 'sesame' }, fetch });
    expect(text(await pool.callTool(allowed, 'echo', { text: 'in' }))).toBe('in');
    const refused = await failureOf(pool.listTools(target(`${transport}-noauth`, { type: transport, url: fixture.url, headers: { 'X-Api-Key': 'wrong' }, fetch })));
    expect(refused.kind).toBe('authorization_required');
  });
});

describe('a restart the client did not notice', () => {
  it('sends the call again over a fresh session when the server no longer knows the old one', async () => {
    const fixture = await startFixtureHttpServer({ transport: 'streamable_http', noEventStream: true });
    servers.push(fixture);
    const server = target('unnoticed', { type: 'streamable_http', url: fixture.url, headers: {}, fetch });
    expect(text(await pool.callTool(server, 'add', { a: 1, b: 2 }))).toBe('3');
    await fixture.kill();
    await fixture.restart();
    // The pooled session is stale (the new process answers it 404, having processed nothing).
    expect(text(await pool.callTool(server, 'add', { a: 2, b: 3 }))).toBe('5');
  });

  it('does not send a call again when the server may have run it', async () => {
    const server = stdio('stdio-once');
    const crashed = await failureOf(pool.callTool(server, 'crash', {}));
    expect(crashed.neverDelivered).toBe(false);
    expect(text(await pool.callTool(server, 'add', { a: 1, b: 1 }))).toBe('2');
  });
});

describe('MCP connection timeouts', () => {
  it('gives up on a server that accepts the connection but never answers', async () => {
    const silent = net.createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as net.AddressInfo;
    try {
      const quick = createMcpConnectionPool({ timeouts: { connectMs: 500 } });
      const started = Date.now();
      const error = await failureOf(quick.listTools(target('silent', { type: 'streamable_http', url: `http://127.0.0.1:${port}/mcp`, headers: {}, fetch })));
      expect(error.kind).toBe('timeout');
      expect(Date.now() - started).toBeLessThan(3_000);
      await quick.close();
    } finally {
      silent.close();
    }
  });
});
