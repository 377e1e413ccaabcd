import { afterAll, describe, expect, it } from 'vitest';
import { startAgentTestContext } from '@engram/testing/agent-test-context';

const { stack, api, post, stop } = await startAgentTestContext({ inProcessWorker: false });
afterAll(stop);

const toolNamesOf = async (agentId: string, key?: string) =>
  ((await (await api(`/agents/${agentId}/tools`, key ? { key } : {})).json()) as Array<{ name: string; tool_type: string }>)
    .map((tool) => `${tool.name}:${tool.tool_type}`)
    .sort();

/** The body Letta Code 0.32 sends for its default agent (`src/agent/create-agent-request.ts`). */
const lettaCodeAgent = (tools: string[]) => ({
  agent_type: 'letta_v1_agent',
  name: 'Letta Code',
  description: 'A coding agent',
  model: 'openai/gpt-4o-mini',
  system: 'You are Letta Code.',
  memory_blocks: [{ label: 'persona', value: 'I am a coding agent.', description: 'Who I am.' }],
  tags: ['origin:letta-code'],
  tools,
  include_base_tools: false,
  include_base_tool_rules: false,
  initial_message_sequence: [],
  parallel_tool_calls: true,
  compaction_settings: { model: 'letta/auto' },
  context_window_limit: 32000,
});

describe("Letta's built-in tools", () => {
  it('are listed among the tools with their Letta types, and added by add-base-tools', async () => {
    const tenant = await stack.createTenant();
    const added = await post('/tools/add-base-tools', undefined, tenant.apiKey.key);
    expect(added.status).toBe(200);
    const addedNames = ((await added.json()) as Array<{ name: string }>).map((tool) => tool.name);
    expect(addedNames).toEqual(expect.arrayContaining(['web_search', 'fetch_webpage', 'run_code', 'memory', 'memory_apply_patch']));

    const listed = (await (await api('/tools/?limit=100', { key: tenant.apiKey.key })).json()) as Array<{
      name: string;
      tool_type: string;
      json_schema: { name: string; parameters: { properties: Record<string, unknown>; required: string[] } };
    }>;
    const byName = new Map(listed.map((tool) => [tool.name, tool]));
    expect(byName.get('web_search')).toMatchObject({ tool_type: 'letta_builtin', json_schema: { name: 'web_search', parameters: { required: ['query'] } } });
    expect(Object.keys(byName.get('web_search')!.json_schema.parameters.properties)).toEqual([
      'query', 'num_results', 'category', 'include_text', 'include_domains', 'exclude_domains', 'start_published_date', 'end_published_date', 'user_location',
    ]);
    expect(byName.get('fetch_webpage')).toMatchObject({ tool_type: 'letta_builtin', json_schema: { parameters: { required: ['url'] } } });
    expect(byName.get('run_code')).toMatchObject({ tool_type: 'letta_builtin', json_schema: { parameters: { required: ['code', 'language'] } } });
    expect(byName.get('memory_apply_patch')).toMatchObject({ tool_type: 'letta_memory_core', json_schema: { parameters: { required: ['label', 'patch'] } } });
    expect(byName.get('memory')).toMatchObject({ tool_type: 'letta_memory_core', json_schema: { parameters: { required: ['command'] } } });
    expect(Object.keys(byName.get('memory')!.json_schema.parameters.properties)).toEqual([
      'command', 'path', 'file_text', 'description', 'old_string', 'new_string', 'insert_line', 'insert_text', 'old_path', 'new_path',
    ]);
  });

  it("attach by name to an agent created exactly as Letta Code creates its default agent", async () => {
    const tenant = await stack.createTenant();
    const created = await post('/agents/', lettaCodeAgent(['web_search', 'fetch_webpage']), tenant.apiKey.key);
    expect(created.status).toBe(200);
    const agent = await created.json();
    expect(agent).toMatchObject({ agent_type: 'letta_v1_agent', tags: ['origin:letta-code'], tool_rules: [] });
    expect(agent.llm_config.context_window).toBe(32000);
    expect(await toolNamesOf(agent.id, tenant.apiKey.key)).toEqual(['fetch_webpage:letta_builtin', 'web_search:letta_builtin']);
  });

  it('attach the omni memory tool by name, as `--base-tools memory` asks', async () => {
    const created = await post('/agents/', lettaCodeAgent(['memory', 'memory_apply_patch', 'web_search', 'fetch_webpage']));
    expect(created.status).toBe(200);
    expect(await toolNamesOf((await created.json()).id)).toEqual([
      'fetch_webpage:letta_builtin', 'memory:letta_memory_core', 'memory_apply_patch:letta_memory_core', 'web_search:letta_builtin',
    ]);
  });
});
