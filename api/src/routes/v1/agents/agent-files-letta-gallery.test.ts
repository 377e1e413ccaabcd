import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { toFile } from '@letta-ai/letta-client';
import type Letta from '@letta-ai/letta-client';
import { BASE_TOOL_NAMES } from '@engram/core';
import { Agent, Block, Message } from '@engram/db';
import { startAgentTestContext } from '@engram/testing/agent-test-context';

/**
 * Every agent file of Letta's public gallery (vendored with its licence and a MANIFEST of where each came from)
 * imports through the official client, runs, and round-trips through export. The expectations are read from
 * the raw files here, not from the import parser, so the parser is checked against the files themselves.
 */

const GALLERY = fileURLToPath(new URL('../../../services/agent-files/fixtures/gallery/', import.meta.url));
/** The one file of the gallery's history that is not JSON (two documents spliced together); refused, not imported. */
const BROKEN = 'memgpt_agent__agent2.af';
const fixtures = readdirSync(GALLERY)
  .filter((name) => name.endsWith('.af') && name !== BROKEN)
  .sort();

const { stack, model, clientFor, call, stop } = await startAgentTestContext();
afterEach(() => model.reset());
afterAll(stop);

type Raw = Record<string, any>;

/** The document as Letta's exporters wrote it, in either form; an older one wrote it as a JSON string. */
function rawDocument(name: string): Raw {
  let json = JSON.parse(readFileSync(GALLERY + name, 'utf8')) as unknown;
  if (typeof json === 'string') json = JSON.parse(json);
  return json as Raw;
}

type Expected = { name: string; blocks: Array<{ label: string; value: string }>; tools: Raw[]; rules: Raw[]; history: number; inContext: number };

/** What each agent of a raw file should become: its blocks, tools and rules, and its history without the compiled prompt. */
function expectedAgents(document: Raw): Expected[] {
  const legacy = !('agents' in document);
  const agents: Raw[] = legacy ? [document] : document.agents;
  return agents.map((agent) => {
    const blocks: Raw[] = legacy
      ? (agent.core_memory ?? agent.memory?.blocks ?? [])
      : agent.block_ids.map((id: string) => document.blocks.find((block: Raw) => block.id === id));
    const tools: Raw[] = legacy ? (agent.tools ?? []) : agent.tool_ids.map((id: string) => document.tools.find((tool: Raw) => tool.id === id));
    const messages: Raw[] = agent.messages ?? [];
    const window: number[] = agent.in_context_message_ids
      ? agent.in_context_message_ids.map((id: string) => messages.findIndex((message) => message.id === id))
      : (agent.in_context_message_indices ?? messages.flatMap((message, index) => (message.in_context ? [index] : [])));
    const prompt = window.length > 0 ? window[0]! : 0;
    const hasPrompt = messages[prompt]?.role === 'system';
    return {
      name: agent.name,
      blocks: blocks.map((block) => ({ label: block.label, value: block.value })),
      tools,
      rules: agent.tool_rules ?? [],
      history: messages.length - (hasPrompt ? 1 : 0),
      inContext: window.length > 0 ? window.length - (hasPrompt ? 1 : 0) : messages.length - (hasPrompt ? 1 : 0),
    };
  });
}

/** Tools Engram runs itself or from their source; every other tool of a file is left detached, with a warning. */
const runsHere = (tool: Raw) => tool.tool_type === 'custom' || (BASE_TOOL_NAMES as readonly string[]).includes(tool.name);

/** The early exporter's rules that name no targets are left out, with a warning; every other rule comes over. */
const followable = (rule: Raw) =>
  !(['constrain_child_tools', 'parent_last_tool'].includes(rule.type) && rule.children === undefined) && !(rule.type === 'conditional' && rule.child_output_mapping === undefined);

