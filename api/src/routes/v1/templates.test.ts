import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { maskSecret } from '@engram/db';
import { startAgentTestContext } from '@engram/testing/agent-test-context';

const { stack, client, api, send, post, stop } = await startAgentTestContext({ inProcessWorker: false });
afterAll(stop);

const uniqueName = (prefix = 'tpl') => `${prefix}-${randomBytes(4).toString('hex')}`;

/** An agent whose blocks and system prompt hold memory-variable placeholders. */
async function designAgent() {
  return client.agents.create({
    model: 'openai/gpt-4o-mini',
    include_base_tools: false,
    system: 'You are {{botName}}, a support agent.',
    memory_blocks: [
      { label: 'persona', value: 'I am {{botName}}, cheerful.', limit: 2000 },
      { label: 'human', value: 'The user is {{userName}}.', limit: 2000 },
    ],
    tags: ['support'],
  });
}

async function blocksOf(agentId: string) {
  const agent = await client.agents.retrieve(agentId, { include: ['agent.blocks'] });
  return Object.fromEntries(agent.blocks.map((block) => [block.label, block.value]));
}

async function validationMessages(response: Response): Promise<string[]> {
  expect(response.status).toBe(422);
  return ((await response.json()) as { detail: Array<{ msg: string }> }).detail.map((issue) => issue.msg);
}

