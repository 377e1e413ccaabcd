import { afterAll, describe, expect, it } from 'vitest';
import Letta from '@letta-ai/letta-client';
import { startAgentTestContext } from '@engram/testing/agent-test-context';
import { signUp, type ConsoleUser } from './console-test-support.js';

const { stack, model, stop } = await startAgentTestContext();
afterAll(stop);

type Fixture = { user: ConsoleUser; apiKey: string; client: Letta; designId: string; templateId: string; name: string };

let counter = 0;
const uniqueName = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${counter++}`;

/** A console user of a fresh organization with a /v1 client, and a template (version 1) of a designed agent. */
async function templateFixture(blocks: Array<{ label: string; value: string; limit?: number }>, system = 'You are {{botName}}.'): Promise<Fixture> {
  const user = await signUp(stack);
  const apiKey: string = (await user.client.post('/api-keys', { name: 'editing' })).body.apiKey;
  const client = new Letta({ apiKey, baseURL: stack.baseUrl, maxRetries: 0 });
  const design = await client.agents.create({
    model: 'openai/gpt-4o-mini',
    include_base_tools: false,
    system,
    memory_blocks: blocks.map((block) => ({ limit: 2000, ...block })),
  });
  const name = uniqueName('tpl');
  const created = await user.client.post('/agent-templates', { name, agentId: design.id });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  // A template made in the console has no version until the editor saves one.
  expect(created.body).toMatchObject({ latestDeployedVersion: '0', latestDeployedId: null, hasUnsavedChanges: true });
  const first = await user.client.post(`/agent-templates/${created.body.id}/versions`, { message: 'first' });
  expect(first.body.version.version).toBe('1');
  return { user, apiKey, client, designId: design.id, templateId: created.body.id, name };
}

async function blocksOf(client: Letta, agentId: string): Promise<Record<string, string>> {
  const agent = await client.agents.retrieve(agentId, { include: ['agent.blocks'] });
  return Object.fromEntries(agent.blocks.map((block) => [block.label, block.value]));
}

async function saveVersion(fixture: Fixture, message: string): Promise<string> {
  const saved = await fixture.user.client.post(`/agent-templates/${fixture.templateId}/versions`, { message });
  expect(saved.status, JSON.stringify(saved.body)).toBe(201);
  return saved.body.version.version;
}

async function deploy(fixture: Fixture, version: string, memoryVariables: Record<string, string>, count = 1): Promise<string[]> {
  const deployed = await fixture.user.client.post(`/template-versions/${fixture.name}:${version}/agents`, { count, memoryVariables });
  expect(deployed.status, JSON.stringify(deployed.body)).toBe(201);
  return deployed.body.agentIds;
}

async function migrateAndWait(fixture: Fixture, version: string, strategy: 'reconcile-all' | 'preserve-deleted') {
  const started = await fixture.user.client.post(`/template-versions/${fixture.name}:${version}/migrate`, { blockReconciliationStrategy: strategy });
  expect(started.status, JSON.stringify(started.body)).toBe(201);
  await expect
    .poll(async () => {
      const listed = await fixture.user.client.get(`/agent-templates/migrations?templateId=${fixture.templateId}`);
      return listed.body.migrations.find((migration: { workflowId: string }) => migration.workflowId === started.body.workflowId)?.status;
    }, { timeout: 60_000, interval: 100 })
    .toBe('completed');
}

describe('block templates', () => {
  it('refuses a block template without a label or with a limit below 1, with the spec messages, and fills the defaults', async () => {
    const user = await signUp(stack);
    const noLabel = await user.client.post('/block-templates', { value: 'x' });
    expect(noLabel.status).toBe(400);
    expect(noLabel.body).toMatchObject({ errorCode: 'validation', message: 'Label is required' });
    expect((await user.client.post('/block-templates', { label: '', value: 'x' })).body.message).toBe('Label is required');
    expect((await user.client.post('/block-templates', { label: 'notes', value: 'x', limit: 0 })).body.message).toBe('Limit must be at least 1');

    const created = await user.client.post('/block-templates', { label: 'notes', value: '' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^block_template-/),
      entityId: created.body.id,
      label: 'notes',
      value: '',
      limit: 1,
      description: null,
      preserveOnMigration: false,
      readOnly: false,
      projectId: expect.stringMatching(/^project-/),
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect((await user.client.patch(`/block-templates/${created.body.id}`, { label: ' ' })).body.message).toBe('Label is required');
    expect((await user.client.patch(`/block-templates/${created.body.id}`, { limit: 0 })).body.message).toBe('Limit must be at least 1');
    const updated = await user.client.patch(`/block-templates/${created.body.id}`, { limit: 500, value: 'Things to remember.', readOnly: true });
    expect(updated.body).toMatchObject({ limit: 500, value: 'Things to remember.', readOnly: true });
    expect((await user.client.get(`/block-templates/${created.body.id}`)).body.value).toBe('Things to remember.');
    const listed = await user.client.get('/block-templates?search=note');
    expect(listed.body).toEqual({ blockTemplates: [updated.body], hasNextPage: false });
    expect((await user.client.get('/block-templates?search=zzz')).body.blockTemplates).toEqual([]);
    expect((await user.client.delete(`/block-templates/${created.body.id}`)).body).toEqual({ success: true });
    expect((await user.client.get(`/block-templates/${created.body.id}`)).status).toBe(404);
  });

  it('attaches to a template, reaches the agents made from its versions, follows its edits, and detaches', async () => {
    const fixture = await templateFixture([{ label: 'persona', value: 'I am {{botName}}.' }]);
    const { client: console } = fixture.user;
    const shared = await console.post('/block-templates', { label: 'policy', value: 'Refunds within {{days}} days.', limit: 200, preserveOnMigration: true });
    expect(shared.status, JSON.stringify(shared.body)).toBe(201);
    const attached = await console.post(`/agent-templates/${fixture.templateId}/block-templates/${shared.body.id}`);
    expect(attached.status, JSON.stringify(attached.body)).toBe(201);
    expect((await console.post(`/agent-templates/${fixture.templateId}/block-templates/${shared.body.id}`)).body).toMatchObject({ errorCode: 'conflict' });
    const clash = await console.post('/block-templates', { label: 'persona', value: 'Another persona.', limit: 100 });
    const refused = await console.post(`/agent-templates/${fixture.templateId}/block-templates/${clash.body.id}`);
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({ message: "The template already has a block labelled 'persona'", errorCode: 'conflict' });

    const made = await console.post(`/agent-templates/${fixture.templateId}/block-templates`, { label: 'tone', value: 'Warm.', limit: 100 });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body).toMatchObject({ success: true, blockTemplate: { label: 'tone', limit: 100 } });
    const onTemplate = await console.get(`/agent-templates/${fixture.templateId}/block-templates`);
    expect(onTemplate.body.blockTemplates.map((entry: { label: string }) => entry.label)).toEqual(['policy', 'tone']);
    const template = await console.get(`/agent-templates/${fixture.templateId}`);
    expect(template.body.agentState.blocks.find((block: { label: string }) => block.label === 'policy')).toEqual({
      label: 'policy',
      value: 'Refunds within {{days}} days.',
      limit: 200,
      description: null,
      readOnly: false,
      preserveOnMigration: true,
      blockTemplateId: shared.body.id,
    });
    expect(template.body.hasUnsavedChanges).toBe(true);
    expect(template.body.agentState.memoryVariables.map((variable: { key: string }) => variable.key)).toEqual(['botName', 'days']);

    await saveVersion(fixture, 'policy and tone');
    const [agentId] = await deploy(fixture, '2', { botName: 'Ava', days: '30' });
    expect(await blocksOf(fixture.client, agentId!)).toEqual({ persona: 'I am Ava.', policy: 'Refunds within 30 days.', tone: 'Warm.' });
    const agent = await fixture.client.agents.retrieve(agentId!, { include: ['agent.blocks'] });
    expect(agent.blocks.find((block) => block.label === 'policy')?.preserve_on_migration).toBe(true);

    // An edit of the block template reaches the working state of the template it is attached to, not its versions.
    await console.patch(`/block-templates/${made.body.blockTemplate.id}`, { value: 'Cheerful.' });
    const edited = await console.get(`/agent-templates/${fixture.templateId}`);
    expect(edited.body.agentState.blocks.find((block: { label: string }) => block.label === 'tone').value).toBe('Cheerful.');
    expect((await console.get(`/template-versions/${fixture.name}:2`)).body.agentState.blocks.find((block: { label: string }) => block.label === 'tone').value).toBe(
      'Warm.',
    );

    const inUse = await console.delete(`/block-templates/${shared.body.id}`);
    expect(inUse.status).toBe(409);
    expect(inUse.body.message).toBe(`Block template 'policy' is attached to 1 template (${fixture.name}); detach it first`);
    expect((await console.delete(`/agent-templates/${fixture.templateId}/block-templates/${shared.body.id}`)).body).toEqual({ success: true });
    expect((await console.delete(`/agent-templates/${fixture.templateId}/block-templates/${shared.body.id}`)).status).toBe(404);
    const detached = await console.get(`/agent-templates/${fixture.templateId}`);
    expect(detached.body.agentState.blocks.map((block: { label: string }) => block.label)).toEqual(['persona', 'tone']);
    expect((await console.delete(`/block-templates/${shared.body.id}`)).body).toEqual({ success: true });
  });
});

describe('migrations and blocks', () => {
  it('keeps preserveOnMigration blocks, keeps dropped blocks with preserve-deleted and removes them with reconcile-all', async () => {
    const fixture = await templateFixture([
      { label: 'persona', value: 'I am {{botName}}, version one.' },
      { label: 'notes', value: 'Nothing yet.' },
    ]);
    const { client: console } = fixture.user;
    const human = await console.post(`/agent-templates/${fixture.templateId}/block-templates`, {
      label: 'human',
      value: 'The user is {{userName}}.',
      limit: 500,
      preserveOnMigration: true,
    });
    expect(human.status).toBe(201);
    await saveVersion(fixture, 'with human');
    const [first, second] = await deploy(fixture, '2', { botName: 'Ava', userName: 'Kim' }, 2);
    // What each agent learned on its own.
    for (const [agentId, learned] of [
      [first!, 'The user is Kim, who likes tea.'],
      [second!, 'The user is Kim, who likes coffee.'],
    ] as const) {
      await fixture.client.agents.blocks.update('human', { agent_id: agentId, value: learned });
      await fixture.client.agents.blocks.update('notes', { agent_id: agentId, value: `Notes of ${agentId}.` });
    }

    const template = await console.get(`/agent-templates/${fixture.templateId}`);
    const blocks = template.body.agentState.blocks
      .filter((block: { label: string }) => block.label !== 'notes')
      .map((block: { label: string }) => (block.label === 'persona' ? { ...block, value: 'I am {{botName}}, version two.' } : block));
    expect((await console.patch(`/agent-templates/${fixture.templateId}`, { blocks })).status).toBe(200);
    await saveVersion(fixture, 'no notes');
    await migrateAndWait(fixture, '3', 'preserve-deleted');
    expect(await blocksOf(fixture.client, first!)).toEqual({
      persona: 'I am Ava, version two.',
      notes: `Notes of ${first}.`,
      human: 'The user is Kim, who likes tea.',
    });

    await console.patch(`/agent-templates/${fixture.templateId}`, { blocks, temperature: 0.3 });
    await saveVersion(fixture, 'cooler');
    await migrateAndWait(fixture, '4', 'reconcile-all');
    expect(await blocksOf(fixture.client, first!)).toEqual({ persona: 'I am Ava, version two.', human: 'The user is Kim, who likes tea.' });
    expect(await blocksOf(fixture.client, second!)).toEqual({ persona: 'I am Ava, version two.', human: 'The user is Kim, who likes coffee.' });
    expect((await fixture.client.agents.retrieve(second!)).llm_config.temperature).toBe(0.3);
  }, 180_000);
});

describe('simulated agents', () => {
  it("is built hidden from the working state, follows the template's changes, and carries edits made on it back", async () => {
    const fixture = await templateFixture([
      { label: 'persona', value: 'I am {{botName}}.' },
      { label: 'human', value: 'The user is {{userName}}.' },
    ]);
    const { client: console } = fixture.user;
    await console.patch(`/agent-templates/${fixture.templateId}`, { memoryVariables: [{ key: 'botName', defaultValue: 'Ava', type: 'string' }] });
    // userName has no default: until the simulation has a value for it, no agent is built with `{{userName}}` in it.
    const unbuilt = await console.get(`/agent-templates/${fixture.templateId}/simulated-agents/default`);
    expect(unbuilt.status, JSON.stringify(unbuilt.body)).toBe(200);
    expect(unbuilt.body).toMatchObject({ agentId: null, isCorrupted: true, reason: 'Missing memory variable without a default: userName' });
    expect((await console.put(`/simulated-agents/${unbuilt.body.id}/variables`, { memoryVariables: { userName: 'Kim' } })).status).toBe(200);
    const simulated = await console.get(`/agent-templates/${fixture.templateId}/simulated-agents/default`);
    expect(simulated.body).toEqual({
      id: unbuilt.body.id,
      name: `${fixture.name}-simulated`,
      agentId: expect.stringMatching(/^agent-/),
      agentTemplateId: fixture.templateId,
      isCorrupted: false,
      reason: null,
    });
    const again = await console.get(`/agent-templates/${fixture.templateId}/simulated-agents/default`);
    expect(again.body.agentId).toBe(simulated.body.agentId);
    const agentId: string = simulated.body.agentId;
    // Defaults fill what the simulated agent has no value for.
    expect(await blocksOf(fixture.client, agentId)).toEqual({ persona: 'I am Ava.', human: 'The user is Kim.' });
    const listed = await fixture.client.agents.list();
    expect(listed.items.map((agent) => agent.id)).toEqual([fixture.designId]);
    expect(await (await fetch(`${stack.baseUrl}/v1/agents/count`, { headers: { authorization: `Bearer ${fixture.apiKey}` } })).json()).toBe(1);
    expect((await fixture.client.agents.retrieve(agentId)).hidden).toBe(true);

    const variables = await console.put(`/simulated-agents/${simulated.body.id}/variables`, { memoryVariables: { userName: 'Kim', botName: 'Bo' } });
    expect(variables.body).toEqual({ memoryVariables: { userName: 'Kim', botName: 'Bo' } });
    expect((await console.get(`/simulated-agents/${simulated.body.id}/variables`)).body).toEqual(variables.body);
    expect(await blocksOf(fixture.client, agentId)).toEqual({ persona: 'I am Bo.', human: 'The user is Kim.' });

    // A change of the working state reaches the agent; its conversation stays.
    model.enqueue({ type: 'text', text: 'Hello Kim.' });
    await fixture.client.agents.messages.create(agentId, { messages: [{ role: 'user', content: 'Hi' }] });
    const template = await console.get(`/agent-templates/${fixture.templateId}`);
    const blocks = template.body.agentState.blocks.map((block: { label: string }) =>
      block.label === 'persona' ? { ...block, value: 'I am {{botName}}, improved.' } : block,
    );
    await console.patch(`/agent-templates/${fixture.templateId}`, { blocks });
    expect((await blocksOf(fixture.client, agentId)).persona).toBe('I am Bo, improved.');
    const history = await fixture.client.agents.messages.list(agentId);
    expect(history.items.some((message) => message.message_type === 'assistant_message' && message.content === 'Hello Kim.')).toBe(true);

    // Settings edited on the agent go into the working state with a sync; its blocks stay the template's.
    await fixture.client.agents.update(agentId, { system: 'You are Bo, brief.', tags: ['beta'] });
    await fixture.client.agents.blocks.update('human', { agent_id: agentId, value: 'Something the agent learned.' });
    expect((await console.post(`/agent-templates/${fixture.templateId}/simulated-agents/default/sync`)).body).toEqual({ success: true });
    const synced = await console.get(`/agent-templates/${fixture.templateId}`);
    expect(synced.body.agentState).toMatchObject({ systemPrompt: 'You are Bo, brief.', tags: ['beta'] });
    expect(synced.body.agentState.blocks.map((block: { value: string }) => block.value)).toEqual(['I am {{botName}}, improved.', 'The user is {{userName}}.']);
    expect(await blocksOf(fixture.client, agentId)).toEqual({ persona: 'I am Bo, improved.', human: 'The user is Kim.' });
    // An identity linked to the agent joins the template; one the template drops leaves the agent.
    const v1 = (method: string, path: string, body?: unknown) =>
      fetch(`${stack.baseUrl}/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${fixture.apiKey}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
    const identity = (await (await v1('POST', '/identities/', { identifier_key: uniqueName('kim'), name: 'Kim', identity_type: 'user' })).json()) as { id: string };
    expect((await v1('PATCH', `/agents/${agentId}/identities/attach/${identity.id}`)).status).toBe(200);
    await console.post(`/agent-templates/${fixture.templateId}/simulated-agents/default/sync`);
    expect((await console.get(`/agent-templates/${fixture.templateId}`)).body.agentState.identityIds).toEqual([identity.id]);
    await console.patch(`/agent-templates/${fixture.templateId}`, { identityIds: [] });
    expect((await fixture.client.agents.retrieve(agentId)).identity_ids).toEqual([]);
    // Saving a version takes in edits not synced yet.
    await fixture.client.agents.update(agentId, { system: 'You are Bo, very brief.' });
    await saveVersion(fixture, 'brief');
    expect((await console.get(`/template-versions/${fixture.name}:latest`)).body.agentState.systemPrompt).toBe('You are Bo, very brief.');

    const flushed = await console.post(`/simulated-agents/${simulated.body.id}/flush`);
    expect(flushed.status, JSON.stringify(flushed.body)).toBe(200);
    const afterFlush = await fixture.client.agents.messages.list(agentId);
    expect(afterFlush.items.some((message) => message.message_type === 'assistant_message')).toBe(false);

    const refreshed = await console.post(`/simulated-agents/${simulated.body.id}/refresh`);
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
    expect(refreshed.body.agentId).not.toBe(agentId);
    expect((await fixture.client.agents.retrieve(refreshed.body.agentId)).system).toBe('You are Bo, very brief.');
    await expect(fixture.client.agents.retrieve(agentId)).rejects.toMatchObject({ status: 404 });
  }, 120_000);

  it('is corrupted while the working state cannot be built, answering rebuilds 500 with the reason, until it can', async () => {
    const fixture = await templateFixture([{ label: 'persona', value: 'I am {{botName}}.', limit: 20 }]);
    const { client: console } = fixture.user;
    const unbuilt = await console.get(`/agent-templates/${fixture.templateId}/simulated-agents/default`);
    expect((await console.put(`/simulated-agents/${unbuilt.body.id}/variables`, { memoryVariables: { botName: 'Bo' } })).status).toBe(200);
    const simulated = await console.get(`/agent-templates/${fixture.templateId}/simulated-agents/default`);
    expect(simulated.body).toMatchObject({ agentId: expect.stringMatching(/^agent-/), isCorrupted: false });
    const longName = 'a very long name that does not fit';
    const refused = await console.put(`/simulated-agents/${simulated.body.id}/variables`, { memoryVariables: { botName: longName } });
    expect(refused.status).toBe(500);
    expect(refused.body).toEqual({
      message: `The simulated agent could not be built from the template: Block 'persona' would hold ${`I am ${longName}.`.length} characters, more than its limit of 20`,
      errorCode: 'simulatedAgentCorrupted',
    });
    const corrupted = await console.get(`/agent-templates/${fixture.templateId}/simulated-agents/default`);
    expect(corrupted.body).toMatchObject({ agentId: simulated.body.agentId, isCorrupted: true, reason: expect.stringContaining("Block 'persona'") });
    expect((await console.post(`/simulated-agents/${simulated.body.id}/refresh`)).status).toBe(500);

    const template = await console.get(`/agent-templates/${fixture.templateId}`);
    const blocks = template.body.agentState.blocks.map((block: object) => ({ ...block, limit: 200 }));
    await console.patch(`/agent-templates/${fixture.templateId}`, { blocks });
    const repaired = await console.get(`/agent-templates/${fixture.templateId}/simulated-agents/default`);
    expect(repaired.body).toMatchObject({ isCorrupted: false, reason: null });
    expect(await blocksOf(fixture.client, repaired.body.agentId)).toEqual({ persona: `I am ${longName}.` });
  });
});

