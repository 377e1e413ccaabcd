import { afterAll, describe, expect, it } from 'vitest';
import { BASE_TOOLS, defaultToolNamesFor } from '@engram/core';
import { Tool, ensureBaseTools } from '@engram/db';
import { startAgentTestContext } from '@engram/testing/agent-test-context';

const { stack, client, api, systemMessageText, stop } = await startAgentTestContext({ inProcessWorker: false });
afterAll(stop);

const toolRulesOf = async (agentId: string) => (await client.agents.retrieve(agentId)).tool_rules;

describe('the base tools of an organization', () => {
  it('are created once, idempotently, even when asked for concurrently', async () => {
    const tenant = await stack.createTenant();
    const [first, second] = await Promise.all([
      ensureBaseTools(stack.db, tenant.organizationId),
      ensureBaseTools(stack.db, tenant.organizationId),
    ]);
    expect([...first.keys()].sort()).toEqual(BASE_TOOLS.map((tool) => tool.name).sort());
    expect([...second.values()].map((tool) => tool.id).sort()).toEqual([...first.values()].map((tool) => tool.id).sort());
    expect(await Tool.query(stack.db).forOrg(tenant.organizationId).resultSize()).toBe(BASE_TOOLS.length);
    expect(first.get('memory_insert')).toMatchObject({ toolType: 'letta_memory_core', jsonSchema: { name: 'memory_insert' } });
  });
});

describe("an agent's tools", () => {
  it('lists the tools with the wire shape, paged', async () => {
    const agent = await client.agents.create({ model: 'openai/gpt-4o-mini' });
    const names: string[] = [];
    for await (const tool of client.agents.tools.list(agent.id, { limit: 1 })) names.push(tool.name!);
    expect(names.sort()).toEqual(defaultToolNamesFor('letta_v1_agent').sort());

    const [tool] = await (await api(`/agents/${agent.id}/tools?limit=1`)).json();
    expect(Object.keys(tool).sort()).toEqual(
      [
        'id', 'tool_type', 'name', 'description', 'source_type', 'source_code', 'json_schema', 'args_json_schema', 'tags',
        'return_char_limit', 'pip_requirements', 'npm_requirements', 'default_requires_approval', 'enable_parallel_execution',
        'metadata_', 'project_id', 'created_by_id', 'last_updated_by_id',
      ].sort(),
    );
    expect(tool).toMatchObject({ return_char_limit: 50_000, enable_parallel_execution: false, metadata_: {} });
  });

  it('attaches and detaches a tool, answering null, and recompiles the system message', async () => {
    const agent = await client.agents.create({ model: 'openai/gpt-4o-mini', include_base_tools: false });
    expect(await systemMessageText(agent.id)).not.toContain('search them with conversation_search');
    const search = await Tool.query(stack.db).forOrg(stack.tenant.organizationId).findOne({ name: 'conversation_search' });

    expect(await client.agents.tools.attach(search!.id, { agent_id: agent.id })).toBeNull();
    expect((await client.agents.retrieve(agent.id, { include: ['agent.tools'] })).tools.map((tool) => tool.name)).toEqual([
      'conversation_search',
    ]);
    expect(await systemMessageText(agent.id)).toContain('search them with conversation_search');

    const raw = await api(`/agents/${agent.id}/tools/detach/${search!.id}`, { method: 'PATCH' });
    expect(raw.status).toBe(200);
    expect(await raw.text()).toBe('null');
    expect((await client.agents.retrieve(agent.id, { include: ['agent.tools'] })).tools).toEqual([]);

    const unknown = await api(`/agents/${agent.id}/tools/attach/tool-00000000-0000-4000-8000-000000000000`, { method: 'PATCH' });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ detail: 'Tool not found' });
  });

  it('toggles approval for a tool through the body, the client and the deprecated query', async () => {
    const agent = await client.agents.create({ model: 'openai/gpt-4o-mini' });
    const approvalRule = { type: 'requires_approval', tool_name: 'memory_insert' };

    expect(await client.agents.tools.updateApproval('memory_insert', { agent_id: agent.id, body_requires_approval: true })).toBeNull();
    expect(await toolRulesOf(agent.id)).toEqual([approvalRule]);

    const again = await api(`/agents/${agent.id}/tools/approval/memory_insert`, {
      method: 'PATCH',
      body: JSON.stringify({ requires_approval: true }),
    });
    expect(await again.text()).toBe('null');
    expect(await toolRulesOf(agent.id)).toEqual([approvalRule]);

    const off = await api(`/agents/${agent.id}/tools/approval/memory_insert?requires_approval=false`, { method: 'PATCH' });
    expect(off.status).toBe(200);
    expect(await toolRulesOf(agent.id)).toEqual([]);

    const missing = await api(`/agents/${agent.id}/tools/approval/memory_insert`, { method: 'PATCH' });
    expect(missing.status).toBe(422);
    expect((await missing.json()).detail[0].loc).toEqual(['body', 'requires_approval']);

    const notAttached = await api(`/agents/${agent.id}/tools/approval/send_message`, {
      method: 'PATCH',
      body: JSON.stringify({ requires_approval: true }),
    });
    expect(notAttached.status).toBe(404);
  });
});