describe('templates through the official client', () => {
  it('creates a template from an agent, creates agents from it with memory variables, saves, rolls back and deletes', async () => {
    const design = await designAgent();
    const name = uniqueName();
    const created = await client.templates.create({ type: 'agent', agent_id: design.id, name });
    expect(created).toEqual({
      id: expect.stringMatching(/^template-/),
      name,
      latest_version: '1',
      project_id: stack.tenant.projectId,
      project_slug: expect.any(String),
      template_deployment_slug: `${created.project_slug}/${name}:1`,
      updated_at: expect.any(String),
    });

    const deployed = await client.templates.agents.create(`${name}:latest`, {
      agent_name: 'first agent',
      tags: ['customer 1'],
      memory_variables: { botName: 'Ava', userName: 'Kim' },
    });
    expect(deployed).toEqual({ agent_ids: [expect.stringMatching(/^agent-/)], deployment_id: expect.stringMatching(/^deployment-/), group_id: null });
    const agentId = deployed.agent_ids[0]!;
    const agent = await client.agents.retrieve(agentId, { include: ['agent.tags'] });
    expect(agent).toMatchObject({ name: 'first agent', template_id: created.id, base_template_id: created.id, deployment_id: deployed.deployment_id });
    expect(agent.system).toBe('You are Ava, a support agent.');
    expect([...agent.tags].sort()).toEqual(['customer 1', 'support']);
    expect(await blocksOf(agentId)).toEqual({ persona: 'I am Ava, cheerful.', human: 'The user is Kim.' });

    const listed = await (await api(`/agents/?template_id=${created.id}`)).json();
    expect(listed.map((entry: { id: string }) => entry.id)).toEqual([agentId]);
    expect(await (await api(`/agents/count?template_id=${created.id}`)).json()).toBe(1);

    // The working version changes through an agent file; saving makes version 2.
    const exported = await (await api(`/agents/${design.id}/export`)).json();
    exported.agents[0].system = 'You are {{botName}}, a sales agent.';
    expect(await client.templates.update(name, { agent_file_json: exported })).toEqual({ success: true, message: `Template '${name}' updated` });
    const saved = await client.templates.save(name, { message: 'sales pitch' });
    expect(saved.latest_version).toBe('2');
    const versions = await (await api(`/templates/${name}/versions`)).json();
    expect(versions).toEqual({
      versions: [
        { version: '2', created_at: expect.any(String), message: 'sales pitch', is_latest: true },
        { version: '1', created_at: expect.any(String), message: 'Initial version', is_latest: false },
      ],
      has_next_page: false,
    });
    expect((await (await api(`/templates/${name}:2/snapshot`)).json()).system).toBe('You are {{botName}}, a sales agent.');
    expect((await (await api(`/templates/${name}:1/snapshot`)).json()).system).toBe('You are {{botName}}, a support agent.');

    expect(await client.templates.rollback(name, { version: '1' })).toEqual({ success: true, message: 'Rolled back to version 1' });
    expect((await (await api(`/templates/${name}:dev/snapshot`)).json()).system).toBe('You are {{botName}}, a support agent.');

    const refused = await send('DELETE', `/templates/${name}`);
    expect(refused.status).toBe(409);
    expect((await refused.json()).detail).toBe(
      `Template '${name}' still has 1 agent created from it; delete them first, or delete the template with force=true`,
    );
    expect(await (await send('DELETE', `/templates/${name}?force=true`)).json()).toEqual({ success: true });
    expect((await api(`/templates/${name}:latest/snapshot`)).status).toBe(404);
    // The agent stays, no longer tied to a template that is gone.
    expect((await client.agents.retrieve(agentId)).template_id).toBeNull();
  });

  it('fills missing memory variables from their defaults and refuses a missing one without a default, naming it', async () => {
    const design = await designAgent();
    const name = uniqueName();
    const template = await client.templates.create({ type: 'agent', agent_id: design.id, name });

    const missing = await post(`/templates/${name}:latest/agents`, { memory_variables: { botName: 'Ava' } });
    expect(await validationMessages(missing)).toEqual(['Missing memory variable without a default: userName']);
    const bothMissing = await post(`/templates/${name}:1/agents`, {});
    expect(await validationMessages(bothMissing)).toEqual(['Missing memory variables without a default: botName, userName']);

    // A declared default fills the gap (declared in the working version, as the console's editor does, then saved).
    const ctx = { organizationId: stack.tenant.organizationId, userId: stack.tenant.userId, role: 'admin' as const, requestId: 'test', project: {} };
    await stack.services.templates.updateWorkingState(ctx, template.id, {
      memoryVariables: [{ key: 'userName', defaultValue: 'friend', type: 'string' }],
    });
    await client.templates.save(name, { message: 'default user name' });
    const fromDefault = await client.templates.agents.create(`${name}:latest`, { memory_variables: { botName: 'Bo' } });
    expect(await blocksOf(fromDefault.agent_ids[0]!)).toEqual({ persona: 'I am Bo, cheerful.', human: 'The user is friend.' });
  });

  it('creates an agent from a template with POST /v1/agents from_template and memory_variables', async () => {
    const design = await designAgent();
    const name = uniqueName();
    const template = await client.templates.create({ type: 'agent', agent_id: design.id, name });
    const agent = await client.agents.create({ from_template: `${name}:latest`, memory_variables: { botName: 'Cy', userName: 'Lee' }, name: 'from-template' });
    expect(agent).toMatchObject({ name: 'from-template', template_id: template.id, system: 'You are Cy, a support agent.' });
    expect(await blocksOf(agent.id)).toEqual({ persona: 'I am Cy, cheerful.', human: 'The user is Lee.' });

    const missing = await post('/agents/', { from_template: `${name}:latest`, memory_variables: { botName: 'Cy' } });
    expect(await validationMessages(missing)).toEqual(['Missing memory variable without a default: userName']);
    expect((await post('/agents/', { from_template: 'no-such-template:latest' })).status).toBe(404);

    const asTemplate = await post('/agents/', { model: 'openai/gpt-4o-mini', include_base_tools: false, name: uniqueName('agent'), template: true });
    expect(asTemplate.status).toBe(200);
    const made = await asTemplate.json();
    const templates = await (await api(`/templates?name=${made.name}`)).json();
    expect(templates.templates.map((entry: { name: string }) => entry.name)).toEqual([made.name]);
  });

  it('refuses bad names, agent names, tags, messages and limits with the spec messages', async () => {
    const design = await designAgent();
    const badName = await post('/templates', { type: 'agent', agent_id: design.id, name: 'no spaces!' });
    expect(await validationMessages(badName)).toEqual(['Template name can only contain alphanumeric characters, underscores, and dashes']);

    const name = uniqueName();
    await client.templates.create({ type: 'agent', agent_id: design.id, name });
    const duplicate = await post('/templates', { type: 'agent', agent_id: design.id, name });
    expect(duplicate.status).toBe(409);

    const vars = { botName: 'A', userName: 'B' };
    expect(await validationMessages(await post(`/templates/${name}:latest/agents`, { agent_name: 'bad/name', memory_variables: vars }))).toEqual([
      'Agent name can only contain alphanumeric characters, spaces, dashes, and underscores',
    ]);
    expect(await validationMessages(await post(`/templates/${name}:latest/agents`, { tags: ['ok', 'not@ok'], memory_variables: vars }))).toEqual([
      'Tags can only contain alphanumeric characters, spaces, dashes, and underscores',
    ]);
    const badRole = await post(`/templates/${name}:latest/agents`, { initial_message_sequence: [{ role: 'tool', content: 'x' }], memory_variables: vars });
    expect(badRole.status).toBe(422);
    expect(await validationMessages(await api('/templates?limit=0'))).toEqual(['Limit must be between 1 and 100']);
    expect(await validationMessages(await api('/templates?limit=101'))).toEqual(['Limit must be between 1 and 100']);
    const renamed = await send('PATCH', `/templates/${name}/name`, { new_name: 'bad name' });
    expect(await validationMessages(renamed)).toEqual(['Template name can only contain alphanumeric characters, underscores, and dashes']);
    expect((await post(`/templates/${name}:7/agents`, { memory_variables: vars })).status).toBe(404);
    expect(await validationMessages(await post(`/templates/${name}/rollback`, { version: 'dev' }))).toEqual(["Cannot roll back to 'dev' or 'current'"]);
  });

  it('forks, renames, describes and lists templates, and starts agents with an initial message sequence', async () => {
    const design = await designAgent();
    const name = uniqueName();
    await client.templates.create({ type: 'agent', agent_id: design.id, name });
    const forkName = uniqueName('fork');
    const fork = await (await post(`/templates/${name}/fork`, { name: forkName })).json();
    expect(fork).toMatchObject({ name: forkName, latest_version: '1' });
    const renamed = await (await send('PATCH', `/templates/${forkName}/name`, { new_name: `${forkName}-b` })).json();
    expect(renamed.name).toBe(`${forkName}-b`);
    const described = await (await send('PATCH', `/templates/${forkName}-b/description`, { description: 'For sales' })).json();
    expect(described.description).toBe('For sales');
    const listed = await (await api(`/templates?search=${forkName}`)).json();
    expect(listed.templates.map((entry: { name: string }) => entry.name)).toEqual([`${forkName}-b`]);

    const deployed = await client.templates.agents.create(`${name}:1`, {
      memory_variables: { botName: 'Di', userName: 'Mo' },
      initial_message_sequence: [{ role: 'assistant', content: 'Hello from Di' }],
    });
    const messages = await client.agents.messages.list(deployed.agent_ids[0]!);
    expect(messages.items.some((message) => message.message_type === 'assistant_message' && message.content === 'Hello from Di')).toBe(true);

    const entities = await (await api(`/_internal_templates/deployment/${deployed.deployment_id}`)).json();
    expect(entities).toMatchObject({ deployment_id: deployed.deployment_id, total_count: 1, entities: [{ id: deployed.agent_ids[0], type: 'agent' }] });
    const removed = await (await send('DELETE', `/_internal_templates/deployment/${deployed.deployment_id}`)).json();
    expect(removed).toMatchObject({ deleted_agents: 1, deleted_blocks: 2, deleted_groups: 0 });
    expect((await api(`/agents/${deployed.agent_ids[0]}`)).status).toBe(404);
  });
});

