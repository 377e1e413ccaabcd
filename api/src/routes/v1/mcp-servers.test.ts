import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import type Letta from '@letta-ai/letta-client';
import type { FastifyInstance } from 'fastify';
import { createSecretBox, maskSecret, McpServer, Tool } from '@engram/db';
import { createMcpConnectionPool } from '@engram/integrations/mcp';
import { requestV1, startAgentTestContext, type ParsedResponse } from '@engram/testing/agent-test-context';
import { FIXTURE_STDIO_COMMAND, startFixtureHttpServer, type FixtureHttpServer } from '@engram/testing/mcp-fixture/index';
import { buildApp } from '../../app.js';
import { parseApiConfig } from '../../config.js';
import { createServices } from '../../services/index.js';
import { createNotificationHub, type NotificationHub } from '../../services/runs/notification-hub.js';
import { loopbackEgress } from '@engram/testing/egress';
import { sandboxedStdio } from '@engram/testing/mcp-stdio';

const { stack, model, clientFor, stop } = await startAgentTestContext();
const fixtures: FixtureHttpServer[] = [];

afterEach(async () => {
  model.reset();
  await Promise.all(fixtures.splice(0).map((fixture) => fixture.stop()));
});

afterAll(stop);

type Transport = 'stdio' | 'sse' | 'streamable_http';

const call = (apiKey: string, method: string, path: string, body?: unknown, baseUrl = stack.baseUrl): Promise<ParsedResponse> =>
  requestV1(baseUrl, apiKey, method, path, body);

/** A fresh organization: MCP tool names are unique per organization, so each test gets its own. */
async function tenant() {
  const created = await stack.createTenant();
  const apiKey = created.apiKey.key;
  return { apiKey, organizationId: created.organizationId, client: clientFor(apiKey) };
}

async function fixtureConfig(transport: Transport) {
  if (transport === 'stdio') return { mcp_server_type: 'stdio' as const, ...FIXTURE_STDIO_COMMAND };
  const fixture = await startFixtureHttpServer({ transport });
  fixtures.push(fixture);
  return { mcp_server_type: transport, server_url: fixture.url };
}

async function agentTurn(client: Letta, agentId: string, toolCall: { name: string; arguments: Record<string, unknown> }) {
  model.enqueue({ type: 'tool_calls', calls: [{ id: 'call_mcp', ...toolCall }] }, { type: 'text', text: 'Done.' });
  const response = await client.agents.messages.create(agentId, { messages: [{ role: 'user', content: 'use the tool' }] });
  const toolReturn = response.messages.find((message) => message.message_type === 'tool_return_message') as { status: string; tool_return: string };
  return { stopReason: response.stop_reason.stop_reason, toolReturn };
}

describe.each(['stdio', 'streamable_http', 'sse'] as const)('an MCP server over %s', (transport) => {
  it('is added with its tools registered, runs a tool directly, and serves an agent turn', async () => {
    const { client } = await tenant();
    const serverName = `fixture-${transport}`;
    const server = await client.mcpServers.create({ server_name: serverName, config: await fixtureConfig(transport) });
    expect(server).toMatchObject({ server_name: serverName, mcp_server_type: transport });
    expect(server.id).toMatch(/^mcp_server-[0-9a-f-]{36}$/);

    const tools = await client.mcpServers.tools.list(server.id!);
    expect(tools.map((tool) => tool.name).sort()).toEqual(['add', 'crash', 'echo', 'slow']);
    const add = tools.find((tool) => tool.name === 'add')!;
    expect(add).toMatchObject({ tool_type: 'external_mcp', tags: [`mcp:${serverName}`], description: 'Adds two numbers.' });
    expect(add.json_schema).toMatchObject({ name: 'add', parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] } });
    expect(add.json_schema?.['mcp:SCHEMA_STATUS']).toBe('NON_STRICT_ONLY');
    expect(await client.mcpServers.tools.retrieve(add.id!, { mcp_server_id: server.id! })).toMatchObject({ id: add.id, name: 'add' });

    expect(await client.mcpServers.tools.run(add.id!, { mcp_server_id: server.id!, args: { a: 2, b: 40 } })).toMatchObject({ status: 'success', func_return: '42' });

    const agent = await client.agents.create({ model: 'openai/gpt-4o-mini' });
    await client.agents.tools.attach(add.id!, { agent_id: agent.id });
    const turn = await agentTurn(client, agent.id, { name: 'add', arguments: { a: 19, b: 23 } });
    expect(turn.toolReturn).toMatchObject({ status: 'success', tool_return: '42' });
    expect(model.requests[0]?.tools?.find((tool) => tool.function.name === 'add')?.function.parameters).toMatchObject({ properties: { a: { type: 'number' } } });
    expect(model.requests[1]?.messages.find((message) => message.role === 'tool')?.content).toBe('42');
  });
});