describe('running an agent tool directly', () => {
  const greetSource = [
    'import os',
    '',
    'def greet(name: str, times: int = 1) -> str:',
    '    """Greets someone.',
    '',
    '    Args:',
    '        name: Who to greet.',
    '        times: How often.',
    '    """',
    '    print("greeting", name)',
    '    return " ".join([f"hello {name} from {os.environ[\'GREETING_SOURCE\']}"] * times)',
  ].join('\n');

  it("runs a custom tool with the agent's secrets and returns the execution result", async () => {
    const tool = await client.tools.create({ source_code: greetSource });
    const agent = await client.agents.create({ model: 'openai/gpt-4o-mini', secrets: { GREETING_SOURCE: 'the agent' } });
    await client.agents.tools.attach(tool.id, { agent_id: agent.id });

    const result = await client.agents.tools.run('greet', { agent_id: agent.id, args: { name: 'Ada', times: 2 } });
    expect(result).toEqual({
      status: 'success',
      func_return: 'hello Ada from the agent hello Ada from the agent',
      stdout: ['greeting Ada\n'],
      stderr: [],
      agent_state: null,
      sandbox_config_fingerprint: null,
    });

    const failed = await client.agents.tools.run('greet', { agent_id: agent.id, args: {} });
    expect(failed.status).toBe('error');
    expect(String(failed.func_return)).toMatch(/name/);
  });

  it('runs an archival built-in as the agent would, and refuses the built-ins that only run within a turn', async () => {
    const agent = await client.agents.create({ model: 'openai/gpt-4o-mini', tools: ['archival_memory_insert'] });
    const inserted = await client.agents.tools.run('archival_memory_insert', { agent_id: agent.id, args: { content: 'Ada likes tea' } });
    expect(inserted.status).toBe('success');
    expect((await client.agents.passages.list(agent.id)).map((passage) => passage.text)).toEqual(['Ada likes tea']);

    const inline = await api(`/agents/${agent.id}/tools/memory_insert/run`, { method: 'POST', body: JSON.stringify({ args: { label: 'human', new_string: 'x' } }) });
    expect(inline.status).toBe(400);
    expect((await inline.json()).detail).toMatch(/runs only there/);

    const notAttached = await api(`/agents/${agent.id}/tools/web_search/run`, { method: 'POST', body: JSON.stringify({ args: {} }) });
    expect(notAttached.status).toBe(404);

    const other = await stack.createTenant();
    const foreign = await api(`/agents/${agent.id}/tools/archival_memory_insert/run`, {
      method: 'POST',
      key: other.apiKey.key,
      body: JSON.stringify({ args: { content: 'intruder' } }),
    });
    expect(foreign.status).toBe(404);
    expect((await client.agents.passages.list(agent.id)).map((passage) => passage.text)).toEqual(['Ada likes tea']);
  });
});
