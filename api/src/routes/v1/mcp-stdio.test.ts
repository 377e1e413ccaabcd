import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createSecretBox, McpServer, newMcpServerId } from '@engram/db';
import { createMcpStdioPolicy } from '@engram/integrations/mcp';
import { requestV1, startAgentTestContext } from '@engram/testing/agent-test-context';
import { FIXTURE_STDIO_COMMAND } from '@engram/testing/mcp-fixture/index';
import { loopbackEgress } from '@engram/testing/egress';
import { STDIO_READABLE_DIR } from '@engram/testing/mcp-stdio';
import { buildApp } from '../../app.js';
import { parseApiConfig } from '../../config.js';
import { createServices } from '../../services/index.js';
import { createMcpToolRegistry } from '../../services/mcp/mcp-tool-registry.js';
import { createNotificationHub, type NotificationHub } from '../../services/runs/notification-hub.js';

// As a self-hosted instance is configured by default: only the first-start organization (the stack's `tenant`) runs
// stdio servers. Its egress may reach ::1 (where an allowed listener is) but not 127.0.0.1.
const { stack, model, call, clientFor, stop } = await startAgentTestContext({
  apiEnv: { ENGRAM_MCP_STDIO: 'first-organization', ENGRAM_EGRESS_ALLOW: '::1', ENGRAM_EGRESS_ALLOW_FIRST_ORGANIZATION: 'none' },
});

afterAll(stop);

const OPERATOR_ONLY = /only available to the instance operator's organization \(ENGRAM_MCP_STDIO=first-organization\)/;

async function otherOrganization() {
  const created = await stack.createTenant();
  return { ...created, key: created.apiKey.key, client: clientFor(created.apiKey.key) };
}

/** A stdio server stored for the organization as if it had been added before stdio servers were restricted. */
async function storedStdioServer(organizationId: string, serverName: string) {
  return McpServer.query(stack.db).insertAndFetch({
    id: newMcpServerId(),
    organizationId,
    serverName,
    serverType: 'stdio',
    serverUrl: null,
    command: FIXTURE_STDIO_COMMAND.command,
    args: FIXTURE_STDIO_COMMAND.args,
    envEnc: null,
    authHeader: null,
    authTokenEnc: null,
    customHeadersEnc: null,
    oauthTokensEnc: null,
    oauthClientInformationEnc: null,
    lastCheckedAt: null,
    lastCheckError: null,
    createdById: null,
    lastUpdatedById: null,
  });
}

function commandRefusal(loc: string[], message: RegExp) {
  return { status: 422, body: { detail: [{ loc, msg: expect.stringMatching(message), type: 'value_error' }] } };
}