describe('identities and tool variables of agents made from a template', () => {
  it("links the template's and the request's identities and turns tool variables into the agent's secrets", async () => {
    const design = await designAgent();
    const name = uniqueName();
    const template = await client.templates.create({ type: 'agent', agent_id: design.id, name });
    const ctx = { organizationId: stack.tenant.organizationId, userId: stack.tenant.userId, role: 'admin' as const, requestId: 'test', project: {} };
    await stack.services.templates.updateWorkingState(ctx, template.id, {
      toolVariables: [
        { key: 'SERVICE_URL', defaultValue: 'https://service.example.com/api', type: 'string' },
        { key: 'SERVICE_TOKEN', defaultValue: null, type: 'string' },
      ],
    });
    await client.templates.save(name, { message: 'tool variables' });
    const identity = await (await post('/identities/', { identifier_key: uniqueName('user'), name: 'Kim', identity_type: 'user' })).json();

    const deployed = await client.templates.agents.create(`${name}:latest`, {
      memory_variables: { botName: 'Ava', userName: 'Kim' },
      identity_ids: [identity.id],
      tool_variables: { SERVICE_TOKEN: 'token-of-kim-123' },
    });
    const agent = await client.agents.retrieve(deployed.agent_ids[0]!, { include: ['agent.secrets', 'agent.identities'] });
    expect(agent.identity_ids).toEqual([identity.id]);
    expect(Object.fromEntries((agent.secrets ?? []).map((secret) => [secret.key, secret.value]))).toEqual({
      SERVICE_URL: maskSecret('https://service.example.com/api'),
      SERVICE_TOKEN: maskSecret('token-of-kim-123'),
    });
    expect((await api(`/agents/?identity_id=${identity.id}`).then((response) => response.json())).map((entry: { id: string }) => entry.id)).toEqual([agent.id]);

    const unknown = await post(`/templates/${name}:latest/agents`, { memory_variables: { botName: 'A', userName: 'B' }, identity_ids: [`identity-${crypto.randomUUID()}`] });
    expect(unknown.status).toBe(404);
  });
});

