import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_BLOCK_DESCRIPTIONS, DEFAULT_BLOCK_LIMIT, DEFAULT_SYSTEM_PROMPTS, defaultToolNamesFor } from '@engram/core';
import { Agent, Block, Message } from '@engram/db';
import { startAgentTestContext } from '@engram/testing/agent-test-context';

const { stack, model, client, api, post, patch, systemMessageText, stop } = await startAgentTestContext({ inProcessWorker: false });
afterAll(stop);

/** A tag of one test's own, so lists only see the agents that test made. */
const uniqueTag = () => `t-${randomUUID().slice(0, 8)}`;

describe('creating an agent', () => {
  it('fills in the defaults: a generated name, the base tools, a compiled system message', async () => {
    const agent = await client.agents.create({ model: 'openai/gpt-4o-mini' });

    expect(agent.id).toMatch(/^agent-[0-9a-f-]{36}$/);
    expect(agent.name).toMatch(/^[a-z]+-[a-z]+-[0-9a-f]{4}$/);
    expect(agent.agent_type).toBe('letta_v1_agent');
    expect(agent.system).toBe(DEFAULT_SYSTEM_PROMPTS.letta_v1_agent);
    expect(agent.tools.map((tool) => tool.name).sort()).toEqual(defaultToolNamesFor('letta_v1_agent').sort());
    expect(agent.tools[0]).toMatchObject({ tool_type: expect.stringMatching(/^letta_/), metadata_: {}, json_schema: expect.any(Object) });
    expect(agent.tool_rules).toEqual([]);
    expect(agent.model).toBe('openai/gpt-4o-mini');
    expect(agent.llm_config).toMatchObject({
      model: 'gpt-4o-mini',
      model_endpoint_type: 'openai',
      model_endpoint: model.url,
      provider_name: 'openai',
      provider_category: 'base',
      handle: 'openai/gpt-4o-mini',
      context_window: 128_000,
      temperature: 0.7,
      parallel_tool_calls: false,
      put_inner_thoughts_in_kwargs: false,
      enable_reasoner: false,
    });
    expect(agent.embedding_config).toBeNull();
    expect(agent.blocks).toEqual([]);
    expect(agent.memory).toMatchObject({ blocks: [], file_blocks: [] });
    expect(agent).toMatchObject({
      sources: [],
      identities: [],
      managed_group: null,
      multi_agent_group: null,
      timezone: 'UTC',
      message_buffer_autoclear: false,
      max_files_open: 10,
      per_file_view_window_char_limit: 25_000,
      project_id: stack.tenant.projectId,
      created_by_id: stack.tenant.userId,
      last_run_completion: null,
      base_template_id: null,
      template_id: null,
    });

    expect(agent.message_ids).toHaveLength(1);
    const system = await systemMessageText(agent.id);
    expect(system).toContain(DEFAULT_SYSTEM_PROMPTS.letta_v1_agent.split('{CORE_MEMORY}')[0]!.trim());
    expect(system).toContain(`Agent ID: ${agent.id}`);
    expect(system).not.toContain('{CORE_MEMORY}');
  });

  it('creates memory blocks, tags, tool rules and initial messages as asked', async () => {
    const response = await post('/agents', {
      name: "Ada's helper",
      model: 'openai/gpt-4o-mini',
      agent_type: 'memgpt_v2_agent',
      memory_blocks: [
        { label: 'human', value: 'The human is called Ada.' },
        { label: 'persona', value: 'I am terse.', limit: 500, read_only: true, description: 'Who I am' },
      ],
      tags: ['alpha', 'beta'],
      tool_rules: [{ type: 'max_count_per_step', tool_name: 'memory_insert', max_count_limit: 2 }],
      timezone: 'Europe/Berlin',
      metadata: { team: 'research' },
      description: 'helps Ada',
      context_window_limit: 16_000,
      initial_message_sequence: [{ role: 'user', content: 'hello there' }],
    });
    expect(response.status).toBe(200);
    const agent = await response.json();

    expect(agent).toMatchObject({
      name: "Ada's helper",
      agent_type: 'memgpt_v2_agent',
      tags: ['alpha', 'beta'],
      timezone: 'Europe/Berlin',
      metadata: { team: 'research' },
      description: 'helps Ada',
      max_files_open: 5,
      per_file_view_window_char_limit: 15_000,
    });
    expect(agent.llm_config.context_window).toBe(16_000);
    expect(agent.blocks).toEqual([
      expect.objectContaining({
        label: 'human',
        value: 'The human is called Ada.',
        limit: DEFAULT_BLOCK_LIMIT,
        description: DEFAULT_BLOCK_DESCRIPTIONS.human,
        read_only: false,
        metadata: {},
        is_template: false,
        project_id: stack.tenant.projectId,
        id: expect.stringMatching(/^block-/),
      }),
      expect.objectContaining({ label: 'persona', value: 'I am terse.', limit: 500, read_only: true, description: 'Who I am' }),
    ]);
    expect(agent.tools.map((tool: { name: string }) => tool.name).sort()).toEqual(defaultToolNamesFor('memgpt_v2_agent').sort());
    // The caller's rule, then the base rules of the heartbeat generation for the attached base tools.
    expect(agent.tool_rules).toEqual([
      { type: 'max_count_per_step', tool_name: 'memory_insert', max_count_limit: 2 },
      { type: 'exit_loop', tool_name: 'send_message' },
      { type: 'continue_loop', tool_name: 'conversation_search' },
      { type: 'continue_loop', tool_name: 'memory_replace' },
      { type: 'continue_loop', tool_name: 'memory_insert' },
    ]);

    expect(agent.message_ids).toHaveLength(2);
    const initial = await Message.query(stack.db).findById(agent.message_ids[1]);
    expect(initial).toMatchObject({ role: 'user', agentId: agent.id, content: [{ type: 'text', text: 'hello there' }] });
    const system = await systemMessageText(agent.id);
    expect(system).toContain('The human is called Ada.');
    expect(system).toContain('I am terse.');
    expect(system).toContain('Europe/Berlin');
  });

  it('attaches tools by name and id, and leaves the base tools out when asked', async () => {
    const first = await client.agents.create({ model: 'openai/gpt-4o-mini', include_base_tools: false, tools: ['send_message'] });
    expect(first.tools.map((tool) => tool.name)).toEqual(['send_message']);

    const second = await client.agents.create({
      model: 'openai/gpt-4o-mini',
      include_base_tools: false,
      tool_ids: [first.tools[0]!.id],
    });
    expect(second.tools.map((tool) => tool.id)).toEqual([first.tools[0]!.id]);

    const unknown = await post('/agents', { model: 'openai/gpt-4o-mini', tools: ['no_such_tool'] });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ detail: "Tool 'no_such_tool' not found" });
  });

  it('accepts an llm_config instead of a model handle', async () => {
    const agent = await client.agents.create({
      llm_config: { model: 'local-model', model_endpoint_type: 'openai', model_endpoint: model.url, context_window: 8000 },
      context_window_limit: 4000,
    });
    expect(agent.llm_config).toMatchObject({ model: 'local-model', context_window: 4000 });
    expect(agent.max_files_open).toBe(3);
  });

  it('answers 400 for a handle without a slash, an unknown provider, and no model at all', async () => {
    const noSlash = await post('/agents', { model: 'gpt-4o-mini' });
    expect(noSlash.status).toBe(400);
    expect((await noSlash.json()).detail).toMatch(/gpt-4o-mini.*provider\/model-name/);

    const unknownProvider = await post('/agents', { model: 'nowhere/gpt-4o-mini' });
    expect(unknownProvider.status).toBe(400);
    expect((await unknownProvider.json()).detail).toContain('nowhere/gpt-4o-mini');

    const noModel = await post('/agents', { name: 'modelless' });
    expect(noModel.status).toBe(400);
    expect(await noModel.json()).toEqual({ detail: 'Must specify either model or llm_config' });

    const badName = await post('/agents', { model: 'openai/gpt-4o-mini', name: 'semi;colon' });
    expect(badName.status).toBe(400);
  });

  it('answers 422 with detail[{loc,msg,type}] for malformed bodies', async () => {
    const unknownKey = await post('/agents', { model: 'openai/gpt-4o-mini', colour: 'blue' });
    expect(unknownKey.status).toBe(422);
    const unknownIssue = (await unknownKey.json()).detail[0];
    expect(unknownIssue).toEqual({ loc: ['body'], msg: expect.stringContaining('colour'), type: 'unrecognized_keys' });

    const badRuleKind = await post('/agents', { model: 'openai/gpt-4o-mini', tool_rules: [{ type: 'sometimes', tool_name: 'x' }] });
    expect(badRuleKind.status).toBe(422);
    expect((await badRuleKind.json()).detail[0].loc.slice(0, 3)).toEqual(['body', 'tool_rules', 0]);

    const incompleteRule = await post('/agents', {
      model: 'openai/gpt-4o-mini',
      tool_rules: [{ type: 'max_count_per_step', tool_name: 'memory_insert' }],
    });
    expect(incompleteRule.status).toBe(422);
    expect((await incompleteRule.json()).detail).toEqual([
      { loc: ['body', 'tool_rules', 0, 'max_count_limit'], msg: expect.any(String), type: 'invalid_type' },
    ]);

    const badTypes = await post('/agents', { model: 'openai/gpt-4o-mini', name: 42, tags: 'one' });
    expect(badTypes.status).toBe(422);
    expect((await badTypes.json()).detail.map((issue: { loc: unknown[] }) => issue.loc)).toEqual([
      ['body', 'name'],
      ['body', 'tags'],
    ]);

    const overLimit = await post('/agents', {
      model: 'openai/gpt-4o-mini',
      memory_blocks: [{ label: 'human', value: 'x'.repeat(11), limit: 10 }],
    });
    expect(overLimit.status).toBe(422);
    expect((await overLimit.json()).detail).toEqual([
      { loc: ['body', 'memory_blocks', 0, 'value'], msg: expect.stringMatching(/11 .*10/), type: 'value_error' },
    ]);

    const badTimezone = await post('/agents', { model: 'openai/gpt-4o-mini', timezone: 'Mars/Olympus' });
    expect(badTimezone.status).toBe(422);
    expect((await badTimezone.json()).detail[0].loc).toEqual(['body', 'timezone']);
  });
});

