import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { toFile } from '@letta-ai/letta-client';
import type Letta from '@letta-ai/letta-client';
import { Agent, AgentBlock, Block, Identity, IdentityAgent, McpServer, Message, Tool, maskSecret } from '@engram/db';
import { until, type ChatMessage } from '@engram/testing';
import { startAgentTestContext } from '@engram/testing/agent-test-context';
import type { ExportedAgentFile as AgentFile } from '../../../services/agent-files/agent-file-service.js';

const { stack, model, client, clientFor, call, stop } = await startAgentTestContext();
afterEach(() => model.reset());
afterAll(stop);

/** The llm_config of a real agent of this stack, for hand-written files that must run. */
const llmConfig = (await client.agents.create({ model: 'openai/gpt-4o-mini' })).llm_config as unknown as Record<string, unknown>;

const LOOKUP_FACT = `
def lookup_fact(topic: str) -> str:
    """Look up a fact about a topic.

    Args:
        topic: What to look up.

    Returns:
        The fact.
    """
    return f"{topic} are fascinating"
`;

const OLD_LOOKUP_FACT = `
def lookup_fact(topic: str) -> str:
    """Look up a fact, the old way.

    Args:
        topic: What to look up.
    """
    return "old answer"
`;

const READ_TOKEN = `
import os

def read_token() -> str:
    """Returns the library token the tool was given."""
    return os.environ.get("LIBRARY_TOKEN", "missing")
`;

/** `exportFile` is typed as a string, but the server answers JSON, which the client parses. */
async function exportWith(letta: Letta, agentId: string, query: Parameters<Letta['agents']['exportFile']>[1] = {}): Promise<AgentFile> {
  return (await letta.agents.exportFile(agentId, query)) as unknown as AgentFile;
}

async function importWith(letta: Letta, document: unknown, params: Omit<Parameters<Letta['agents']['importFile']>[0], 'file'> = {}) {
  const file = await toFile(Buffer.from(JSON.stringify(document)), 'agent.af', { type: 'application/json' });
  return letta.agents.importFile({ file, ...params });
}