describe.each(['streamable_http', 'sse'] as const)('an MCP server over %s that dies', (transport) => {
  it('answers 502 while it is down, reports its tools unreachable, fails the agent call without failing the run, and recovers on the same port', async () => {
    const { client, apiKey } = await tenant();
    const fixture = await startFixtureHttpServer({ transport });
    fixtures.push(fixture);
    const server = await client.mcpServers.create({ server_name: 'flaky', config: { mcp_server_type: transport, server_url: fixture.url } });
    const add = (await client.mcpServers.tools.list(server.id!)).find((tool) => tool.name === 'add')!;
    const agent = await client.agents.create({ model: 'openai/gpt-4o-mini', tool_ids: [add.id!] } as Parameters<typeof client.agents.create>[0]);
    expect((await agentTurn(client, agent.id, { name: 'add', arguments: { a: 1, b: 1 } })).toolReturn.tool_return).toBe('2');

    await fixture.kill();
    const started = Date.now();
    const run = await call(apiKey, 'POST', `/mcp-servers/${server.id}/tools/${add.id}/run`, { args: { a: 1, b: 2 } });
    expect(run.status).toBe(502);
    expect(run.body.detail).toMatch(/MCP server 'flaky' .*(unreachable|closed)/);
    expect(Date.now() - started).toBeLessThan(5_000);

    const live = await call(apiKey, 'GET', '/tools/mcp/servers/flaky/tools');
    expect(live.status).toBe(502);
    const checked = await client.mcpServers.tools.retrieve(add.id!, { mcp_server_id: server.id! });
    expect(checked.json_schema).toMatchObject({ 'mcp:SCHEMA_STATUS': 'UNREACHABLE', 'mcp:SCHEMA_WARNINGS': [expect.stringMatching(/unreachable/)] });

    const failedTurn = await agentTurn(client, agent.id, { name: 'add', arguments: { a: 2, b: 2 } });
    expect(failedTurn.stopReason).toBe('end_turn');
    expect(failedTurn.toolReturn.status).toBe('error');
    expect(failedTurn.toolReturn.tool_return).toMatch(/^Error executing function add: MCP server 'flaky' .*(unreachable|closed)/);

    await fixture.restart();
    expect(await client.mcpServers.tools.run(add.id!, { mcp_server_id: server.id!, args: { a: 3, b: 4 } })).toMatchObject({ status: 'success', func_return: '7' });
    expect((await call(apiKey, 'GET', '/tools/mcp/servers/flaky/tools')).status).toBe(200);
    expect((await client.mcpServers.tools.retrieve(add.id!, { mcp_server_id: server.id! })).json_schema?.['mcp:SCHEMA_STATUS']).toBe('NON_STRICT_ONLY');
    expect((await agentTurn(client, agent.id, { name: 'add', arguments: { a: 5, b: 5 } })).toolReturn).toMatchObject({ status: 'success', tool_return: '10' });
  });
});

describe('a stdio MCP server that crashes', () => {
  it('is started again on the next use, by the API and by the worker', async () => {
    const { client } = await tenant();
    const server = await client.mcpServers.create({ server_name: 'crashy', config: { mcp_server_type: 'stdio', ...FIXTURE_STDIO_COMMAND } });
    const tools = await client.mcpServers.tools.list(server.id!);
    const byName = (name: string) => tools.find((tool) => tool.name === name)!;
    const agent = await client.agents.create({ model: 'openai/gpt-4o-mini', tool_ids: [byName('add').id!, byName('crash').id!] } as Parameters<typeof client.agents.create>[0]);

    await expect(client.mcpServers.tools.run(byName('crash').id!, { mcp_server_id: server.id! })).rejects.toMatchObject({ status: 502 });
    expect(await client.mcpServers.tools.run(byName('add').id!, { mcp_server_id: server.id!, args: { a: 1, b: 2 } })).toMatchObject({ func_return: '3' });

    const crashed = await agentTurn(client, agent.id, { name: 'crash', arguments: {} });
    expect(crashed.toolReturn.status).toBe('error');
    expect((await agentTurn(client, agent.id, { name: 'add', arguments: { a: 2, b: 2 } })).toolReturn).toMatchObject({ status: 'success', tool_return: '4' });
  });

  it('answers 502 with what the process printed when it cannot start', async () => {
    const { apiKey } = await tenant();
    const broken = { server_name: 'broken', config: { mcp_server_type: 'stdio', command: process.execPath, args: ['-e', 'console.error("FIXTURE_TOKEN is not set"); process.exit(2)'] } };
    expect((await call(apiKey, 'POST', '/mcp-servers/', broken)).status).toBe(200);
    const live = await call(apiKey, 'GET', '/tools/mcp/servers/broken/tools');
    expect(live.status).toBe(502);
    expect(live.body.detail).toContain('FIXTURE_TOKEN is not set');
  });
});