async function importFixture(letta: Letta, content: Buffer, params: Record<string, string> = {}) {
  const file = await toFile(content, 'agent.af', { type: 'application/json' });
  return (await letta.agents.importFile({ file, ...params })) as Letta.Agents.AgentImportFileResponse & {
    warnings: Array<{ loc: Array<string | number>; msg: string; agent_id?: string }>;
  };
}

async function memoryOf(letta: Letta, agentId: string) {
  const agent = await letta.agents.retrieve(agentId, { include: ['agent.blocks', 'agent.tools'] });
  return {
    blocks: agent.memory.blocks.map((block) => ({ label: block.label, value: block.value })),
    tools: agent.tools.map((tool) => tool.name).sort(),
    rules: agent.tool_rules ?? [],
  };
}

/** The history as stored, in order, without the compiled system message; and the context window's length. */
async function historyOf(agentId: string) {
  const agent = await Agent.query(stack.db).findById(agentId);
  const messages = await Message.query(stack.db).where({ agentId }).orderBy('sequence');
  return { messages: messages.filter((message) => message.id !== agent!.messageIds[0]), inContext: agent!.messageIds.length - 1 };
}

/** What must survive export → import exactly: memory, tools, rules, and the in-context messages. */
function portable(document: Raw) {
  const [agent] = document.agents as Raw[];
  const inContext = (agent!.in_context_message_ids as string[]).map((id) => agent!.messages.find((message: Raw) => message.id === id));
  return {
    blocks: document.blocks.map(({ label, value, limit, read_only, description, metadata }: Raw) => ({ label, value, limit, read_only, description, metadata })),
    tools: document.tools.map(({ name, tool_type, source_code, json_schema, tags, pip_requirements }: Raw) => ({ name, tool_type, source_code, json_schema, tags, pip_requirements })),
    rules: agent!.tool_rules,
    inContext: inContext.map(({ role, content, tool_calls, tool_call_id, tool_returns, created_at }: Raw) => ({ role, content, tool_calls, tool_call_id, tool_returns, created_at })),
  };
}