describe('listing agents', () => {
  it('filters by name, tags and query text, and counts', async () => {
    const tag = uniqueTag();
    const [red, green] = await Promise.all([
      client.agents.create({ model: 'openai/gpt-4o-mini', name: `red-${tag}`, tags: [tag, 'red'] }),
      client.agents.create({ model: 'openai/gpt-4o-mini', name: `green-${tag}`, tags: [tag, 'green'] }),
    ]);
    const names = (agents: Array<{ name: string }>) => agents.map((agent) => agent.name).sort();

    expect(names((await client.agents.list({ tags: [tag] })).items)).toEqual([green.name, red.name]);
    expect(names((await client.agents.list({ tags: [tag, 'red'], match_all_tags: true })).items)).toEqual([red.name]);
    expect(names((await client.agents.list({ name: green.name })).items)).toEqual([green.name]);
    expect(names((await client.agents.list({ query_text: `EN-${tag}` })).items)).toEqual([green.name]);
    expect((await client.agents.list({ tags: [tag], identity_id: 'identity-1' })).items).toEqual([]);

    const count = await api(`/agents/count?tags=${tag}`);
    expect(await count.json()).toBe(2);
    const all = await api('/agents/count/');
    expect(await all.json()).toBeGreaterThanOrEqual(2);
  });

  it('pages with after/before/limit/order on creation order, and pages through with the client', async () => {
    const tag = uniqueTag();
    const created = [];
    for (const index of [0, 1, 2, 3]) created.push(await client.agents.create({ model: 'openai/gpt-4o-mini', name: `p${index}-${tag}`, tags: [tag] }));
    const ids = created.map((agent) => agent.id);
    const page = async (query: string) => ((await (await api(`/agents/?tags=${tag}&${query}`)).json()) as Array<{ id: string }>).map((a) => a.id);

    expect(await page('limit=2')).toEqual([ids[3], ids[2]]);
    expect(await page(`limit=2&after=${ids[2]}`)).toEqual([ids[1], ids[0]]);
    expect(await page(`limit=2&before=${ids[0]}`)).toEqual([ids[2], ids[1]]);
    expect(await page('order=asc&limit=3')).toEqual([ids[0], ids[1], ids[2]]);
    expect(await page(`order=asc&after=${ids[0]}&before=${ids[3]}`)).toEqual([ids[1], ids[2]]);
    expect(await page('ascending=true&limit=1')).toEqual([ids[0]]);

    const walked: string[] = [];
    for await (const agent of client.agents.list({ tags: [tag], limit: 1, order: 'asc' })) walked.push(agent.id);
    expect(walked).toEqual(ids);
  });

  it('returns relationships only when included, as for 1.0 clients', async () => {
    const tag = uniqueTag();
    const agent = await client.agents.create({
      model: 'openai/gpt-4o-mini',
      tags: [tag],
      memory_blocks: [{ label: 'human', value: 'Ada' }],
      secrets: { API_TOKEN: 'token-123' },
    });

    const [bare] = (await client.agents.list({ tags: [tag] })).items;
    expect(bare).toMatchObject({ id: agent.id, blocks: [], tools: [], tags: [], secrets: [], memory: { blocks: [] } });
    expect(bare!.tool_rules).toEqual([]);
    expect(bare!.message_ids).toEqual(agent.message_ids);

    const [withSome] = (await client.agents.list({ tags: [tag], include: ['agent.blocks', 'agent.tags'] })).items;
    expect(withSome!.blocks.map((block) => block.value)).toEqual(['Ada']);
    expect(withSome!.tags).toEqual([tag]);
    expect(withSome!.tools).toEqual([]);

    const single = await client.agents.retrieve(agent.id, { include: ['agent.tools', 'agent.secrets'] });
    expect(single.tools).toHaveLength(agent.tools.length);
    expect(single.secrets).toEqual([{ agent_id: agent.id, key: 'API_TOKEN', value: 'toke****-123', description: null }]);
    const stored = await Agent.query(stack.db).findById(agent.id);
    expect(JSON.stringify(stored?.toolExecEnvironmentVariables)).not.toContain('token-123');
    expect(single.blocks).toEqual([]);

    // Secrets are sealed at rest.
    const row = await Agent.query(stack.db).findById(agent.id);
    expect(JSON.stringify(row!.toolExecEnvironmentVariables)).not.toContain('token-123');
  });
});