describe('MCP timeouts', () => {
  let quickApp: FastifyInstance;
  let quickUrl: string;
  let notifications: NotificationHub;

  beforeAll(async () => {
    // An API of its own whose MCP connections give up after half a second.
    notifications = await createNotificationHub({ databaseUrl: inject('databaseUrl') });
    const services = createServices({
      db: stack.db,
      temporal: stack.temporal,
      taskQueue: stack.taskQueue,
      secrets: createSecretBox(randomBytes(32).toString('base64')),
      baseProviders: [],
      egress: loopbackEgress(),
      mcpStdio: sandboxedStdio(loopbackEgress()),
      notifications,
      mcpConnections: createMcpConnectionPool({ timeouts: { connectMs: 5_000, listToolsMs: 5_000, callToolMs: 500 } }),
    });
    quickApp = await buildApp({
      config: { ...parseApiConfig({}), port: 0, logLevel: 'silent' },
      services,
      logger: false,
    });
    quickUrl = await quickApp.listen({ port: 0, host: '127.0.0.1' });
  });

  afterAll(async () => {
    await quickApp?.close();
    await notifications?.close();
  });

  it('answers 408 for a tool that does not answer in time, and the next call works', async () => {
    const { apiKey } = await tenant();
    const created = await call(apiKey, 'PUT', '/tools/mcp/servers', { server_name: 'sluggish', ...FIXTURE_STDIO_COMMAND }, quickUrl);
    expect(created.status).toBe(200);
    const started = Date.now();
    const slow = await call(apiKey, 'POST', '/tools/mcp/servers/sluggish/tools/slow/execute', { args: { ms: 10_000 } }, quickUrl);
    expect(slow.status).toBe(408);
    expect(slow.body.detail).toMatch(/MCP server 'sluggish' did not answer in time/);
    expect(Date.now() - started).toBeLessThan(5_000);
    const quick = await call(apiKey, 'POST', '/tools/mcp/servers/sluggish/tools/add/execute', { args: { a: 1, b: 1 } }, quickUrl);
    expect(quick).toMatchObject({ status: 200, body: { status: 'success', func_return: '2' } });
  });
});

describe('MCP server credentials', () => {
  it('are stored sealed, shown masked, kept when sent back masked, and used to connect', async () => {
    const { client, apiKey } = await tenant();
    const apiSecret = `sk-${randomBytes(12).toString('hex')}`;
    const token = `tok-${randomBytes(12).toString('hex')}`;
    const fixture = await startFixtureHttpServer({ transport: 'streamable_http', requireHeader: { name: 'X-Api-Key', value: apiSecret } });
    fixtures.push(fixture);
    const server = await client.mcpServers.create({
      server_name: 'guarded',
      config: { mcp_server_type: 'streamable_http', server_url: fixture.url, auth_header: 'X-Session', auth_token: token, custom_headers: { 'X-Api-Key': apiSecret } },
    });
    expect(server).toMatchObject({ auth_header: 'X-Session', auth_token: maskSecret(token), custom_headers: { 'X-Api-Key': maskSecret(apiSecret) } });
    expect(JSON.stringify(await client.mcpServers.list())).not.toContain(apiSecret);

    const row = await stack.db('mcp_servers').where({ id: server.id }).first();
    expect(JSON.stringify(row)).not.toContain(apiSecret);
    expect(JSON.stringify(row)).not.toContain(token);
    expect((await client.mcpServers.tools.list(server.id!)).length).toBe(4);

    // Sent back as shown: the secret is kept, and the server still lets us in.
    const renamed = await client.mcpServers.update(server.id!, {
      server_name: 'guarded-renamed',
      config: { mcp_server_type: 'streamable_http', server_url: fixture.url, custom_headers: { 'X-Api-Key': maskSecret(apiSecret) } },
    });
    expect(renamed.server_name).toBe('guarded-renamed');
    expect(await client.mcpServers.refresh(server.id!)).toMatchObject({ added: [], deleted: [], updated: expect.arrayContaining(['add']) });
    expect((await client.mcpServers.tools.list(server.id!)).every((tool) => tool.tags?.[0] === 'mcp:guarded-renamed')).toBe(true);

    await client.mcpServers.update(server.id!, { config: { mcp_server_type: 'streamable_http', server_url: fixture.url, custom_headers: { 'X-Api-Key': 'wrong' } } });
    const refused = await call(apiKey, 'PATCH', `/mcp-servers/${server.id}/refresh`);
    expect(refused.status).toBe(502);
    expect(refused.body.detail).toMatch(/refused the credentials \(HTTP 401\)/);
  });

  it('passes a stdio server its environment, which is stored sealed and shown masked', async () => {
    const { client } = await tenant();
    const prefix = `secret-prefix-${randomBytes(6).toString('hex')}:`;
    const server = await client.mcpServers.create({ server_name: 'env', config: { mcp_server_type: 'stdio', ...FIXTURE_STDIO_COMMAND, env: { ECHO_PREFIX: prefix } } });
    expect(server).toMatchObject({ env: { ECHO_PREFIX: maskSecret(prefix) } });
    const row = await McpServer.query(stack.db).findById(server.id!);
    expect(row?.envEnc).not.toContain(prefix);
    const echo = (await client.mcpServers.tools.list(server.id!)).find((tool) => tool.name === 'echo')!;
    expect(await client.mcpServers.tools.run(echo.id!, { mcp_server_id: server.id!, args: { text: 'hi' } })).toMatchObject({ func_return: `${prefix}hi` });
  });
});