/** A browser-style upload: FormData through plain fetch, with the file as a Blob part. */
function importRaw(apiKey: string, content: string | undefined, fields: Record<string, string> = {}) {
  const form = new FormData();
  if (content !== undefined) form.append('file', new Blob([content], { type: 'application/json' }), 'agent.af');
  for (const [key, value] of Object.entries(fields)) form.append(key, value);
  return fetch(`${stack.baseUrl}/v1/agents/import`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}` }, body: form });
}

/** Database ids differ between organizations by design; anything else that differs is a round-trip bug. */
function withoutDatabaseIds(document: AgentFile): unknown {
  const { created_at: _exportedAt, ...rest } = document;
  return JSON.parse(JSON.stringify(rest).replace(/\b(agent|block|tool|message|user|org|project)-[0-9a-f]{8}-[0-9a-f-]{27}\b/g, '$1-<id>'));
}

async function rowCounts(organizationId: string) {
  return {
    agents: await Agent.query(stack.db).where({ organizationId }).resultSize(),
    blocks: await Block.query(stack.db).where({ organizationId }).resultSize(),
    tools: await Tool.query(stack.db).where({ organizationId }).resultSize(),
    messages: await Message.query(stack.db).where({ organizationId }).resultSize(),
  };
}

function chatText(message: ChatMessage): string {
  return typeof message.content === 'string' ? message.content : textOf(message.content ?? []);
}

function textOf(content: unknown): string {
  return (content as Array<{ type: string; text?: string }>).map((part) => part.text ?? '').join('');
}

/** A one-agent file written by hand, as a user would, with optional parts. */
function handWrittenFile(overrides: { agent?: Record<string, unknown>; blocks?: unknown[]; tools?: unknown[] } = {}) {
  return {
    agents: [{ id: 'agent-0', name: 'hand-written', llm_config: llmConfig, block_ids: [], tool_ids: [], ...overrides.agent }],
    blocks: overrides.blocks ?? [],
    tools: overrides.tools ?? [],
  };
}

describe('export → import into another organization → export', () => {
  let sourceAgentId: string;
  let exported: AgentFile;

  beforeAll(async () => {
    const tool = await client.tools.create({ source_code: LOOKUP_FACT });
    const agent = await client.agents.create({
      model: 'openai/gpt-4o-mini',
      name: 'librarian',
      description: 'Answers questions about books',
      tags: ['books', 'export-test'],
      metadata: { shelf: 3 },
      timezone: 'Europe/Paris',
      memory_blocks: [
        { label: 'persona', value: 'I am a careful librarian.' },
        { label: 'human', value: 'The reader is named Ada.', limit: 5000 },
      ],
      tool_ids: [tool.id],
      tool_rules: [{ type: 'max_count_per_step', tool_name: 'lookup_fact', max_count_limit: 2 }],
      secrets: { LIBRARY_TOKEN: 'tok-very-secret-1234' },
    } as Parameters<typeof client.agents.create>[0]);
    sourceAgentId = agent.id;
    model.enqueue(
      { type: 'tool_calls', calls: [{ id: 'call_owls', name: 'lookup_fact', arguments: { topic: 'owls' } }] },
      { type: 'text', text: 'Owls are fascinating.' },
    );
    await client.agents.messages.create(agent.id, { messages: [{ role: 'user', content: 'Tell me about owls' }] });
    exported = await exportWith(client, agent.id);
  });

  it('exports the agent with file-local ids, its blocks, tools and history, and no secret values or database ids', async () => {
    const [agent] = exported.agents;
    expect(exported.agents).toHaveLength(1);
    expect(agent).toMatchObject({
      id: 'agent-0',
      name: 'librarian',
      description: 'Answers questions about books',
      tags: ['books', 'export-test'],
      metadata: { shelf: 3 },
      timezone: 'Europe/Paris',
      tool_rules: [{ type: 'max_count_per_step', tool_name: 'lookup_fact', max_count_limit: 2 }],
      block_ids: ['block-0', 'block-1'],
      tool_exec_environment_variables: { LIBRARY_TOKEN: '' },
    });
    expect(exported.blocks.map(({ id, label, value, limit }) => ({ id, label, value, limit }))).toEqual([
      { id: 'block-0', label: 'persona', value: 'I am a careful librarian.', limit: expect.any(Number) },
      { id: 'block-1', label: 'human', value: 'The reader is named Ada.', limit: 5000 },
    ]);
    expect(agent!.tool_ids).toEqual(exported.tools.map((_, index) => `tool-${index}`));
    const lookup = exported.tools.find((tool) => tool.name === 'lookup_fact');
    expect(lookup).toMatchObject({ tool_type: 'custom', source_type: 'python', source_code: LOOKUP_FACT });
    expect(exported.tools.filter((tool) => tool.tool_type !== 'custom').every((tool) => tool.source_code === null)).toBe(true);

    // The history in order, without the compiled system prompt; all of it is in context.
    expect(agent!.messages.some((message) => message.role === 'system')).toBe(false);
    expect(textOf(agent!.messages[0]!.content)).toContain('Tell me about owls');
    const toolReturn = agent!.messages.find((message) => message.role === 'tool');
    expect(toolReturn?.tool_returns?.[0]).toMatchObject({ tool_call_id: 'call_owls', status: 'success', func_response: expect.stringContaining('owls are fascinating') });
    expect(agent!.messages.map((message) => message.id)).toEqual(agent!.messages.map((_, index) => `message-${index}`));
    expect(agent!.in_context_message_ids).toEqual(agent!.messages.map((message) => message.id));

    const text = JSON.stringify(exported);
    expect(text).not.toContain('tok-very-secret-1234');
    expect(text).not.toMatch(/\b(agent|block|tool|message|user|org|project)-[0-9a-f]{8}-/);
    expect(exported).toMatchObject({ groups: [], files: [], sources: [], mcp_servers: [], metadata: { revision_id: expect.any(String), engram_version: expect.any(String) } });
  });

  it('is served as indented JSON', async () => {
    const response = await fetch(`${stack.baseUrl}/v1/agents/${sourceAgentId}/export`, { headers: { authorization: `Bearer ${stack.apiKey}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.text()).toMatch(/^\{\n {2}"agents": \[/);
  });

  it('imports into another organization and exports again to the same document, ids aside', async () => {
    const other = await stack.createTenant();
    const otherClient = clientFor(other.apiKey.key);
    const imported = await importWith(otherClient, exported);
    expect(imported.agent_ids).toHaveLength(1);
    const importedId = imported.agent_ids[0]!;
    expect(importedId).not.toBe(sourceAgentId);

    const reExported = await exportWith(otherClient, importedId);
    expect(withoutDatabaseIds(reExported)).toEqual(withoutDatabaseIds(exported));

    // New rows of the other organization, not links to the source's.
    const agent = await otherClient.agents.retrieve(importedId, { include: ['agent.tools', 'agent.blocks'] });
    const sourceTool = await Tool.query(stack.db).findOne({ organizationId: stack.tenant.organizationId, name: 'lookup_fact' });
    const importedTool = agent.tools.find((tool) => tool.name === 'lookup_fact');
    expect(importedTool?.id).toBeDefined();
    expect(importedTool?.id).not.toBe(sourceTool!.id);
    expect(await Tool.query(stack.db).findById(importedTool!.id!)).toMatchObject({ organizationId: other.organizationId });
    expect((await Agent.query(stack.db).findById(importedId))?.projectId).toBe(other.projectId);
  });

  it('gives an agent that runs: its memory, tools and history reach the model', async () => {
    const other = await stack.createTenant();
    const otherClient = clientFor(other.apiKey.key);
    const [importedId] = (await importWith(otherClient, exported)).agent_ids;

    model.enqueue(
      { type: 'tool_calls', calls: [{ id: 'call_bats', name: 'lookup_fact', arguments: { topic: 'bats' } }] },
      { type: 'text', text: 'Bats are fascinating too.' },
    );
    const response = await otherClient.agents.messages.create(importedId!, { messages: [{ role: 'user', content: 'And bats?' }] });
    expect(response.messages.map((message) => message.message_type)).toEqual(['tool_call_message', 'tool_return_message', 'assistant_message']);
    expect(response.messages[1]).toMatchObject({ status: 'success', tool_return: 'bats are fascinating' });

    const [request] = model.requests;
    const systemPrompt = chatText(request!.messages[0]!);
    expect(systemPrompt).toContain('I am a careful librarian.');
    expect(systemPrompt).toContain(`Agent ID: ${importedId}`);
    const history = JSON.stringify(request!.messages.slice(1));
    expect(history).toContain('Tell me about owls');
    expect(history).toContain('Owls are fascinating.');
    expect(request!.tools?.map((tool) => tool.function.name)).toContain('lookup_fact');
  });

  it('leaves the history out with scrub_messages on export and strip_messages on import', async () => {
    const scrubbed = await exportWith(client, sourceAgentId, { scrub_messages: true });
    expect(scrubbed.agents[0]).toMatchObject({ messages: [], in_context_message_ids: [] });

    const other = await stack.createTenant();
    const response = await importRaw(other.apiKey.key, JSON.stringify(exported), { strip_messages: 'true' });
    expect(response.status).toBe(200);
    const { agent_ids: [agentId] } = (await response.json()) as { agent_ids: string[] };
    const agent = await Agent.query(stack.db).findById(agentId!);
    const messages = await Message.query(stack.db).where({ agentId: agentId! });
    expect(messages.map((message) => message.role)).toEqual(['system']);
    expect(agent!.messageIds).toEqual([messages[0]!.id]);
    expect(textOf(messages[0]!.content)).toContain('I am a careful librarian.');
  });

  it('renames with name, override_name and append_copy_suffix', async () => {
    const other = clientFor((await stack.createTenant()).apiKey.key);
    const nameOf = async (params: Parameters<typeof importWith>[2]) =>
      (await other.agents.retrieve((await importWith(other, exported, params)).agent_ids[0]!)).name;

    expect(await nameOf({})).toBe('librarian');
    expect(await nameOf({ append_copy_suffix: true })).toBe('librarian_copy');
    expect(await nameOf({ name: 'archivist' })).toBe('archivist');
    expect(await nameOf({ override_name: 'curator' })).toBe('curator');
    expect(await nameOf({ name: 'archivist', append_copy_suffix: true })).toBe('archivist_copy');
    await expect(importWith(other, exported, { name: 'bad/name' })).rejects.toMatchObject({ status: 422 });
  });

  it('keeps or replaces an existing custom tool of the same name, as override_existing_tools says', async () => {
    const tenant = await stack.createTenant();
    const other = clientFor(tenant.apiKey.key);
    const existing = await other.tools.create({ source_code: OLD_LOOKUP_FACT });

    const kept = await importWith(other, exported, { override_existing_tools: false });
    const keptAgent = await other.agents.retrieve(kept.agent_ids[0]!, { include: ['agent.tools'] });
    expect(keptAgent.tools.find((tool) => tool.name === 'lookup_fact')?.id).toBe(existing.id);
    expect((await other.tools.retrieve(existing.id)).source_code).toBe(OLD_LOOKUP_FACT);

    const replaced = await importWith(other, exported, { override_existing_tools: true });
    const replacedAgent = await other.agents.retrieve(replaced.agent_ids[0]!, { include: ['agent.tools'] });
    expect(replacedAgent.tools.find((tool) => tool.name === 'lookup_fact')?.id).toBe(existing.id);
    expect((await other.tools.retrieve(existing.id)).source_code).toBe(LOOKUP_FACT);
    expect(await Tool.query(stack.db).where({ organizationId: tenant.organizationId, name: 'lookup_fact' }).resultSize()).toBe(1);
  });

  it("answers 404 for another organization's agent", async () => {
    const other = await stack.createTenant();
    const response = await fetch(`${stack.baseUrl}/v1/agents/${sourceAgentId}/export`, { headers: { authorization: `Bearer ${other.apiKey.key}` } });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ detail: 'Agent not found' });
    await expect(exportWith(clientFor(other.apiKey.key), sourceAgentId)).rejects.toMatchObject({ status: 404 });
  });

  it('refuses the legacy format on export and an unknown conversation', async () => {
    await expect(exportWith(client, sourceAgentId, { use_legacy_format: true })).rejects.toMatchObject({ status: 400 });
    await expect(exportWith(client, sourceAgentId, { conversation_id: 'conv-nope' })).rejects.toMatchObject({ status: 404 });
    expect((await exportWith(client, sourceAgentId, { conversation_id: 'default' })).agents[0]!.messages).toEqual(exported.agents[0]!.messages);
  });
});