describe('one agent', () => {
  it('updates fields, the model and the system prompt, ignoring unknown keys', async () => {
    const agent = await client.agents.create({ model: 'openai/gpt-4o-mini', tags: ['old'] });
    const updated = await client.agents.update(agent.id, {
      name: 'renamed',
      description: 'now described',
      tags: ['new'],
      system: 'You are a pirate. {CORE_MEMORY}',
      model: 'openai/gpt-4o',
      context_window_limit: 64_000,
      tool_rules: [{ type: 'exit_loop', tool_name: 'memory_insert' }],
      metadata: { v: 2 },
    });
    expect(updated).toMatchObject({
      name: 'renamed',
      description: 'now described',
      tags: ['new'],
      system: 'You are a pirate. {CORE_MEMORY}',
      model: 'openai/gpt-4o',
      tool_rules: [{ type: 'exit_loop', tool_name: 'memory_insert' }],
      metadata: { v: 2 },
      last_updated_by_id: stack.tenant.userId,
    });
    expect(updated.llm_config).toMatchObject({ model: 'gpt-4o', context_window: 64_000 });
    expect(await systemMessageText(agent.id)).toMatch(/^You are a pirate\. <memory_blocks>/);

    const ignored = await patch(`/agents/${agent.id}`, { name: 'again', not_a_field: true });
    expect(ignored.status).toBe(200);
    expect((await ignored.json()).name).toBe('again');

    const badRule = await patch(`/agents/${agent.id}`, { tool_rules: [{ type: 'exit_loop' }] });
    expect(badRule.status).toBe(422);
  });

  it('gets an agent with and without includes, with or without a trailing slash', async () => {
    const agent = await client.agents.create({ model: 'openai/gpt-4o-mini', tags: ['x'] });
    for (const path of [`/agents/${agent.id}`, `/agents/${agent.id}/`]) {
      const response = await api(path);
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ id: agent.id, tags: [], tools: [] });
    }
    const included = await api(`/agents/${agent.id}?include=agent.tags`);
    expect((await included.json()).tags).toEqual(['x']);
  });

  it('deletes an agent but keeps a block another agent still uses', async () => {
    const first = await client.agents.create({
      model: 'openai/gpt-4o-mini',
      memory_blocks: [
        { label: 'project', value: 'shared facts' },
        { label: 'scratch', value: 'private notes' },
      ],
    });
    const shared = first.blocks.find((block) => block.label === 'project')!;
    const own = first.blocks.find((block) => block.label === 'scratch')!;
    const second = await client.agents.create({ model: 'openai/gpt-4o-mini', block_ids: [shared.id!] });

    const deleted = await api(`/agents/${first.id}`, { method: 'DELETE' });
    expect(deleted.status).toBe(200);
    expect(await deleted.json()).toEqual({ message: `Agent id=${first.id} successfully deleted` });

    expect((await api(`/agents/${first.id}`)).status).toBe(404);
    expect(await Block.query(stack.db).findById(own.id!)).toBeUndefined();
    expect(await Block.query(stack.db).findById(shared.id!)).toBeDefined();
    const remaining = await client.agents.blocks.retrieve('project', { agent_id: second.id });
    expect(remaining.value).toBe('shared facts');
    expect(await Message.query(stack.db).where({ agentId: first.id }).resultSize()).toBe(0);
  });

  it("answers 404 for an unknown agent and for another organization's agent", async () => {
    const other = await stack.createTenant();
    const foreign = await (await post('/agents', { model: 'openai/gpt-4o-mini', tags: ['foreign'] }, other.apiKey.key)).json();
    expect(foreign.id).toMatch(/^agent-/);

    for (const id of [`agent-${randomUUID()}`, foreign.id]) {
      for (const [method, body] of [['GET'], ['PATCH', { name: 'stolen' }], ['DELETE']] as const) {
        const response = await api(`/agents/${id}`, { method, ...(body ? { body: JSON.stringify(body) } : {}) });
        expect(response.status, `${method} ${id}`).toBe(404);
        expect(await response.json()).toEqual({ detail: 'Agent not found' });
      }
    }
    expect((await client.agents.list({ tags: ['foreign'] })).items).toEqual([]);
    const stillThere = await api(`/agents/${foreign.id}`, { key: other.apiKey.key });
    expect((await stillThere.json()).name).toBe(foreign.name);
  });
});