describe('templates in the console', () => {
  it('imports a template from an agent file, with the console name rules', async () => {
    const fixture = await templateFixture([{ label: 'persona', value: 'I am {{botName}}.' }]);
    const exported: unknown = await (await fetch(`${stack.baseUrl}/v1/agents/${fixture.designId}/export`, { headers: { authorization: `Bearer ${fixture.apiKey}` } })).json();
    const upload = (name: string) => {
      const form = new FormData();
      form.append('name', name);
      form.append('file', new Blob([JSON.stringify(exported)], { type: 'application/json' }), 'agent.af');
      return fetch(`${stack.baseUrl}/api/agent-template/import`, { method: 'POST', headers: { cookie: fixture.user.client.jar.header()! }, body: form });
    };
    const messageOf = async (response: Response) => ((await response.json()) as { message: string }).message;
    const short = await upload('ab');
    expect(short.status).toBe(400);
    expect(await messageOf(short)).toBe('Name must be at least 3 characters long');
    expect(await messageOf(await upload('has spaces'))).toBe('Name must be alphanumeric with underscores or dashes');
    const name = uniqueName('imported');
    const imported = await upload(name);
    expect(imported.status).toBe(201);
    const body = (await imported.json()) as { agentState: { blocks: Array<{ value: string }> } };
    expect(body).toMatchObject({ name, latestDeployedVersion: '0', hasUnsavedChanges: true });
    expect(body.agentState.blocks.map((block) => block.value)).toEqual(['I am {{botName}}.']);
    const broken = new FormData();
    broken.append('name', uniqueName('broken'));
    broken.append('file', new Blob(['not json'], { type: 'application/json' }), 'agent.af');
    const refused = await fetch(`${stack.baseUrl}/api/agent-template/import`, { method: 'POST', headers: { cookie: fixture.user.client.jar.header()! }, body: broken });
    expect(refused.status).toBe(400);
    expect(await messageOf(refused)).toBe('The agent file is not valid JSON');
  });

  it('finds a template by its agent entity, a version as a deployed template, and a version’s memory variables', async () => {
    const fixture = await templateFixture([{ label: 'persona', value: 'I am {{botName}}.' }]);
    const { client: console } = fixture.user;
    const template = await console.get(`/agent-templates/${fixture.templateId}`);
    expect(template.body.entityId).toMatch(/^entity-/);
    const [agentId] = await deploy(fixture, '1', { botName: 'Ava' });
    expect((await fixture.client.agents.retrieve(agentId!)).entity_id).toBe(template.body.entityId);

    const entity = await console.get(`/templates/${fixture.templateId}/agents/${template.body.entityId}`);
    expect(entity.status).toBe(200);
    expect(entity.body).toMatchObject({ id: fixture.templateId, name: fixture.name });
    const wrongEntity = await console.get(`/templates/${fixture.templateId}/agents/entity-${crypto.randomUUID()}`);
    expect(wrongEntity.status).toBe(404);
    expect(wrongEntity.body).toEqual({ error: 'Template agent not found' });

    const deployed = await console.get(`/deployed-agent-templates/${template.body.latestDeployedId}`);
    expect(deployed.body).toEqual({
      id: template.body.latestDeployedId,
      fullVersion: `${fixture.name}:1`,
      agentTemplateId: fixture.templateId,
      templateName: fixture.name,
      projectId: template.body.projectId,
      createdAt: expect.any(String),
    });
    const variables = await console.get(`/agent-templates-memory-variables?templateVersion=${fixture.name}:1`);
    expect(variables.body).toEqual({ memoryVariables: [{ key: 'botName', defaultValue: null, type: 'string' }] });
  });
});