describe('stdio MCP servers of an organization other than the operator’s', () => {
  it('are refused with a 422 naming the command when added, tried out or connected, and nothing is stored', async () => {
    const other = await otherOrganization();
    const config = { mcp_server_type: 'stdio', ...FIXTURE_STDIO_COMMAND };
    expect(await call(other.key, 'POST', '/mcp-servers/', { server_name: 'local', config })).toMatchObject(commandRefusal(['body', 'config', 'command'], OPERATOR_ONLY));
    expect(await call(other.key, 'PUT', '/tools/mcp/servers', { server_name: 'local', ...FIXTURE_STDIO_COMMAND })).toMatchObject(commandRefusal(['body', 'command'], OPERATOR_ONLY));
    expect(await call(other.key, 'POST', '/tools/mcp/servers/test', { server_name: 'local', type: 'stdio', ...FIXTURE_STDIO_COMMAND })).toMatchObject(
      commandRefusal(['body', 'command'], OPERATOR_ONLY),
    );
    expect(await call(other.key, 'POST', '/tools/mcp/servers/connect', { server_name: 'local', type: 'stdio', ...FIXTURE_STDIO_COMMAND })).toMatchObject(
      commandRefusal(['body', 'command'], OPERATOR_ONLY),
    );
    expect(await call(other.key, 'GET', '/mcp-servers/')).toMatchObject({ status: 200, body: [] });
  });

  it('already stored are not started: listing and running their tools fail clearly, an agent gets a tool error, and changing the command is refused', async () => {
    const other = await otherOrganization();
    const server = await storedStdioServer(other.organizationId, 'legacy-local');

    const listed = await call(other.key, 'GET', '/tools/mcp/servers/legacy-local/tools');
    expect(listed.status).toBe(400);
    expect(listed.body.detail).toMatch(/MCP server 'legacy-local' cannot be started: stdio MCP servers/);
    expect(listed.body.detail).toMatch(OPERATOR_ONLY);
    const run = await call(other.key, 'POST', '/tools/mcp/servers/legacy-local/tools/add/execute', { args: { a: 1, b: 2 } });
    expect(run.status).toBe(400);
    expect(run.body.detail).toMatch(OPERATOR_ONLY);

    // Its tool, registered back when it ran, called in an agent's turn (run by the worker).
    const ctx = { organizationId: other.organizationId, userId: other.userId, role: 'admin' as const, requestId: 'test', project: {} };
    const add = await createMcpToolRegistry({ db: stack.db }).register(ctx, server, {
      name: 'add',
      inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
    });
    const agent = await other.client.agents.create({ model: 'openai/gpt-4o-mini', tool_ids: [add.id] } as Parameters<typeof other.client.agents.create>[0]);
    model.enqueue({ type: 'tool_calls', calls: [{ id: 'call_add', name: 'add', arguments: { a: 1, b: 2 } }] }, { type: 'text', text: 'Done.' });
    const turn = await other.client.agents.messages.create(agent.id, { messages: [{ role: 'user', content: 'add' }] });
    const toolReturn = turn.messages.find((message) => message.message_type === 'tool_return_message') as { status: string; tool_return: string };
    expect(toolReturn.status).toBe('error');
    expect(toolReturn.tool_return).toMatch(OPERATOR_ONLY);

    expect(await call(other.key, 'PATCH', `/mcp-servers/${server.id}`, { config: { mcp_server_type: 'stdio', command: '/bin/sh' } })).toMatchObject(
      commandRefusal(['body', 'config', 'command'], OPERATOR_ONLY),
    );
    expect(await call(other.key, 'PATCH', '/tools/mcp/servers/legacy-local', { stdio_config: { args: ['-c', 'id'] } })).toMatchObject(
      commandRefusal(['body', 'stdio_config', 'command'], OPERATOR_ONLY),
    );
    // Renaming it (or deleting it) changes nothing it runs.
    expect(await call(other.key, 'PATCH', `/mcp-servers/${server.id}`, { server_name: 'legacy-renamed' })).toMatchObject({ status: 200, body: { server_name: 'legacy-renamed' } });
    expect((await McpServer.query(stack.db).findById(server.id))?.command).toBe(FIXTURE_STDIO_COMMAND.command);
  });
});