describe('secrets on import', () => {
  it('seals env_vars_json and secrets at rest, hands them to the tool sandbox, and never exports them', async () => {
    const tenant = await stack.createTenant();
    const file = handWrittenFile({
      agent: { tool_ids: ['tool-0'], tool_exec_environment_variables: [{ key: 'LIBRARY_TOKEN', description: 'Token of the library API' }] },
      tools: [{ id: 'tool-0', name: 'read_token', source_code: READ_TOKEN }],
    });
    const response = await importRaw(tenant.apiKey.key, JSON.stringify(file), {
      env_vars_json: JSON.stringify({ LIBRARY_TOKEN: 'tok-from-env-vars-5678', EXTRA_SETTING: 'on' }),
    });
    expect(response.status).toBe(200);
    const { agent_ids: [agentId] } = (await response.json()) as { agent_ids: string[] };

    const stored = (await Agent.query(stack.db).findById(agentId!))!.toolExecEnvironmentVariables;
    expect(stored.map(({ key, description }) => ({ key, description }))).toEqual([
      { key: 'LIBRARY_TOKEN', description: 'Token of the library API' },
      { key: 'EXTRA_SETTING', description: null },
    ]);
    for (const variable of stored) {
      expect(variable.value).toMatch(/^v1:/);
      expect(variable.value).not.toContain('tok-from-env-vars-5678');
    }
    const other = clientFor(tenant.apiKey.key);
    const withSecrets = await other.agents.retrieve(agentId!, { include: ['agent.secrets'] });
    expect(withSecrets.secrets?.find((secret) => secret.key === 'LIBRARY_TOKEN')?.value).toBe(maskSecret('tok-from-env-vars-5678'));

    const reExported = JSON.stringify(await exportWith(other, agentId!));
    expect(reExported).not.toContain('tok-from-env-vars-5678');
    // Letta's form: the names, with empty values.
    expect(JSON.parse(reExported).agents[0].tool_exec_environment_variables).toEqual({ LIBRARY_TOKEN: '', EXTRA_SETTING: '' });

    model.enqueue({ type: 'tool_calls', calls: [{ id: 'call_token', name: 'read_token', arguments: {} }] }, { type: 'text', text: 'Got it.' });
    const run = await other.agents.messages.create(agentId!, { messages: [{ role: 'user', content: 'Which token do you have?' }] });
    expect(run.messages[1]).toMatchObject({ message_type: 'tool_return_message', status: 'success', tool_return: 'tok-from-env-vars-5678' });
  });

  it('lets secrets win over env_vars_json, and refuses a value that is not a JSON object of strings', async () => {
    const tenant = await stack.createTenant();
    const other = clientFor(tenant.apiKey.key);
    const { agent_ids: [agentId] } = await importWith(other, handWrittenFile(), {
      env_vars_json: JSON.stringify({ TOKEN: 'from-env-vars' }),
      secrets: JSON.stringify({ TOKEN: 'from-secrets-value' }),
    });
    const agent = await other.agents.retrieve(agentId!, { include: ['agent.secrets'] });
    expect(agent.secrets?.map(({ key, value }) => ({ key, value }))).toEqual([{ key: 'TOKEN', value: maskSecret('from-secrets-value') }]);

    const before = await rowCounts(tenant.organizationId);
    const response = await importRaw(tenant.apiKey.key, JSON.stringify(handWrittenFile()), { secrets: '{"TOKEN": 42}' });
    expect(response.status).toBe(422);
    expect(((await response.json()) as { detail: Array<{ loc: unknown[] }> }).detail[0]!.loc).toEqual(['body', 'secrets', 'TOKEN']);
    expect(await rowCounts(tenant.organizationId)).toEqual(before);
  });
});

