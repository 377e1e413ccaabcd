import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Letta, { toFile } from '@letta-ai/letta-client';
import { Agent, Block, Identity, Message, Passage, Tool } from '@engram/db';
import { crashTestProcesses, startTestStack, until, type TestStack } from '@engram/testing';
import { requestV1 } from '@engram/testing/agent-test-context';

/*
 * A whole organization moves from one Engram (the source, filled through the official client) into another
 * organization through `POST /v1/imports/letta`, with the target's worker SIGKILLed mid-history; then a second
 * run adds nothing and a dry run into a fresh organization writes nothing.
 */

const BIG_HISTORY = 2000;
const PASSAGES = 500;
const LLM_CONFIG = { model: 'gpt-4o-mini', model_endpoint_type: 'openai', context_window: 128000 } as const;

let source: TestStack;
let target: TestStack;
let sourceClient: Letta;
let proxy: GatedProxy;
const processes = crashTestProcesses(() => target.workerEnv);

/**
 * The source as the target sees it: a loopback pass-through that records every path asked for and, once armed,
 * holds every request for a later page of an agent's history (one with a cursor) until released.
 */
type GatedProxy = { url: string; paths: string[]; arm(): void; release(): void; held(): number; close(): Promise<void> };

async function startGatedProxy(upstream: string): Promise<GatedProxy> {
  const paths: string[] = [];
  let armed = false;
  let waiting: Array<() => void> = [];
  const forward = async (request: IncomingMessage, response: ServerResponse) => {
    paths.push(request.url ?? '');
    const isLaterHistoryPage = /\/messages\?.*after=/.test(request.url ?? '');
    if (armed && isLaterHistoryPage) await new Promise<void>((resolve) => waiting.push(resolve));
    const upstreamResponse = await fetch(`${upstream}${request.url}`, { headers: { authorization: request.headers.authorization ?? '' } });
    response.writeHead(upstreamResponse.status, { 'content-type': upstreamResponse.headers.get('content-type') ?? 'application/json' });
    response.end(Buffer.from(await upstreamResponse.arrayBuffer()));
  };
  const server: Server = createServer((request, response) => {
    forward(request, response).catch(() => response.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    paths,
    arm: () => {
      armed = true;
    },
    release: () => {
      armed = false;
      for (const resolve of waiting) resolve();
      waiting = [];
    },
    held: () => waiting.length,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function call(stack: TestStack, apiKey: string, method: string, path: string, body?: unknown) {
  const response = await requestV1(stack.baseUrl, apiKey, method, path, body);
  expect(response.status, JSON.stringify(response.body)).toBeLessThan(300);
  return response.body;
}

async function finished(apiKey: string, importId: string) {
  return until(
    async () => (await requestV1(target.baseUrl, apiKey, 'GET', `/imports/letta/${importId}`)).body,
    (run) => run.status !== 'running',
    { what: `import ${importId} to finish`, timeoutMs: 150_000, intervalMs: 250 },
  );
}

/** Every page of an agent's history as the official client lists it, with what differs by design (ids) left out. */
async function history(client: Letta, agentId: string) {
  const parts: Array<Record<string, unknown>> = [];
  for (let after: string | undefined; ; ) {
    const page = (await client.agents.messages.list(agentId, { order: 'asc', limit: 1000, use_assistant_message: false, ...(after ? { after } : {}) })).getPaginatedItems();
    if (page.length === 0) break;
    parts.push(...(page as unknown as Array<Record<string, unknown>>));
    after = (page[page.length - 1] as { id: string }).id;
  }
  return parts.map(({ id: _id, otid: _otid, run_id: _run, step_id: _step, ...rest }) => rest);
}

async function passagesOf(client: Letta, agentId: string) {
  const all: Array<{ id?: string; text: string; tags?: string[] | null; created_at?: string | null; embedding?: number[] | null }> = [];
  for (let after: string | undefined; ; ) {
    const page = await client.agents.passages.list(agentId, { ascending: true, limit: 1000, ...(after ? { after } : {}) });
    if (page.length === 0) break;
    all.push(...page);
    after = page[page.length - 1]!.id!;
  }
  return all.map((passage) => ({ text: passage.text, tags: passage.tags, created_at: passage.created_at, embedding: passage.embedding }));
}

async function rowCounts(organizationId: string) {
  return {
    agents: await Agent.query(target.db).where({ organizationId }).resultSize(),
    blocks: await Block.query(target.db).where({ organizationId }).resultSize(),
    tools: await Tool.query(target.db).where({ organizationId }).resultSize(),
    identities: await Identity.query(target.db).where({ organizationId }).resultSize(),
    messages: await Message.query(target.db).where({ organizationId }).resultSize(),
    passages: await Passage.query(target.db).where({ organizationId }).resultSize(),
  };
}

const WEATHER_TOOL = `
def weather(city: str) -> str:
    """Tells the weather.

    Args:
        city: Where.

    Returns:
        The weather.
    """
    return f"sunny in {city}"
`;

type SourceIds = { archivist: string; scout: string; scribe: string; shared: string; identity: string; group: string };
let ids: SourceIds;

/** Fills the source through the official client: three agents, one with a long history and many passages. */
async function fillSource(): Promise<SourceIds> {
  const shared = await sourceClient.blocks.create({ label: 'team', value: 'We ship on Fridays.', limit: 2000 });
  // The official client has no identities or groups: those go over plain HTTP.
  const identity = await call(source, source.apiKey, 'POST', '/identities/', { identifier_key: 'ada@example.com', name: 'Ada', identity_type: 'user' });
  const tool = await sourceClient.tools.create({ source_code: WEATHER_TOOL });
  const scout = await sourceClient.agents.create({
    name: 'scout',
    llm_config: LLM_CONFIG as never,
    include_base_tools: true,
    memory_blocks: [{ label: 'persona', value: 'I scout ahead.', limit: 1000 }],
    block_ids: [shared.id],
    tool_ids: [tool.id],
    tool_rules: [{ type: 'exit_loop', tool_name: 'weather' }] as never,
    tags: ['field'],
    identity_ids: [identity.id],
  });
  const scribe = await sourceClient.agents.create({
    name: 'scribe',
    llm_config: LLM_CONFIG as never,
    include_base_tools: false,
    memory_blocks: [{ label: 'persona', value: 'I write things down.', limit: 1000 }],
  });

  // The long history goes in through an agent file built from the scribe's export: one request, not 2,000 turns.
  const file = (await sourceClient.agents.exportFile(scribe.id)) as unknown as { agents: Array<Record<string, unknown>> };
  const start = Date.parse('2026-01-01T00:00:00Z');
  const messages = Array.from({ length: BIG_HISTORY }, (_, index) => {
    const created_at = new Date(start + index * 1000).toISOString();
    if (index % 100 === 1) {
      return { role: 'assistant', content: [{ type: 'text', text: `checking ${index}` }], tool_calls: [{ id: `call-${index}`, type: 'function', function: { name: 'weather', arguments: JSON.stringify({ city: `c${index}` }) } }], created_at };
    }
    if (index % 100 === 2) {
      return { role: 'tool', content: [{ type: 'text', text: `sunny in c${index - 1}` }], name: 'weather', tool_call_id: `call-${index - 1}`, tool_returns: [{ tool_call_id: `call-${index - 1}`, status: 'success', func_response: `sunny in c${index - 1}` }], created_at };
    }
    return { role: index % 2 === 0 ? 'user' : 'assistant', content: [{ type: 'text', text: `message ${index}` }], created_at };
  });
  Object.assign(file.agents[0]!, { name: 'archivist', messages, in_context_message_indices: Array.from({ length: 30 }, (_, index) => BIG_HISTORY - 30 + index) });
  const [archivistId] = (await sourceClient.agents.importFile({ file: await toFile(Buffer.from(JSON.stringify(file)), 'archivist.af', { type: 'application/json' }) })).agent_ids;
  await sourceClient.agents.blocks.attach(shared.id, { agent_id: archivistId! });

  // The agent's own archive comes with its first memory; the rest go in batches through the archive.
  await sourceClient.agents.passages.create(archivistId!, { text: 'memory 0', tags: ['tag0'] });
  const archive = (await sourceClient.archives.list({ agent_id: archivistId! })).getPaginatedItems()[0]!;
  for (let first = 1; first < PASSAGES; first += 100) {
    const batch = Array.from({ length: Math.min(100, PASSAGES - first) }, (_, offset) => ({
      text: `memory ${first + offset}`,
      tags: [`tag${(first + offset) % 7}`],
      created_at: new Date(start + (first + offset) * 60_000).toISOString(),
    }));
    await sourceClient.archives.passages.createMany(archive.id, { passages: batch });
  }

  const folder = await sourceClient.folders.create({ name: 'handbook', instructions: 'Cite the file.' });
  await sourceClient.folders.files.upload(folder.id, { file: await toFile(Buffer.from('# Holidays\nWe rest in August.'), 'holidays.md', { type: 'text/markdown' }) });
  await sourceClient.folders.files.upload(folder.id, { file: await toFile(Buffer.from('Expenses are filed monthly.'), 'expenses.txt', { type: 'text/plain' }) });
  await until(
    async () => (await sourceClient.folders.files.list(folder.id)).getPaginatedItems(),
    (files) => files.length === 2 && files.every((file) => file.processing_status === 'completed'),
    { what: 'the source folder files to be processed', timeoutMs: 60_000 },
  );
  await sourceClient.agents.folders.attach(folder.id, { agent_id: scribe.id });
  await sourceClient.conversations.create({ agent_id: scout.id, summary: 'trip planning', description: 'where to go next' });
  // An MCP server with a token, which must not come over; nothing listens there, so it is merely unreachable.
  await sourceClient.mcpServers.create({ server_name: 'search', config: { mcp_server_type: 'streamable_http', server_url: 'http://127.0.0.1:9/mcp', auth_header: 'Authorization', auth_token: 'Bearer mcp-secret' } as never });
  const group = await call(source, source.apiKey, 'POST', '/groups/', { agent_ids: [scout.id, scribe.id], description: 'field team', manager_config: { manager_type: 'round_robin', max_turns: 3 } });
  return { archivist: archivistId!, scout: scout.id, scribe: scribe.id, shared: shared.id, identity: identity.id, group: group.id };
}

beforeAll(async () => {
  source = await startTestStack();
  target = await startTestStack({ inProcessWorker: false });
  sourceClient = new Letta({ apiKey: source.apiKey, baseURL: source.baseUrl, maxRetries: 0 });
  proxy = await startGatedProxy(source.baseUrl);
  ids = await fillSource();
}, 240_000);

afterAll(async () => {
  proxy?.release();
  await processes.killAll();
  await proxy?.close();
  await target?.stop();
  await source?.stop();
});

describe('migrating an organization from a Letta-API server', () => {
  let importId: string;
  let targetClient: Letta;

  it('moves everything, item by item, though the worker is SIGKILLed mid-history', async () => {
    targetClient = new Letta({ apiKey: target.apiKey, baseURL: target.baseUrl, maxRetries: 0 });
    proxy.arm();
    const firstWorker = processes.worker();
    const started = await call(target, target.apiKey, 'POST', '/imports/letta', { sourceUrl: `${proxy.url}/v1`, apiKey: source.apiKey });
    importId = started.id;
    expect(started).toMatchObject({ status: 'running', dryRun: false, sourceUrl: proxy.url });
    expect(JSON.stringify(started)).not.toContain(source.apiKey);

    // The first history page is written; the worker is killed while the second is held at the source.
    await until(() => proxy.held(), { what: 'a history request held at the source', timeoutMs: 120_000 });
    const midway = (await requestV1(target.baseUrl, target.apiKey, 'GET', `/imports/letta/${importId}`)).body;
    expect(midway.progress.messages).toBeGreaterThan(0);
    await firstWorker.kill();
    proxy.release();
    processes.worker();
    const run = await finished(target.apiKey, importId);
    expect(run, JSON.stringify(run)).toMatchObject({ status: 'completed', phase: 'done', error: null });
    expect(run.progress).toMatchObject({ agentsTotal: 3, agentsDone: 3, agentsFailed: 0, messages: expect.any(Number), passages: PASSAGES });

    // The successor continued from the committed cursor instead of reading the history again from its start.
    const archivistHistoryStarts = proxy.paths.filter((path) => path.includes(`/agents/${ids.archivist}/messages?`) && !path.includes('after='));
    expect(archivistHistoryStarts).toHaveLength(1);

    const mapped = new Map<string, string>();
    for (const agent of (await targetClient.agents.list({ limit: 100 })).getPaginatedItems()) mapped.set(agent.name, agent.id);
    expect([...mapped.keys()].sort()).toEqual(['archivist', 'scout', 'scribe']);

    for (const [name, sourceId] of [['archivist', ids.archivist], ['scout', ids.scout], ['scribe', ids.scribe]] as const) {
      const include = ['agent.blocks', 'agent.tools', 'agent.tags', 'agent.identities'] as never;
      const before = await sourceClient.agents.retrieve(sourceId, { include });
      const after = await targetClient.agents.retrieve(mapped.get(name)!, { include });
      expect(after.system, name).toBe(before.system);
      expect(after.agent_type, name).toBe(before.agent_type);
      expect(after.llm_config.model, name).toBe(before.llm_config.model);
      expect(after.tags, name).toEqual(before.tags);
      expect(after.tool_rules, name).toEqual(before.tool_rules);
      const blockView = (blocks: typeof before.blocks) => blocks.map(({ label, value, limit, read_only, description }) => ({ label, value, limit, read_only, description }));
      expect(blockView(after.blocks), name).toEqual(blockView(before.blocks));
      expect(after.tools.map((tool) => tool.name).sort(), name).toEqual(before.tools.map((tool) => tool.name).sort());
      expect(after.identities?.map((identity) => identity.identifier_key), name).toEqual(before.identities?.map((identity) => identity.identifier_key));
      expect(after.message_ids?.length, name).toBe(before.message_ids?.length);
      expect(await history(targetClient, after.id), name).toEqual(await history(sourceClient, sourceId));
      expect(await passagesOf(targetClient, after.id), name).toEqual(await passagesOf(sourceClient, sourceId));
    }
    expect((await history(targetClient, mapped.get('archivist')!)).filter((part) => part.message_type === 'tool_call_message')).toHaveLength(BIG_HISTORY / 100);

    // The shared block is one block here too, attached to both agents.
    const sharedHolders = await targetClient.blocks.agents.list((await targetClient.blocks.list({ label: 'team' })).getPaginatedItems()[0]!.id);
    expect(sharedHolders.getPaginatedItems().map((agent) => agent.name).sort()).toEqual(['archivist', 'scout']);
    const customTool = (await targetClient.tools.list({ name: 'weather' })).getPaginatedItems()[0]!;
    expect(customTool.source_code).toBe((await sourceClient.tools.retrieve((await sourceClient.tools.list({ name: 'weather' })).getPaginatedItems()[0]!.id)).source_code);
    const [identity] = await call(target, target.apiKey, 'GET', '/identities/');
    expect(identity).toMatchObject({ identifier_key: 'ada@example.com', name: 'Ada', identity_type: 'user', agent_ids: [mapped.get('scout')] });
    const [group] = await call(target, target.apiKey, 'GET', '/groups/');
    expect(group).toMatchObject({ description: 'field team', manager_type: 'round_robin', max_turns: 3 });
    expect([...(group!.agent_ids ?? [])].sort()).toEqual([mapped.get('scout'), mapped.get('scribe')].sort());
    const conversations = (await targetClient.conversations.list({ agent_id: mapped.get('scout')! })) as unknown as Array<{ summary: string | null; description: string | null }>;
    expect(conversations.map(({ summary, description }) => ({ summary, description }))).toEqual([{ summary: 'trip planning', description: 'where to go next' }]);
    const [folder] = (await targetClient.folders.list()).getPaginatedItems();
    expect(folder).toMatchObject({ name: 'handbook', instructions: 'Cite the file.' });
    const fileView = (files: Array<{ file_name?: string | null; content?: string | null; processing_status?: string | null }>) =>
      files.map(({ file_name, content, processing_status }) => ({ file_name, content, processing_status })).sort((a, b) => String(a.file_name).localeCompare(String(b.file_name)));
    const sourceFolder = (await sourceClient.folders.list()).getPaginatedItems()[0]!;
    expect(fileView((await targetClient.folders.files.list(folder!.id, { include_content: true })).getPaginatedItems())).toEqual(
      fileView((await sourceClient.folders.files.list(sourceFolder.id, { include_content: true })).getPaginatedItems()),
    );
    const scribe = await targetClient.agents.retrieve(mapped.get('scribe')!, { include: ['agent.sources'] as never });
    expect(scribe.sources.map((attached) => attached.name)).toEqual(['handbook']);
    const [server] = await call(target, target.apiKey, 'GET', '/mcp-servers/');
    expect(server).toMatchObject({ server_name: 'search', mcp_server_type: 'streamable_http', server_url: 'http://127.0.0.1:9/mcp' });
    expect(JSON.stringify(server)).not.toContain('mcp-secret');
    expect(run.problems).toContainEqual(expect.objectContaining({ kind: 'mcp_server', name: 'search', reason: expect.stringContaining('without credentials') }));
  }, 300_000);

  it('adds nothing when run again over the same source', async () => {
    const before = await rowCounts(target.tenant.organizationId);
    const again = await call(target, target.apiKey, 'POST', '/imports/letta', { sourceUrl: proxy.url, apiKey: source.apiKey });
    const run = await finished(target.apiKey, again.id);
    expect(run).toMatchObject({ status: 'completed', progress: { agentsDone: 3, messages: 0, passages: 0, created: {} } });
    expect(await rowCounts(target.tenant.organizationId)).toEqual(before);
  }, 200_000);

  it('reports in a dry run what would move, and writes nothing', async () => {
    const fresh = await target.createTenant();
    const before = await rowCounts(fresh.organizationId);
    const dry = await call(target, fresh.apiKey.key, 'POST', '/imports/letta', { sourceUrl: proxy.url, apiKey: source.apiKey, dryRun: true });
    const run = await finished(fresh.apiKey.key, dry.id);
    expect(run).toMatchObject({ status: 'completed', dryRun: true, progress: { agentsTotal: 0, messages: 0, passages: 0, created: {} } });
    const planned = new Map(run.plan.agents.map((agent: { name: string; messages: number; passages: number }) => [agent.name, agent]));
    expect(planned.get('archivist')).toMatchObject({ messages: BIG_HISTORY, passages: PASSAGES });
    expect(run.plan).toMatchObject({ blocks: expect.any(Number), tools: 1, identities: 1, groups: 1, mcpServers: 1, conversations: 1, folders: 1, files: 2 });
    expect(await rowCounts(fresh.organizationId)).toEqual(before);
  }, 200_000);

  it("refuses a key the source does not take, and keeps each organization's runs to itself", async () => {
    const refused = await requestV1(target.baseUrl, target.apiKey, 'POST', '/imports/letta', { sourceUrl: proxy.url, apiKey: 'sk-wrong' });
    expect(refused.status).toBe(422);
    expect(refused.body.detail[0].loc).toEqual(['body', 'apiKey']);
    const other = await target.createTenant();
    expect((await requestV1(target.baseUrl, other.apiKey.key, 'GET', `/imports/letta/${importId}`)).status).toBe(404);
  });
});