describe('the operator’s organization', () => {
  it('adds a stdio server, which runs in the sandbox and serves its tools', async () => {
    const created = await call(stack.apiKey, 'POST', '/mcp-servers/', { server_name: 'operator-local', config: { mcp_server_type: 'stdio', ...FIXTURE_STDIO_COMMAND } });
    expect(created.status).toBe(200);
    const tools = await call(stack.apiKey, 'GET', `/mcp-servers/${created.body.id}/tools`);
    expect(tools.body.map((tool: { name: string }) => tool.name).sort()).toEqual(['add', 'crash', 'echo', 'slow']);
    const run = await call(stack.apiKey, 'POST', '/tools/mcp/servers/operator-local/tools/add/execute', { args: { a: 40, b: 2 } });
    expect(run).toMatchObject({ status: 200, body: { status: 'success', func_return: '42' } });
  });

  describe('stdio server sandbox', () => {
    const hostVariable = `ENGRAM_STDIO_TEST_${randomBytes(4).toString('hex').toUpperCase()}`;
    const secret = `secret-${randomBytes(8).toString('hex')}`;
    let secretInHome: string;
    let hostTmp: string;
    const listeners: Array<{ server: Server; port: number; hits: IncomingMessage[] }> = [];

    async function listen(host: string) {
      const hits: IncomingMessage[] = [];
      const server = createServer((request, response) => {
        hits.push(request);
        response.end('reached');
      });
      await new Promise<void>((resolve) => server.listen(0, host, resolve));
      const listener = { server, port: (server.address() as AddressInfo).port, hits };
      listeners.push(listener);
      return listener;
    }

    beforeAll(async () => {
      secretInHome = path.join(homedir(), `.engram-stdio-test-${randomBytes(4).toString('hex')}`);
      await writeFile(secretInHome, secret, { mode: 0o644 });
      hostTmp = await mkdtemp(path.join(tmpdir(), 'engram-stdio-test-'));
      await writeFile(path.join(hostTmp, 'secret'), secret, { mode: 0o644 });
      process.env[hostVariable] = secret;
    });

    afterAll(async () => {
      delete process.env[hostVariable];
      await rm(secretInHome, { force: true });
      await rm(hostTmp, { recursive: true, force: true });
      await Promise.all(listeners.map(({ server }) => new Promise((resolve) => server.close(resolve))));
    });

    /**
     * Looks around from inside the sandbox and reports on stderr before exiting, so the 502 of the try-out carries
     * the report (a server that dies at start is answered with the end of its stderr).
     */
    const PROBE = `
      const fs = require('node:fs'), net = require('node:net'), http = require('node:http');
      const [secretInHome, secretInTmp, repoFile, loopbackPort, allowedPort] = process.argv.slice(1);
      const report = { uid: process.getuid(), home: process.env.HOME, variables: Object.keys(process.env).sort() };
      const attempt = (name, work) => { try { report[name] = work(); } catch (error) { report[name] = error.code || error.message; } };
      attempt('secretInHome', () => fs.readFileSync(secretInHome, 'utf8'));
      attempt('secretInTmp', () => fs.readFileSync(secretInTmp, 'utf8'));
      attempt('rootDirectory', () => fs.readdirSync('/root'));
      attempt('repoWrite', () => (fs.writeFileSync(repoFile, 'x'), 'written'));
      const direct = () => new Promise((resolve) => {
        const socket = net.connect(Number(loopbackPort), '127.0.0.1');
        socket.on('connect', () => (socket.destroy(), resolve('connected')));
        socket.on('error', (error) => resolve(error.code));
      });
      const proxied = (url) => new Promise((resolve) => {
        const proxy = new URL(process.env.HTTP_PROXY);
        const request = http.request({ host: proxy.hostname, port: proxy.port, path: url }, (response) => (response.resume(), resolve(response.statusCode)));
        request.on('error', (error) => resolve(error.code));
        request.end();
      });
      (async () => {
        report.direct = await direct();
        report.proxiedLoopback = await proxied('http://127.0.0.1:' + loopbackPort + '/');
        report.proxiedAllowed = await proxied('http://[::1]:' + allowedPort + '/');
        console.error('PROBE ' + JSON.stringify(report));
        process.exit(3);
      })();
    `;

    it("cannot read the host's secrets, sees only its own environment, and reaches the network only as the egress policy allows", async () => {
      const loopback = await listen('127.0.0.1');
      const allowed = await listen('::1');
      const repoFile = path.join(STDIO_READABLE_DIR, `.engram-stdio-test-${randomBytes(4).toString('hex')}`);
      const tried = await call(stack.apiKey, 'POST', '/tools/mcp/servers/test', {
        server_name: 'probe',
        type: 'stdio',
        command: process.execPath,
        args: ['-e', PROBE, secretInHome, path.join(hostTmp, 'secret'), repoFile, String(loopback.port), String(allowed.port)],
        env: { PROBE_CONFIGURED: 'yes' },
      });
      expect(tried.status).toBe(502);
      const report = JSON.parse(/PROBE (\{.*\})/.exec(tried.body.detail)?.[1] ?? 'null');
      expect(report).toMatchObject({
        uid: 65534,
        secretInHome: expect.stringMatching(/^(ENOENT|EACCES)$/),
        secretInTmp: 'ENOENT',
        rootDirectory: expect.stringMatching(/^(ENOENT|EACCES)$/),
        repoWrite: 'EROFS',
        // Its own loopback has nothing listening; through the egress proxy, 127.0.0.1 is refused and ::1 allowed.
        direct: 'ECONNREFUSED',
        proxiedLoopback: 403,
        proxiedAllowed: 200,
      });
      expect(report.home).not.toBe(homedir());
      expect(report.variables).not.toContain(hostVariable);
      expect(report.variables).toContain('PROBE_CONFIGURED');
      const proxyVariables = ['ALL_PROXY', 'HTTPS_PROXY', 'HTTP_PROXY', 'NODE_USE_ENV_PROXY', 'NO_PROXY'].flatMap((name) => [name, name.toLowerCase()]);
      // PWD is bubblewrap's, naming the scratch home it starts in.
      expect(report.variables.filter((name: string) => !proxyVariables.includes(name)).sort()).toEqual(['HOME', 'LANG', 'PATH', 'PROBE_CONFIGURED', 'PWD']);
      expect(loopback.hits).toHaveLength(0);
      expect(allowed.hits).toHaveLength(1);
      expect(stack.egressRefusals).toContainEqual(expect.objectContaining({ organizationId: stack.tenant.organizationId, address: '127.0.0.1', reason: 'loopback' }));
    });
  });
});

