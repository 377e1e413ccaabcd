import { afterAll, afterEach, describe, expect, it } from 'vitest';
import Letta from '@letta-ai/letta-client';
import { McpOAuthSession, McpServer, Tool, newId } from '@engram/db';
import { readSse } from '@engram/testing';
import { startAgentTestContext } from '@engram/testing/agent-test-context';
import { FIXTURE_STDIO_COMMAND, startFixtureHttpServer, type FixtureHttpServer } from '@engram/testing/mcp-fixture/index';

const { stack, call, stop } = await startAgentTestContext({ inProcessWorker: false });
const fixtures: FixtureHttpServer[] = [];

afterEach(async () => {
  await Promise.all(fixtures.splice(0).map((fixture) => fixture.stop()));
});

afterAll(stop);

async function tenant() {
  const created = await stack.createTenant();
  return { apiKey: created.apiKey.key, organizationId: created.organizationId };
}

async function startFixture(options: Parameters<typeof startFixtureHttpServer>[0]) {
  const fixture = await startFixtureHttpServer(options);
  fixtures.push(fixture);
  return fixture;
}

/** Opens a connect stream; `next()` reads its events one at a time. */
async function connectStream(apiKey: string, method: 'GET' | 'POST', path: string, body?: unknown) {
  const response = await fetch(`${stack.baseUrl}/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const events = readSse(response);
  return async () => {
    const { value, done } = await events.next();
    return done ? undefined : (value.data as Record<string, any>);
  };
}

describe('MCP servers by name', () => {
  it('adds, lists, discovers tools with their health, registers and runs them, and deletes', async () => {
    const { apiKey } = await tenant();
    const added = await call(apiKey, 'PUT', '/tools/mcp/servers', { server_name: 'local', ...FIXTURE_STDIO_COMMAND });
    expect(added.status).toBe(200);
    expect(added.body).toEqual([{ server_name: 'local', type: 'stdio', command: FIXTURE_STDIO_COMMAND.command, args: FIXTURE_STDIO_COMMAND.args, env: null }]);
    expect((await call(apiKey, 'GET', '/tools/mcp/servers')).body).toEqual({ local: added.body[0] });
    expect((await call(apiKey, 'PUT', '/tools/mcp/servers', { server_name: 'local', ...FIXTURE_STDIO_COMMAND })).status).toBe(409);

    const live = await call(apiKey, 'GET', '/tools/mcp/servers/local/tools');
    expect(live.status).toBe(200);
    const echo = live.body.find((tool: { name: string }) => tool.name === 'echo');
    expect(echo).toMatchObject({
      name: 'echo',
      title: 'Echo',
      description: 'Returns the text it is given.',
      inputSchema: { type: 'object', properties: { text: { type: 'string', description: 'The text to return' } }, required: ['text'] },
      annotations: { readOnlyHint: true },
      health: { status: 'NON_STRICT_ONLY', reasons: ['inputSchema: additionalProperties is not false'] },
    });

    const registered = await call(apiKey, 'POST', '/tools/mcp/servers/local/echo');
    expect(registered.status).toBe(200);
    expect(registered.body).toMatchObject({ name: 'echo', tool_type: 'external_mcp', tags: ['mcp:local'], metadata_: { mcp: { server_name: 'local', tool_name: 'echo' } } });
    const unknown = await call(apiKey, 'POST', '/tools/mcp/servers/local/nope');
    expect(unknown.status).toBe(400);
    expect(unknown.body.detail).toBe('Tool nope not found in MCP server local - available tools: echo, add, slow, crash');

    expect((await call(apiKey, 'POST', '/tools/mcp/servers/local/tools/add/execute', { args: { a: 20, b: 22 } })).body).toMatchObject({ status: 'success', func_return: '42' });
    const rejected = await call(apiKey, 'POST', '/tools/mcp/servers/local/tools/add/execute', { args: { a: 'twenty' } });
    expect(rejected.status).toBe(200);
    expect(rejected.body.status).toBe('error');
    expect(rejected.body.func_return).toMatch(/Invalid arguments for tool add/);

    const removed = await call(apiKey, 'DELETE', '/tools/mcp/servers/local');
    expect(removed).toEqual({ status: 200, body: [] });
    expect((await call(apiKey, 'GET', `/tools/${registered.body.id}`)).status).toBe(404);
    expect((await call(apiKey, 'GET', '/tools/mcp/servers/local/tools')).status).toBe(404);
  });

  it('resyncs: drops tools the server no longer has, refreshes the rest, adds new ones to the given agent', async () => {
    const { apiKey, organizationId } = await tenant();
    await call(apiKey, 'PUT', '/tools/mcp/servers', { server_name: 'synced', ...FIXTURE_STDIO_COMMAND });
    const server = await McpServer.query(stack.db).forOrg(organizationId).findOne({ serverName: 'synced' });
    const tools = await Tool.query(stack.db).forOrg(organizationId).where('tool_type', 'external_mcp');
    expect(tools.map((tool) => tool.name).sort()).toEqual(['add', 'crash', 'echo', 'slow']);
    // A tool the server used to have, and one registered tool removed by hand.
    await Tool.query(stack.db).insert({
      id: newId('tool'),
      organizationId,
      name: 'retired',
      toolType: 'external_mcp',
      sourceType: 'python',
      jsonSchema: { name: 'retired', parameters: { type: 'object', properties: {} } },
      tags: ['mcp:synced'],
      metadata: { mcp: { server_id: server!.id, server_name: 'synced', tool_name: 'retired' } },
    });
    await call(apiKey, 'DELETE', `/tools/${tools.find((tool) => tool.name === 'slow')!.id}`);
    const agent = await call(apiKey, 'POST', '/agents/', { model: 'openai/gpt-4o-mini' });
    expect(agent.status).toBe(200);

    const resync = await call(apiKey, 'POST', `/tools/mcp/servers/synced/resync?agent_id=${agent.body.id}`);
    expect(resync.status).toBe(200);
    expect(resync.body).toEqual({ added: ['slow'], updated: ['echo', 'add', 'crash'], deleted: ['retired'], skipped: [] });
    const agentTools = await call(apiKey, 'GET', `/agents/${agent.body.id}/tools`);
    expect(agentTools.body.map((tool: { name: string }) => tool.name)).toContain('slow');
    expect((await call(apiKey, 'POST', `/tools/mcp/servers/synced/resync?agent_id=agent-00000000-0000-4000-8000-000000000000`)).status).toBe(404);
  });

  it('renames a server, carrying its tools along, and rejects settings of the other transport', async () => {
    const { apiKey, organizationId } = await tenant();
    await call(apiKey, 'PUT', '/tools/mcp/servers', { server_name: 'before', ...FIXTURE_STDIO_COMMAND });
    const renamed = await call(apiKey, 'PATCH', '/tools/mcp/servers/before', { server_name: 'after' });
    expect(renamed.body).toMatchObject({ server_name: 'after', type: 'stdio' });
    const tags = (await Tool.query(stack.db).forOrg(organizationId).where('tool_type', 'external_mcp')).map((tool) => tool.tags);
    expect(new Set(tags.flat())).toEqual(new Set(['mcp:after']));
    const misplaced = await call(apiKey, 'PATCH', '/tools/mcp/servers/after', { server_url: 'http://127.0.0.1:1/mcp' });
    expect(misplaced).toMatchObject({ status: 400, body: { detail: 'server_url cannot be set on a stdio server' } });
  });

  it('tests a configuration without adding it: its tools, or 502 when it cannot be reached', async () => {
    const { apiKey } = await tenant();
    const fixture = await startFixture({ transport: 'streamable_http' });
    const tested = await call(apiKey, 'POST', '/tools/mcp/servers/test', { server_name: 'trial', type: 'streamable_http', server_url: fixture.url });
    expect(tested.status).toBe(200);
    expect(tested.body.status).toBe('success');
    expect(tested.body.tools.map((tool: { name: string }) => tool.name)).toEqual(['echo', 'add', 'slow', 'crash']);
    expect((await call(apiKey, 'GET', '/tools/mcp/servers')).body).toEqual({});

    await fixture.kill();
    const down = await call(apiKey, 'POST', '/tools/mcp/servers/test', { server_name: 'trial', type: 'streamable_http', server_url: fixture.url });
    expect(down.status).toBe(502);
    expect(down.body.detail).toMatch(/MCP server 'trial' is unreachable: fetch failed \(ECONNREFUSED\)/);
    expect((await call(apiKey, 'POST', '/tools/mcp/servers/test', { server_name: 'trial', type: 'stdio' })).status).toBe(422);
  });
});

describe('connecting to an MCP server', () => {
  it('streams the attempt and the tools of a server that needs no authorization', async () => {
    const { apiKey } = await tenant();
    const fixture = await startFixture({ transport: 'sse' });
    const next = await connectStream(apiKey, 'POST', '/tools/mcp/servers/connect', { server_name: 'open', type: 'sse', server_url: fixture.url });
    expect(await next()).toEqual({ event: 'connection_attempt', server_name: 'open' });
    const success = await next();
    expect(success?.event).toBe('success');
    expect(success?.tools.map((tool: { name: string }) => tool.name)).toEqual(['echo', 'add', 'slow', 'crash']);
    expect(await next()).toBeUndefined();
  });

  it('runs the OAuth authorization-code flow through the callback, then the added server connects with the tokens', async () => {
    const { apiKey, organizationId } = await tenant();
    const fixture = await startFixture({ transport: 'streamable_http', oauth: true });
    const config = { server_name: 'protected', type: 'streamable_http', server_url: fixture.url };
    const next = await connectStream(apiKey, 'POST', '/tools/mcp/servers/connect', config);
    expect(await next()).toEqual({ event: 'connection_attempt', server_name: 'protected' });
    expect(await next()).toMatchObject({ event: 'oauth_required' });
    const authorization = await next();
    expect(authorization).toMatchObject({ event: 'authorization_url', session_id: expect.stringMatching(/^mcp-oauth-/) });
    expect(await next()).toMatchObject({ event: 'waiting_for_auth' });

    const session = await McpOAuthSession.query(stack.db).forOrg(organizationId).findById(authorization!.session_id);
    expect(session).toMatchObject({ status: 'pending', serverUrl: fixture.url, redirectUri: `${stack.baseUrl}/v1/tools/mcp/oauth/callback/${authorization!.session_id}` });
    const authorizeUrl = new URL(authorization!.url);
    expect(authorizeUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorizeUrl.searchParams.get('state')).toBe(session!.state);

    // The user approves; the authorization server sends the browser to our callback, which needs no API key.
    const approval = await fetch(authorizeUrl, { redirect: 'manual' });
    const callbackUrl = new URL(approval.headers.get('location')!);
    const forged = await fetch(`${callbackUrl.origin}${callbackUrl.pathname}?code=stolen&state=wrong`);
    expect(await forged.json()).toEqual({ status: 'error', message: 'Invalid state parameter' });
    const callback = await fetch(callbackUrl);
    expect(callback.status).toBe(200);
    expect(await callback.json()).toEqual({ status: 'success', message: 'Authorization successful', server_url: fixture.url });

    const success = await next();
    expect(success?.event).toBe('success');
    expect(success?.tools.map((tool: { name: string }) => tool.name)).toContain('add');
    const stored = await McpOAuthSession.query(stack.db).findById(authorization!.session_id);
    expect(stored?.status).toBe('authorized');
    expect(stored?.tokensEnc).not.toMatch(/access_token/);

    // Adding the server now picks up the session's tokens: its tools are registered and runnable.
    expect((await call(apiKey, 'PUT', '/tools/mcp/servers', config)).status).toBe(200);
    expect((await call(apiKey, 'POST', '/tools/mcp/servers/protected/tools/add/execute', { args: { a: 2, b: 3 } })).body).toMatchObject({ status: 'success', func_return: '5' });
    expect((await Tool.query(stack.db).forOrg(organizationId).where('tool_type', 'external_mcp')).length).toBe(4);
  });

  it('authorizes a stored server through GET /mcp-servers/connect/{id}, storing the tokens on it', async () => {
    const { apiKey, organizationId } = await tenant();
    const fixture = await startFixture({ transport: 'sse', oauth: true });
    const client = new Letta({ apiKey, baseURL: stack.baseUrl, maxRetries: 0 });
    const server = await client.mcpServers.create({ server_name: 'oauth-sse', config: { mcp_server_type: 'sse', server_url: fixture.url } });
    const denied = await call(apiKey, 'GET', '/tools/mcp/servers/oauth-sse/tools');
    expect(denied.status).toBe(502);
    expect(denied.body.detail).toMatch(/refused the credentials \(HTTP 401\); .*OAuth/);

    const next = await connectStream(apiKey, 'GET', `/mcp-servers/connect/${server.id}`);
    expect(await next()).toMatchObject({ event: 'connection_attempt' });
    expect(await next()).toMatchObject({ event: 'oauth_required' });
    const authorization = await next();
    await next();
    const approval = await fetch(authorization!.url, { redirect: 'manual' });
    expect(await (await fetch(approval.headers.get('location')!)).json()).toMatchObject({ status: 'success' });
    expect(await next()).toMatchObject({ event: 'success' });

    const row = await McpServer.query(stack.db).forOrg(organizationId).findById(server.id!);
    expect(row?.oauthTokensEnc).toBeTruthy();
    expect((await client.mcpServers.tools.list(server.id!)).map((tool) => tool.name).sort()).toEqual(['add', 'crash', 'echo', 'slow']);
  });

  it('answers the callback of an unknown or settled session with an error, not a 500', async () => {
    const unknown = await fetch(`${stack.baseUrl}/v1/tools/mcp/oauth/callback/mcp-oauth-00000000-0000-4000-8000-000000000000?code=x&state=y`);
    expect(unknown.status).toBe(200);
    expect(await unknown.json()).toEqual({ status: 'error', message: 'No pending OAuth session with this id' });
  });
});