describe('MCP servers of another organization', () => {
  it('are not found, nor their tools, by any route of either family', async () => {
    const owner = await tenant();
    const other = await tenant();
    const server = await owner.client.mcpServers.create({ server_name: 'private-server', config: { mcp_server_type: 'stdio', ...FIXTURE_STDIO_COMMAND } });
    const add = (await owner.client.mcpServers.tools.list(server.id!)).find((tool) => tool.name === 'add')!;
    const otherAgent = await other.client.agents.create({ model: 'openai/gpt-4o-mini' });

    const attempts: Array<[string, string, unknown?]> = [
      ['GET', `/mcp-servers/${server.id}`],
      ['PATCH', `/mcp-servers/${server.id}`, { server_name: 'stolen' }],
      ['DELETE', `/mcp-servers/${server.id}`],
      ['GET', `/mcp-servers/${server.id}/tools`],
      ['GET', `/mcp-servers/${server.id}/tools/${add.id}`],
      ['POST', `/mcp-servers/${server.id}/tools/${add.id}/run`, { args: { a: 1, b: 1 } }],
      ['PATCH', `/mcp-servers/${server.id}/refresh`],
      ['GET', `/mcp-servers/connect/${server.id}`],
      ['GET', '/tools/mcp/servers/private-server/tools'],
      ['PATCH', '/tools/mcp/servers/private-server', { server_name: 'stolen' }],
      ['DELETE', '/tools/mcp/servers/private-server'],
      ['POST', '/tools/mcp/servers/private-server/resync'],
      ['POST', '/tools/mcp/servers/private-server/add'],
      ['POST', '/tools/mcp/servers/private-server/tools/add/execute', { args: { a: 1, b: 1 } }],
      ['PATCH', `/agents/${otherAgent.id}/tools/attach/${add.id}`],
    ];
    for (const [method, path, body] of attempts) {
      expect((await call(other.apiKey, method, path, body)).status, `${method} ${path}`).toBe(404);
    }
    expect(await other.client.mcpServers.list()).toEqual([]);
    expect((await call(other.apiKey, 'GET', '/tools/mcp/servers')).body).toEqual({});
    expect((await owner.client.mcpServers.retrieve(server.id!)).server_name).toBe('private-server');
  });
});

describe('deleting an MCP server', () => {
  it('answers 204 and removes its tools from every agent', async () => {
    const { client, apiKey, organizationId } = await tenant();
    const server = await client.mcpServers.create({ server_name: 'doomed', config: { mcp_server_type: 'stdio', ...FIXTURE_STDIO_COMMAND } });
    const add = (await client.mcpServers.tools.list(server.id!)).find((tool) => tool.name === 'add')!;
    const agent = await client.agents.create({ model: 'openai/gpt-4o-mini', tool_ids: [add.id!] } as Parameters<typeof client.agents.create>[0]);
    const toolNames = async () => {
      const names: string[] = [];
      for await (const tool of client.agents.tools.list(agent.id)) names.push(tool.name!);
      return names;
    };
    expect(await toolNames()).toContain('add');

    const deleted = await fetch(`${stack.baseUrl}/v1/mcp-servers/${server.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${apiKey}` } });
    expect(deleted.status).toBe(204);
    expect(await deleted.text()).toBe('');
    expect(await toolNames()).not.toContain('add');
    expect(await Tool.query(stack.db).forOrg(organizationId).where('tool_type', 'external_mcp').resultSize()).toBe(0);
    await expect(client.mcpServers.retrieve(server.id!)).rejects.toMatchObject({ status: 404 });
  });
});