describe('ENGRAM_MCP_STDIO=none', () => {
  let app: FastifyInstance;
  let baseUrl: string;
  let notifications: NotificationHub;

  beforeAll(async () => {
    // An API of its own over the same database, configured to refuse stdio servers to everybody.
    notifications = await createNotificationHub({ databaseUrl: inject('databaseUrl') });
    const config = parseApiConfig({ ENGRAM_MCP_STDIO: 'none' });
    const egress = loopbackEgress();
    const services = createServices({
      db: stack.db,
      temporal: stack.temporal,
      taskQueue: stack.taskQueue,
      secrets: createSecretBox(inject('secretKey')),
      baseProviders: [],
      egress,
      mcpStdio: createMcpStdioPolicy({ ...config.mcpStdio, firstOrganizationId: stack.tenant.organizationId, egress }),
      notifications,
    });
    app = await buildApp({ config: { ...config, port: 0, logLevel: 'silent' }, services, logger: false });
    baseUrl = await app.listen({ port: 0, host: '127.0.0.1' });
  });

  afterAll(async () => {
    await app?.close();
    await notifications?.close();
  });

  it("refuses stdio servers to every organization, the operator's included", async () => {
    const disabled = /disabled on this server \(ENGRAM_MCP_STDIO=none\)/;
    const config = { mcp_server_type: 'stdio', ...FIXTURE_STDIO_COMMAND };
    expect(await requestV1(baseUrl, stack.apiKey, 'POST', '/mcp-servers/', { server_name: 'refused', config })).toMatchObject(commandRefusal(['body', 'config', 'command'], disabled));
    const other = await otherOrganization();
    expect(await requestV1(baseUrl, other.key, 'POST', '/tools/mcp/servers/test', { server_name: 'refused', type: 'stdio', ...FIXTURE_STDIO_COMMAND })).toMatchObject(
      commandRefusal(['body', 'command'], disabled),
    );
    // The operator's server added while it was allowed is not started either.
    await call(stack.apiKey, 'POST', '/mcp-servers/', { server_name: 'operator-before', config });
    const listed = await requestV1(baseUrl, stack.apiKey, 'GET', '/tools/mcp/servers/operator-before/tools');
    expect(listed.status).toBe(400);
    expect(listed.body.detail).toMatch(disabled);
  });
});