describe('entities of a deployment made one by one (_internal_templates)', () => {
  const origin = () => ({
    template_id: `template-${crypto.randomUUID()}`,
    base_template_id: `template-${crypto.randomUUID()}`,
    deployment_id: `deployment-${crypto.randomUUID()}`,
    entity_id: `entity-${crypto.randomUUID()}`,
  });

  it('creates agents and blocks that carry their template, deployment and entity', async () => {
    const ids = origin();
    const created = await post('/_internal_templates/agents', {
      ...ids,
      model: 'openai/gpt-4o-mini',
      include_base_tools: false,
      memory_blocks: [{ label: 'persona', value: 'An orchestrated agent.' }],
    });
    expect(created.status).toBe(200);
    const agent = await created.json();
    expect(agent).toMatchObject({ template_id: ids.template_id, base_template_id: ids.base_template_id, deployment_id: ids.deployment_id, entity_id: ids.entity_id });
    const listed = await (await api(`/agents/?template_id=${ids.template_id}`)).json();
    expect(listed.map((entry: { id: string }) => entry.id)).toEqual([agent.id]);
    expect((await post('/_internal_templates/agents', { model: 'openai/gpt-4o-mini', template_id: ids.template_id })).status).toBe(422);

    const block = await (await post('/_internal_templates/blocks', { ...ids, label: 'policy', value: 'Refunds within 30 days.' })).json();
    expect(block).toMatchObject({ label: 'policy', template_id: ids.template_id, deployment_id: ids.deployment_id, entity_id: ids.entity_id });

    const batch = await post('/_internal_templates/blocks/batch', [
      { ...ids, label: 'first', value: 'One.' },
      { ...ids, label: 'second', value: 'Two.' },
    ]);
    expect(batch.status).toBe(200);
    expect((await batch.json()).map((entry: { label: string; entity_id: string }) => [entry.label, entry.entity_id])).toEqual([
      ['first', ids.entity_id],
      ['second', ids.entity_id],
    ]);

    const before = await (await api('/blocks/count')).json();
    const refused = await post('/_internal_templates/blocks/batch', [
      { ...ids, label: 'fits', value: 'ok', limit: 10 },
      { ...ids, label: 'too-long', value: 'far too long for its limit', limit: 5 },
    ]);
    expect(refused.status).toBe(422);
    expect((await refused.json()).detail[0].loc).toEqual(['body', 1, 'value']);
    expect(await (await api('/blocks/count')).json()).toBe(before);
  });
});