describe('importing a file that is not a valid agent file', () => {
  const freshTool = { id: 'tool-0', name: 'fresh_tool', source_code: 'def fresh_tool() -> str:\n    """Says hi."""\n    return "hi"\n' };
  const customSendMessage = {
    id: 'tool-1',
    name: 'send_message',
    source_code: 'def send_message(message: str) -> str:\n    """Sends.\n\n    Args:\n        message: The text.\n    """\n    return message\n',
  };
  // Files are built per test: the hand-written ones need the stack's llm_config.
  const cases: Array<{ what: string; file: () => string | undefined; loc: unknown[]; msg: RegExp }> = [
    { what: 'malformed JSON', file: () => '{"agents": [', loc: ['body', 'file'], msg: /not valid JSON/ },
    { what: 'no file', file: () => undefined, loc: ['body', 'file'], msg: /file is required/ },
    { what: 'neither agents nor a legacy agent', file: () => JSON.stringify({ hello: 'world' }), loc: ['body', 'file'], msg: /Not an agent file/ },
    { what: 'a JSON array', file: () => '[]', loc: ['body', 'file'], msg: /Not an agent file/ },
    {
      what: 'a field of the wrong type',
      file: () => JSON.stringify(handWrittenFile({ agent: { tags: 'books' } })),
      loc: ['body', 'file', 'agents', 0, 'tags'],
      msg: /expected array, received string/,
    },
    {
      what: 'a dangling tool reference',
      file: () => JSON.stringify(handWrittenFile({ agent: { tool_ids: ['tool-7'] } })),
      loc: ['body', 'file', 'agents', 0, 'tool_ids', 0],
      msg: /No tool has the id 'tool-7'/,
    },
    {
      what: 'a context window naming a message the agent does not have',
      file: () => JSON.stringify(handWrittenFile({ agent: { messages: [{ id: 'message-0', role: 'user', content: 'hi' }], in_context_message_ids: ['message-9'] } })),
      loc: ['body', 'file', 'agents', 0, 'in_context_message_ids', 0],
      msg: /no message with the id 'message-9'/,
    },
    {
      what: 'a group of an agent the file does not have',
      file: () => JSON.stringify({ ...handWrittenFile(), groups: [{ id: 'group-0', agent_ids: ['agent-5'], manager_config: { manager_type: 'round_robin' } }] }),
      loc: ['body', 'file', 'groups', 0, 'agent_ids', 0],
      msg: /No agent has the id 'agent-5'/,
    },
    {
      what: 'a custom tool named like a built-in one, found after another tool was written',
      file: () => JSON.stringify(handWrittenFile({ agent: { tool_ids: ['tool-0', 'tool-1'] }, tools: [freshTool, customSendMessage] })),
      loc: ['body', 'file', 'tools', 1],
      msg: /built-in tool/,
    },
    {
      what: 'a legacy agent without a name',
      file: () => JSON.stringify({ llm_config: llmConfig, memory: { blocks: [] } }),
      loc: ['body', 'file', 'name'],
      msg: /expected string/,
    },
  ];

  it.each(cases)('answers 422 for $what and creates nothing', async ({ file, loc, msg }) => {
    const tenant = await stack.createTenant();
    const before = await rowCounts(tenant.organizationId);
    const response = await importRaw(tenant.apiKey.key, file());
    expect(response.status).toBe(422);
    const { detail } = (await response.json()) as { detail: Array<{ loc: unknown[]; msg: string }> };
    expect(detail[0]!.loc).toEqual(loc);
    expect(detail[0]!.msg).toMatch(msg);
    expect(await rowCounts(tenant.organizationId)).toEqual(before);
  });

  it('answers 422 through the client too', async () => {
    const file = await toFile(Buffer.from('not json at all'), 'agent.af');
    await expect(client.agents.importFile({ file })).rejects.toMatchObject({ status: 422 });
  });
});