describe("Letta's public agent-file gallery", () => {
  it.each(fixtures)('%s imports whole, answers a message, and round-trips through export', async (name) => {
    const content = readFileSync(GALLERY + name);
    const expected = expectedAgents(rawDocument(name));
    const tenant = await stack.createTenant();
    const letta = clientFor(tenant.apiKey.key);

    const imported = await importFixture(letta, content, { override_model_handle: 'openai/gpt-4o-mini' });
    expect(imported.agent_ids).toHaveLength(expected.length);

    for (const [index, agentId] of imported.agent_ids.entries()) {
      const want = expected[index]!;
      const memory = await memoryOf(letta, agentId);
      expect(memory.blocks).toEqual(want.blocks);
      expect(memory.tools).toEqual([...new Set(want.tools.filter(runsHere).map((tool) => tool.name))].sort());
      expect(memory.rules).toEqual(want.rules.filter(followable).map((rule) => expect.objectContaining(rule)));
      const history = await historyOf(agentId);
      expect(history.messages).toHaveLength(want.history);
      expect(history.inContext).toBe(want.inContext);
    }
    // Each tool left out is reported, by its path in the file.
    const detached = imported.warnings.filter((warning) => warning.loc[0] === 'tools');
    const allTools = expected.flatMap((agent) => agent.tools);
    expect(new Set(detached.map((warning) => warning.msg.split("'")[1]))).toEqual(new Set(allTools.filter((tool) => !runsHere(tool)).map((tool) => tool.name)));

    // Groups with their manager settings, folders with their files (ingested again), attached where they were.
    const raw = rawDocument(name);
    const agentIdOf = (fileAgentId: string) => imported.agent_ids[(raw.agents as Raw[]).findIndex((agent) => agent.id === fileAgentId)];
    const groups = (await call(tenant.apiKey.key, 'GET', '/groups')).body as Raw[];
    expect(groups.map(({ manager_type, manager_agent_id, agent_ids, sleeptime_agent_frequency }) => ({ manager_type, manager_agent_id, agent_ids, sleeptime_agent_frequency }))).toEqual(
      (raw.groups ?? []).map((group: Raw) => ({
        manager_type: group.manager_config.manager_type,
        manager_agent_id: agentIdOf(group.manager_config.manager_agent_id),
        agent_ids: group.agent_ids.map(agentIdOf),
        sleeptime_agent_frequency: group.manager_config.sleeptime_agent_frequency,
      })),
    );
    const folders = (await call(tenant.apiKey.key, 'GET', '/folders')).body as Raw[];
    expect(folders.map((folder) => folder.name)).toEqual((raw.sources ?? []).map((source: Raw) => source.name));
    for (const [index, source] of ((raw.sources ?? []) as Raw[]).entries()) {
      const files = (await call(tenant.apiKey.key, 'GET', `/folders/${folders[index]!.id}/files`)).body as Raw[];
      const carried = (raw.files as Raw[]).filter((file) => file.source_id === source.id);
      expect(files.map((file) => file.original_file_name)).toEqual(carried.map((file) => file.original_file_name));
      const attached = (raw.agents as Raw[]).filter((agent) => (agent.source_ids ?? []).includes(source.id));
      for (const agent of attached) {
        const agentFolders = (await call(tenant.apiKey.key, 'GET', `/agents/${agentIdOf(agent.id)}/folders`)).body as Raw[];
        expect(agentFolders.map((folder) => folder.id)).toEqual([folders[index]!.id]);
      }
    }

    const [agentId] = imported.agent_ids;
    model.enqueue({ type: 'text', text: `Hello from ${name}` });
    const reply = await letta.agents.messages.create(agentId!, { messages: [{ role: 'user', content: 'Who are you?' }] });
    expect(JSON.stringify(reply.messages)).toContain(`Hello from ${name}`);

    const exported = (await letta.agents.exportFile(agentId!)) as unknown as Raw;
    expect(exported.metadata).toMatchObject({ revision_id: expect.any(String) });
    const other = await stack.createTenant();
    const otherLetta = clientFor(other.apiKey.key);
    const reimported = await importFixture(otherLetta, Buffer.from(JSON.stringify(exported)));
    const reexported = (await otherLetta.agents.exportFile(reimported.agent_ids[0]!)) as unknown as Raw;
    expect(portable(reexported)).toEqual(portable(exported));
    expect((await memoryOf(otherLetta, reimported.agent_ids[0]!)).blocks).toEqual(expected[0]!.blocks);
  });

  it('refuses the one file of its history that is not JSON, naming the file', async () => {
    const tenant = await stack.createTenant();
    const file = await toFile(readFileSync(GALLERY + BROKEN), 'agent.af', { type: 'application/json' });
    await expect(clientFor(tenant.apiKey.key).agents.importFile({ file })).rejects.toMatchObject({
      status: 422,
      error: { detail: [{ loc: ['body', 'file'], type: 'json_invalid' }] },
    });
    expect(await Block.query(stack.db).where({ organizationId: tenant.organizationId }).resultSize()).toBe(0);
  });

  it("imports a file whose model this server lacks, with a note on the agent rather than a failure", async () => {
    const tenant = await stack.createTenant();
    const letta = clientFor(tenant.apiKey.key);
    const imported = await importFixture(letta, readFileSync(GALLERY + 'letta-ai__loop__loop.af'));
    const [agentId] = imported.agent_ids;
    const note = expect.stringContaining("The file's model 'anthropic/claude-sonnet-4-5-20250929' is not available on this server");
    expect(imported.warnings).toContainEqual({ loc: ['agents', 0], msg: note, agent_id: agentId });
    const agent = await letta.agents.retrieve(agentId!);
    expect(agent.metadata).toMatchObject({ import_warnings: expect.arrayContaining([note]) });
    expect(agent.llm_config).toMatchObject({ handle: 'anthropic/claude-sonnet-4-5-20250929' });
  });
});
