import { lookup } from 'node:dns/promises';
import { createServer as createHttpServer, type IncomingMessage } from 'node:http';
import { createServer as createTcpServer, connect, type AddressInfo, type Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { McpServer, newId, newMcpServerId, Provider } from '@engram/db';
import { createEgressPolicy, parseEgressConfig, type EgressResolver } from '@engram/integrations/egress';
import { beginMcpAuthorization, createMcpOAuthProvider, McpServerError } from '@engram/integrations/mcp';
import { startAgentTestContext } from '@engram/testing/agent-test-context';
import { startFixtureHttpServer, type FixtureHttpServer } from '@engram/testing/mcp-fixture/index';
import { readSse, startScriptedModelServer } from '@engram/testing';

/*
 * Server-side request forgery: a URL an organization supplies never makes the server reach loopback (or a private
 * network, or cloud metadata). The stack's own organization is the first-start one, which the operator allowed
 * loopback (as `npm start` does); a second organization is not allowed it. Every listener below is on loopback and
 * counts what reaches it: the second organization's calls are refused, and reach nothing.
 */

/** A name whose DNS answer changes between the check when it is given and the connection: public, then loopback. */
const REBINDING_HOST = 'hooks.rebind.example';
const rebindingAnswers = [[{ address: '93.184.216.34', family: 4 as const }], [{ address: '127.0.0.1', family: 4 as const }]];
const resolveForTest: EgressResolver = async (hostname) => {
  if (hostname === REBINDING_HOST) return rebindingAnswers.shift() ?? [];
  return (await lookup(hostname, { all: true })).map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
};

const { stack, model, call, stop } = await startAgentTestContext({ apiEnv: { ENGRAM_EGRESS_ALLOW_FIRST_ORGANIZATION: '127.0.0.0/8,::1' }, egressResolve: resolveForTest });
const first = { key: stack.apiKey, organizationId: stack.tenant.organizationId };
const otherTenant = await stack.createTenant('not allowed loopback');
const other = { key: otherTenant.apiKey.key, organizationId: otherTenant.organizationId };

type Relay = { url: string; port: number; connections: number; close(): Promise<void> };

/** A loopback TCP relay to `targetPort` that counts the connections it accepts: zero means nothing reached the target. */
async function countingRelay(targetPort: number): Promise<Relay> {
  const sockets = new Set<Socket>();
  const server = createTcpServer((socket) => {
    relay.connections += 1;
    const upstream = connect(targetPort, '127.0.0.1');
    for (const end of [socket, upstream]) {
      sockets.add(end);
      end.on('error', () => undefined).on('close', () => sockets.delete(end));
    }
    socket.pipe(upstream).pipe(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const relay: Relay = {
    url: `http://127.0.0.1:${port}`,
    port,
    connections: 0,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  return relay;
}

const hookRequests: IncomingMessage[] = [];
const hookBodies: unknown[] = [];
const hook = createHttpServer((request, response) => {
  hookRequests.push(request);
  let body = '';
  request.on('data', (chunk: Buffer) => (body += chunk.toString()));
  request.on('end', () => {
    hookBodies.push(JSON.parse(body || 'null'));
    response.end('ok');
  });
});
await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
const hookPort = (hook.address() as AddressInfo).port;

const mcp = await startFixtureHttpServer({ transport: 'streamable_http' });
const mcpRelay = await countingRelay(mcp.port);
const oauthMcp = await startFixtureHttpServer({ transport: 'streamable_http', oauth: true });
const oauthRelay = await countingRelay(oauthMcp.port);
const byokModel = await startScriptedModelServer({ models: ['house-model'] });
const byokRelay = await countingRelay(byokModel.port);
const byokUrl = `${byokRelay.url}/v1`;
const fixtures: FixtureHttpServer[] = [mcp, oauthMcp];

afterAll(async () => {
  for (const relay of [mcpRelay, oauthRelay, byokRelay]) await relay.close();
  for (const fixture of fixtures) await fixture.stop();
  await byokModel.close();
  await new Promise((resolve) => hook.close(resolve));
  await stop();
});

const refusedField = (loc: Array<string | number>) => ({
  status: 422,
  body: { detail: [{ loc, msg: expect.stringMatching(/^Refused to connect to .*loopback address/), type: 'value_error' }] },
});

async function agentOf(tenant: { key: string }, model = 'openai/gpt-4o-mini'): Promise<string> {
  const created = await call(tenant.key, 'POST', '/agents/', { name: `egress-${Date.now()}`, model });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  return created.body.id as string;
}

/** The events of a connect stream, until the one `until` accepts or the stream ends. */
async function connectEvents(key: string, method: 'GET' | 'POST', path: string, body: unknown, until: (event: Record<string, unknown>) => boolean) {
  const abort = new AbortController();
  const response = await fetch(`${stack.baseUrl}/v1${path}`, {
    method,
    signal: abort.signal,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const events: Array<Record<string, unknown>> = [];
  for await (const { data } of readSse(response)) {
    if (data === '[DONE]') break;
    events.push(data);
    if (until(data)) break;
  }
  abort.abort();
  return events;
}

describe('callback_url', () => {
  it('is refused when given for an organization not allowed loopback, in any spelling, and nothing is called', async () => {
    const agentId = await agentOf(other);
    const message = { messages: [{ role: 'user', content: 'hi' }] };
    for (const callbackUrl of [
      `http://127.0.0.1:${hookPort}/hook?token=s3cret`,
      `http://localhost:${hookPort}/hook`,
      `http://2130706433:${hookPort}/hook`,
      `http://0177.0.0.1:${hookPort}/hook`,
      `http://[::ffff:127.0.0.1]:${hookPort}/hook`,
    ]) {
      expect(await call(other.key, 'POST', `/agents/${agentId}/messages/async`, { ...message, callback_url: callbackUrl })).toMatchObject(refusedField(['body', 'callback_url']));
    }
    expect(await call(other.key, 'POST', '/messages/batches', { requests: [{ agent_id: agentId, ...message }], callback_url: `http://127.0.0.1:${hookPort}/` })).toMatchObject(
      refusedField(['body', 'callback_url']),
    );
    const schedule = { ...message, callback_url: `http://127.0.0.1:${hookPort}/`, schedule: { type: 'one-time', scheduled_at: Date.now() + 3_600_000 } };
    expect(await call(other.key, 'POST', `/agents/${agentId}/schedule`, schedule)).toMatchObject(refusedField(['body', 'callback_url']));
    expect(await call(other.key, 'POST', `/agents/${agentId}/messages/async`, { ...message, callback_url: 'http://169.254.169.254/latest/meta-data/' })).toMatchObject({
      status: 422,
      body: { detail: [{ loc: ['body', 'callback_url'], msg: expect.stringMatching(/cloud metadata endpoint/) }] },
    });
    expect(hookRequests).toHaveLength(0);

    const logged = stack.egressRefusals.filter((refusal) => refusal.organizationId === other.organizationId);
    expect(logged).toContainEqual({ organizationId: other.organizationId, host: '127.0.0.1', address: '127.0.0.1', reason: 'loopback' });
    expect(logged).toContainEqual({ organizationId: other.organizationId, host: 'localhost', address: '127.0.0.1', reason: 'loopback' });
    expect(JSON.stringify(logged)).not.toMatch(/s3cret|hook/);
  });

  it('is refused when it is called if its name resolves to loopback by then: the run records why, and nothing is called', async () => {
    const agentId = await agentOf(other);
    model.enqueue({ type: 'text', text: 'done' });
    const callbackUrl = `http://${REBINDING_HOST}:${hookPort}/late?token=s3cret`;
    const sent = await call(other.key, 'POST', `/agents/${agentId}/messages/async`, { messages: [{ role: 'user', content: 'hi' }], callback_url: callbackUrl });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    await expect.poll(async () => (await call(other.key, 'GET', `/runs/${sent.body.id}`)).body.callback_sent_at, { timeout: 30_000 }).not.toBeNull();
    const run = (await call(other.key, 'GET', `/runs/${sent.body.id}`)).body;
    expect(run).toMatchObject({ status: 'completed', callback_status_code: null, callback_error: expect.stringMatching(/^Refused to connect to hooks\.rebind\.example \(127\.0\.0\.1\): it is a loopback address/) });
    expect(stack.egressRefusals).toContainEqual({ organizationId: other.organizationId, host: REBINDING_HOST, address: '127.0.0.1', reason: 'loopback' });
    expect(hookRequests).toHaveLength(0);
  });

  it('is called for the organization the operator allowed loopback', async () => {
    const agentId = await agentOf(first);
    model.enqueue({ type: 'text', text: 'done' });
    const sent = await call(first.key, 'POST', `/agents/${agentId}/messages/async`, { messages: [{ role: 'user', content: 'hi' }], callback_url: `http://127.0.0.1:${hookPort}/hook` });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    await expect.poll(() => hookBodies, { timeout: 30_000 }).toContainEqual(expect.objectContaining({ job_id: sent.body.id, status: 'completed' }));
  });
});

describe('MCP servers', () => {
  const serverUrl = () => `${mcpRelay.url}/mcp`;

  it('refuses a loopback server URL when it is given, on every route that takes one, and nothing connects', async () => {
    const name = `loopback-${Date.now()}`;
    expect(await call(other.key, 'POST', '/mcp-servers/', { server_name: name, config: { mcp_server_type: 'streamable_http', server_url: serverUrl() } })).toMatchObject(
      refusedField(['body', 'config', 'server_url']),
    );
    const legacy = { server_name: name, type: 'streamable_http', server_url: serverUrl() };
    expect(await call(other.key, 'PUT', '/tools/mcp/servers', legacy)).toMatchObject(refusedField(['body', 'server_url']));
    expect(await call(other.key, 'POST', '/tools/mcp/servers/test', legacy)).toMatchObject(refusedField(['body', 'server_url']));
    expect(await call(other.key, 'POST', '/tools/mcp/servers/connect', legacy)).toMatchObject(refusedField(['body', 'server_url']));

    const publicServer = await call(other.key, 'POST', '/mcp-servers/', { server_name: `${name}-moved`, config: { mcp_server_type: 'sse', server_url: 'https://mcp.invalid/sse' } });
    expect(publicServer.status).toBe(200);
    expect(await call(other.key, 'PATCH', `/mcp-servers/${publicServer.body.id}`, { config: { server_url: serverUrl() } })).toMatchObject(
      refusedField(['body', 'config', 'server_url']),
    );
    expect(mcpRelay.connections).toBe(0);
  });

  /** A server stored as one registered before the policy existed, or whose name resolved elsewhere when it was registered. */
  const storedServer = (serverType: 'sse' | 'streamable_http', url: string) =>
    McpServer.query(stack.db)
      .insert({
        id: newMcpServerId(),
        organizationId: other.organizationId,
        serverName: `stored-${serverType}-${Date.now()}`,
        serverType,
        serverUrl: url,
        command: null,
        args: [],
        envEnc: null,
        authHeader: null,
        authTokenEnc: null,
        customHeadersEnc: null,
        oauthTokensEnc: null,
        oauthClientInformationEnc: null,
        lastCheckedAt: null,
        lastCheckError: null,
        createdById: otherTenant.userId,
        lastUpdatedById: otherTenant.userId,
      })
      .returning('*');

  it('refuses to connect to a stored server at a loopback address: tool list, tool run and connect stream, over either transport, and nothing connects', async () => {
    const server = await storedServer('streamable_http', serverUrl());
    const listed = await call(other.key, 'GET', `/tools/mcp/servers/${server.serverName}/tools`);
    expect(listed).toMatchObject({ status: 400, body: { detail: expect.stringMatching(/cannot be reached from this server\. Refused to connect to 127\.0\.0\.1: it is a loopback address/) } });
    expect((await call(other.key, 'POST', `/tools/mcp/servers/${server.serverName}/tools/add/execute`, { args: { a: 1, b: 2 } })).status).toBe(400);
    const events = await connectEvents(other.key, 'GET', `/mcp-servers/connect/${server.id}`, undefined, () => false);
    expect(events).toEqual([
      { event: 'connection_attempt', server_name: server.serverName },
      { event: 'error', message: expect.stringMatching(/Refused to connect to 127\.0\.0\.1/) },
    ]);
    const overSse = await storedServer('sse', `${mcpRelay.url}/sse`);
    expect(await call(other.key, 'GET', `/tools/mcp/servers/${overSse.serverName}/tools`)).toMatchObject({ status: 400, body: { detail: expect.stringMatching(/Refused to connect to 127\.0\.0\.1/) } });
    expect(mcpRelay.connections).toBe(0);
  });

  it('connects, lists and runs tools for the organization the operator allowed loopback', async () => {
    const created = await call(first.key, 'POST', '/mcp-servers/', { server_name: `allowed-${Date.now()}`, config: { mcp_server_type: 'streamable_http', server_url: serverUrl() } });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const tools = await call(first.key, 'GET', `/mcp-servers/${created.body.id}/tools`);
    const add = tools.body.find((tool: { name: string }) => tool.name === 'add');
    expect(await call(first.key, 'POST', `/mcp-servers/${created.body.id}/tools/${add.id}/run`, { args: { a: 2, b: 40 } })).toMatchObject({ status: 200, body: { status: 'success', func_return: '42' } });
    expect(mcpRelay.connections).toBeGreaterThan(0);
  });
});

describe('MCP OAuth', () => {
  it('discovers the authorization server only through the egress policy: refused for an organization not allowed, and nothing is called', async () => {
    const policy = createEgressPolicy({ ...parseEgressConfig({}), firstOrganizationId: null, onRefused: () => undefined });
    const provider = createMcpOAuthProvider({ redirectUrl: 'https://engram.example/callback', stored: {}, save: async () => undefined });
    const refused = await beginMcpAuthorization(provider, `${oauthRelay.url}/mcp`, 'protected', policy.fetchFor({ organizationId: other.organizationId })).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(McpServerError);
    expect(refused).toMatchObject({ kind: 'refused', message: expect.stringMatching(/Refused to connect to 127\.0\.0\.1/) });
    expect(oauthRelay.connections).toBe(0);
  });

  it("runs discovery and client registration through the policy for the organization allowed loopback, up to the user's authorization", async () => {
    const events = await connectEvents(
      first.key,
      'POST',
      '/tools/mcp/servers/connect',
      // Not through the relay: the server names its own address as the protected resource, which must match.
      { server_name: 'protected', type: 'streamable_http', server_url: oauthMcp.url },
      (event) => event.event === 'authorization_url' || event.event === 'error',
    );
    expect(events.map((event) => event.event), JSON.stringify(events)).toEqual(['connection_attempt', 'oauth_required', 'authorization_url']);
    // The authorization server's own endpoint, learned through discovery, with the client id its registration issued.
    const authorizationUrl = new URL(events[2]!.url as string);
    expect(authorizationUrl.origin).toBe(new URL(oauthMcp.url).origin);
    expect(authorizationUrl.searchParams.get('client_id')).toBeTruthy();
  });
});

describe("an organization's own model provider", () => {
  const providerName = (prefix: string) => `${prefix}-${Date.now()}`;

  it('is refused at a loopback base_url when checked, created or updated, and nothing is called', async () => {
    expect(await call(other.key, 'POST', '/providers/check', { provider_type: 'openai', api_key: 'sk-house', base_url: byokUrl })).toMatchObject(refusedField(['body', 'base_url']));
    expect(await call(other.key, 'POST', '/providers/', { name: providerName('house'), provider_type: 'openai', api_key: 'sk-house', base_url: byokUrl })).toMatchObject(
      refusedField(['body', 'base_url']),
    );
    const hosted = await call(other.key, 'POST', '/providers/', { name: providerName('hosted'), provider_type: 'groq', api_key: 'gsk-house' });
    expect(hosted.status).toBe(200);
    expect(await call(other.key, 'PATCH', `/providers/${hosted.body.id}`, { base_url: byokUrl })).toMatchObject(refusedField(['body', 'base_url']));
    expect(byokRelay.connections).toBe(0);
  });

  it('is not called by a check or a message when it was stored with a loopback base_url', async () => {
    const name = providerName('stored');
    const provider = await Provider.query(stack.db)
      .insert({ id: newId('provider'), organizationId: other.organizationId, name, providerType: 'openai', providerCategory: 'byok', apiKeyEnc: null, accessKeyEnc: null, baseUrl: byokUrl, region: null, apiVersion: null })
      .returning('*');
    expect(await call(other.key, 'POST', `/providers/${provider.id}/check`)).toMatchObject({ status: 400, body: { detail: expect.stringMatching(/Refused to connect to 127\.0\.0\.1/) } });
    const agentId = await agentOf(other, `${name}/house-model`);
    const sent = await call(other.key, 'POST', `/agents/${agentId}/messages`, { messages: [{ role: 'user', content: 'hi' }] });
    expect(sent).toMatchObject({ status: 400, body: { detail: expect.stringMatching(/The model provider cannot be reached from this server\. Refused to connect to 127\.0\.0\.1/) } });
    expect(byokRelay.connections).toBe(0);
    expect(byokModel.requests).toHaveLength(0);
  });

  it('is checked, created and answers messages for the organization allowed loopback', async () => {
    expect(await call(first.key, 'POST', '/providers/check', { provider_type: 'openai', api_key: 'sk-house', base_url: byokUrl })).toMatchObject({ status: 200 });
    const name = providerName('house');
    expect((await call(first.key, 'POST', '/providers/', { name, provider_type: 'openai', api_key: 'sk-house', base_url: byokUrl })).status).toBe(200);
    const agentId = await agentOf(first, `${name}/house-model`);
    byokModel.enqueue({ type: 'text', text: 'from the house model' });
    const sent = await call(first.key, 'POST', `/agents/${agentId}/messages`, { messages: [{ role: 'user', content: 'hi' }] });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    expect(JSON.stringify(sent.body.messages)).toContain('from the house model');
    expect(byokRelay.connections).toBeGreaterThan(0);
  });
});