describe('other shapes of agent file', () => {
  it('imports the legacy single-agent form, dropping its compiled system message', async () => {
    const tenant = await stack.createTenant();
    const legacy = {
      name: 'old-timer',
      system: 'You are a vintage assistant.',
      llm_config: llmConfig,
      memory: { blocks: [{ label: 'persona', value: 'Vintage and proud.' }] },
      tools: [{ name: 'send_message', tool_type: 'letta_core' }],
      messages: [
        { role: 'system', content: 'the old compiled prompt' },
        { role: 'user', content: 'hello from the past', created_at: '2024-05-01T10:00:00Z' },
      ],
      in_context_message_indices: [0, 1],
    };
    const { agent_ids: [agentId] } = await importWith(clientFor(tenant.apiKey.key), legacy);

    const agent = await Agent.query(stack.db).findById(agentId!);
    expect(agent).toMatchObject({ name: 'old-timer', system: 'You are a vintage assistant.' });
    const messages = await Message.query(stack.db).where({ agentId: agentId! }).orderBy('sequence');
    expect(messages.map((message) => [message.role, textOf(message.content).slice(0, 30)])).toEqual([
      ['system', expect.stringContaining('You are a vintage assistant.')],
      ['user', 'hello from the past'],
    ]);
    expect(messages[1]!.createdAt.toISOString()).toBe('2024-05-01T10:00:00.000Z');
    expect(agent!.messageIds).toEqual(messages.map((message) => message.id));
    const blocks = await Block.query(stack.db).where({ organizationId: tenant.organizationId });
    expect(blocks.map(({ label, value }) => ({ label, value }))).toEqual([{ label: 'persona', value: 'Vintage and proud.' }]);
    const sendMessage = await Tool.query(stack.db).findOne({ organizationId: tenant.organizationId, name: 'send_message' });
    expect(sendMessage?.toolType).toBe('letta_core');
  });

  it("recreates the file's MCP servers without credentials, with their tools; a tool of a server it lacks stays detached", async () => {
    const tenant = await stack.createTenant();
    const letta = clientFor(tenant.apiKey.key);
    const schema = (name: string) => ({ name, description: `Calls ${name}`, parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] } });
    const file = {
      ...handWrittenFile({
        agent: { tool_ids: ['tool-0', 'tool-1'] },
        tools: [
          { id: 'tool-0', name: 'notion_search', tool_type: 'external_mcp', json_schema: schema('notion_search'), metadata_: { mcp: { server_name: 'notion', server_id: 'mcp_server-abc' } } },
          { id: 'tool-1', name: 'zap_run', tool_type: 'external_mcp', json_schema: schema('zap_run'), tags: ['mcp:zapier'] },
        ],
      }),
      mcp_servers: [{ id: 'mcp_server-0', server_name: 'notion', server_type: 'streamable_http', server_url: 'https://mcp.notion.example/mcp' }],
    };
    const imported = (await importWith(letta, file)) as { agent_ids: string[]; warnings: Array<{ loc: unknown[]; msg: string }> };
    const [agentId] = imported.agent_ids;

    const server = await McpServer.query(stack.db).findOne({ organizationId: tenant.organizationId, serverName: 'notion' });
    expect(server).toMatchObject({ serverType: 'streamable_http', serverUrl: 'https://mcp.notion.example/mcp', authTokenEnc: null, customHeadersEnc: null });
    const agent = await letta.agents.retrieve(agentId!, { include: ['agent.tools'] });
    expect(agent.tools.map((tool) => [tool.name, tool.tool_type, tool.metadata_])).toEqual([
      ['notion_search', 'external_mcp', { mcp: { server_id: server!.id, server_name: 'notion', tool_name: 'notion_search' } }],
    ]);
    expect(imported.warnings).toEqual([
      { loc: ['mcp_servers', 0], msg: expect.stringContaining("MCP server 'notion' was added without credentials") },
      { loc: ['tools', 1], msg: expect.stringContaining("'zap_run' is a tool of an MCP server the file does not carry") },
    ]);
    // The agent keeps its own notes, where the console and API show them.
    expect((await letta.agents.retrieve(agentId!)).metadata).toEqual({ import_warnings: [expect.stringContaining("'zap_run'")] });

    const exported = await exportWith(letta, agentId!);
    expect(exported.mcp_servers).toEqual([
      { id: 'mcp_server-0', server_name: 'notion', server_type: 'streamable_http', server_url: 'https://mcp.notion.example/mcp', stdio_config: null },
    ]);
    // Into another organization, the server and its tool come along again.
    const other = await stack.createTenant();
    const again = await importWith(clientFor(other.apiKey.key), exported);
    const reimported = await clientFor(other.apiKey.key).agents.retrieve(again.agent_ids[0]!, { include: ['agent.tools'] });
    expect(reimported.tools.map((tool) => tool.name)).toEqual(['notion_search']);
  });

  it("carries the agent's identities, matched by identifier_key where the project has them already", async () => {
    const tenant = await stack.createTenant();
    const source = clientFor(tenant.apiKey.key);
    const agent = await source.agents.create({ model: 'openai/gpt-4o-mini', name: 'concierge' });
    const created = await call(tenant.apiKey.key, 'POST', '/identities/', {
      identifier_key: 'customer-42',
      name: 'Ada',
      identity_type: 'user',
      agent_ids: [agent.id],
      properties: [{ key: 'tier', type: 'string', value: 'gold' }],
    });
    expect(created.status).toBe(200);
    const exported = await exportWith(source, agent.id);
    expect(exported.identities).toEqual([
      { id: 'identity-0', identifier_key: 'customer-42', name: 'Ada', identity_type: 'user', properties: [{ key: 'tier', type: 'string', value: 'gold' }] },
    ]);
    expect(exported.agents[0]!.identity_ids).toEqual(['identity-0']);

    const target = await stack.createTenant();
    const letta = clientFor(target.apiKey.key);
    const first = await importWith(letta, exported);
    const second = await importWith(letta, exported);
    const identities = await Identity.query(stack.db).where({ organizationId: target.organizationId });
    expect(identities.map(({ identifierKey, name, identityType, properties }) => ({ identifierKey, name, identityType, properties }))).toEqual([
      { identifierKey: 'customer-42', name: 'Ada', identityType: 'user', properties: [{ key: 'tier', type: 'string', value: 'gold' }] },
    ]);
    const links = await IdentityAgent.query(stack.db).where({ identityId: identities[0]!.id });
    expect(links.map((link) => link.agentId).sort()).toEqual([first.agent_ids[0], second.agent_ids[0]].sort());
  });

  it("carries the agent's folders with their files' text, ingested again in the other organization; a duplicate reuses the folder", async () => {
    const tenant = await stack.createTenant();
    const source = clientFor(tenant.apiKey.key);
    const agent = await source.agents.create({ model: 'openai/gpt-4o-mini', name: 'reader' });
    const folder = await source.folders.create({ name: 'handbook' });
    const uploaded = await source.folders.files.upload(folder.id, {
      file: await toFile(Buffer.from('# Leave\nEmployees get 25 days of paid leave per year.'), 'leave.md', { type: 'text/markdown' }),
    });
    const processed = (letta: Letta, folderId: string, fileId: string) =>
      until(
        () => letta.folders.files.retrieve(fileId, { folder_id: folderId }),
        (file) => file.processing_status === 'completed' || file.processing_status === 'error',
        { what: `file ${fileId} processed` },
      );
    expect(await processed(source, folder.id, uploaded.id!)).toMatchObject({ processing_status: 'completed' });
    await source.agents.folders.attach(folder.id, { agent_id: agent.id });

    const exported = await exportWith(source, agent.id);
    expect(exported.sources).toMatchObject([{ id: 'source-0', name: 'handbook' }]);
    expect(exported.files).toMatchObject([{ id: 'file-0', source_id: 'source-0', original_file_name: 'leave.md', content: expect.stringContaining('25 days of paid leave') }]);
    expect(exported.agents[0]!.source_ids).toEqual(['source-0']);

    const target = await stack.createTenant();
    const letta = clientFor(target.apiKey.key);
    const [importedId] = (await importWith(letta, exported)).agent_ids;
    const [attached] = (await call(target.apiKey.key, 'GET', `/agents/${importedId}/folders`)).body as Array<{ id: string; name: string }>;
    expect(attached).toMatchObject({ name: 'handbook' });
    const [file] = (await call(target.apiKey.key, 'GET', `/folders/${attached!.id}/files`)).body as Array<{ id: string; original_file_name: string }>;
    expect(file).toMatchObject({ original_file_name: 'leave.md' });
    expect(await processed(letta, attached!.id, file!.id)).toMatchObject({ processing_status: 'completed' });

    // Back into the organization it came from: the agents share the folder, whose file is not uploaded twice.
    const duplicate = (await importWith(source, exported, { append_copy_suffix: false })) as { agent_ids: string[]; warnings: Array<{ loc: unknown[]; msg: string }> };
    expect(duplicate.warnings).toContainEqual({ loc: ['sources', 0], msg: expect.stringContaining("already has a folder named 'handbook'") });
    const [reused] = (await call(tenant.apiKey.key, 'GET', `/agents/${duplicate.agent_ids[0]}/folders`)).body as Array<{ id: string }>;
    expect(reused!.id).toBe(folder.id);
    expect(((await call(tenant.apiKey.key, 'GET', `/folders/${folder.id}/files`)).body as unknown[]).length).toBe(1);
  });

  it('keeps a block shared by two agents of one file as one block', async () => {
    const tenant = await stack.createTenant();
    const file = {
      agents: [
        { id: 'agent-0', name: 'first', llm_config: llmConfig, block_ids: ['block-0'] },
        { id: 'agent-1', name: 'second', llm_config: llmConfig, block_ids: ['block-0'] },
      ],
      blocks: [{ id: 'block-0', label: 'team', value: 'We share this.' }],
    };
    const response = await importRaw(tenant.apiKey.key, JSON.stringify(file));
    expect(response.status).toBe(200);
    const { agent_ids: agentIds } = (await response.json()) as { agent_ids: string[] };
    expect(agentIds).toHaveLength(2);

    const blocks = await Block.query(stack.db).where({ organizationId: tenant.organizationId });
    expect(blocks).toHaveLength(1);
    const links = await AgentBlock.query(stack.db).where({ blockId: blocks[0]!.id });
    expect(links.map((link) => link.agentId).sort()).toEqual([...agentIds].sort());
  });
});
