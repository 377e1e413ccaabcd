import { afterAll, describe, expect, it } from 'vitest';
import Letta from '@letta-ai/letta-client';
import { Agent, AgentTemplate, DatasetRun, TemplateMigration, TemplateMigrationAgent, newId } from '@engram/db';
import { migrateTemplateAgent } from '@engram/integrations/templates';
import { startAgentTestContext } from '@engram/testing/agent-test-context';
import { signUp, type ConsoleUser } from './console-test-support.js';

/*
 * One rule wherever a template version becomes an agent: a memory variable without a default must be given, or the
 * operation is refused before any agent is made or changed, naming what is missing. Deploy, migrate (console, /v1
 * and saving with a migration), a dataset run and an A/B arm each refuse such a version and succeed once the values
 * are given; a migration's agents end with the values, never with a `{{…}}` left in them.
 */

const { stack, model, call, stop } = await startAgentTestContext();
afterAll(stop);

let counter = 0;
const uniqueName = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${counter++}`;

type Fixture = { user: ConsoleUser; apiKey: string; client: Letta; templateId: string; name: string };

/** A template whose version 1 needs `botName` (no default), and whose version 2 adds `customer` (no default either). */
async function twoVersions(): Promise<Fixture> {
  const user = await signUp(stack);
  const apiKey: string = (await user.client.post('/api-keys', { name: 'variables' })).body.apiKey;
  const client = new Letta({ apiKey, baseURL: stack.baseUrl, maxRetries: 0 });
  const design = await client.agents.create({
    model: 'openai/gpt-4o-mini',
    include_base_tools: false,
    system: 'You are {{botName}}.',
    memory_blocks: [{ label: 'persona', value: 'I am {{botName}}.', limit: 2000 }],
  });
  const name = uniqueName('vars');
  const created = await user.client.post('/agent-templates', { name, agentId: design.id });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  expect((await user.client.post(`/agent-templates/${created.body.id}/versions`, { message: 'one' })).status).toBe(201);
  const template = await user.client.get(`/agent-templates/${created.body.id}`);
  const blocks = template.body.agentState.blocks.map((block: object) => ({ ...block, value: 'I am {{botName}}, serving {{customer}}.' }));
  expect((await user.client.patch(`/agent-templates/${created.body.id}`, { blocks })).status).toBe(200);
  expect((await user.client.post(`/agent-templates/${created.body.id}/versions`, { message: 'two' })).status).toBe(201);
  return { user, apiKey, client, templateId: created.body.id, name };
}

/** Every agent row of the organization, hidden ones included: what a refused operation must leave as it was. */
async function agentRows(fixture: Fixture) {
  const rows = await Agent.query(stack.db).forOrg(fixture.user.organizationId).orderBy('id');
  return rows.map((agent) => JSON.stringify({ id: agent.id, system: agent.system, version: agent.templateVersionId, variables: agent.memoryVariables }));
}

async function blocksOf(client: Letta, agentId: string): Promise<Record<string, string>> {
  const agent = await client.agents.retrieve(agentId, { include: ['agent.blocks'] });
  return Object.fromEntries(agent.blocks.map((block) => [block.label, block.value]));
}

async function deploy(fixture: Fixture, version: number, body: Record<string, unknown>) {
  return fixture.user.client.post(`/template-versions/${fixture.name}:${version}/agents`, body);
}

describe('deploying a version', () => {
  it('refuses missing variables and a taken name before any agent is made, and names several agents apart', async () => {
    const fixture = await twoVersions();
    const before = await agentRows(fixture);
    const refused = await deploy(fixture, 1, { count: 3 });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ errorCode: 'validation', message: 'Missing memory variable without a default: botName' });
    const refusedV1 = await call(fixture.apiKey, 'POST', `/templates/${fixture.name}:2/agents`, { memory_variables: { botName: 'Ava' } });
    expect(refusedV1.status).toBe(422);
    expect(refusedV1.body.detail).toEqual([{ loc: ['body', 'memory_variables'], msg: 'Missing memory variable without a default: customer', type: 'value_error' }]);
    expect(await agentRows(fixture)).toEqual(before);

    const three = await deploy(fixture, 1, { count: 3, name: 'helper', memoryVariables: { botName: 'Ava' } });
    expect(three.status, JSON.stringify(three.body)).toBe(201);
    const names = await Promise.all(three.body.agentIds.map(async (id: string) => (await fixture.client.agents.retrieve(id)).name));
    expect(names.sort()).toEqual(['helper-1', 'helper-2', 'helper-3']);
    for (const id of three.body.agentIds) expect(await blocksOf(fixture.client, id)).toEqual({ persona: 'I am Ava.' });

    const afterDeploy = await agentRows(fixture);
    const taken = await deploy(fixture, 1, { count: 2, name: 'helper', memoryVariables: { botName: 'Bo' } });
    expect(taken.status).toBe(409);
    expect(taken.body.message).toContain("An agent named 'helper-1' already exists");
    const one = await deploy(fixture, 1, { name: 'solo', memoryVariables: { botName: 'Bo' } });
    expect(one.status).toBe(201);
    expect((await fixture.client.agents.retrieve(one.body.agentIds[0])).name).toBe('solo');
    const again = await deploy(fixture, 1, { name: 'solo', memoryVariables: { botName: 'Bo' } });
    expect(again.status).toBe(409);
    expect((await agentRows(fixture)).length).toBe(afterDeploy.length + 1);
  });
});

describe('migrating agents to a version', () => {
  it('asks for the values the agents lack, refuses without them before anything changes, and fills them in', { timeout: 120_000 }, async () => {
    const fixture = await twoVersions();
    const deployed = await deploy(fixture, 1, { count: 2, memoryVariables: { botName: 'Ava' } });
    expect(deployed.status, JSON.stringify(deployed.body)).toBe(201);
    const agentIds: string[] = deployed.body.agentIds;
    const before = await agentRows(fixture);

    const needs = await fixture.user.client.get(`/template-versions/${fixture.name}:2/migration-requirements`);
    expect(needs.body).toEqual({ agents: 2, missingMemoryVariables: [{ key: 'customer', agents: 2 }] });

    const refusedInConsole = await fixture.user.client.post(`/template-versions/${fixture.name}:2/migrate`, {});
    expect(refusedInConsole.status).toBe(400);
    expect(refusedInConsole.body).toMatchObject({ errorCode: 'validation' });
    expect(refusedInConsole.body.message).toMatch(/^Missing memory variable without a default: customer\. 2 of the template's agents have no value/);
    const v1 = await call(fixture.apiKey, 'POST', `/templates/${fixture.name}:2/migrate`, {});
    expect(v1.status).toBe(422);
    expect(v1.body.detail[0]).toMatchObject({ loc: ['body', 'memory_variables'] });
    // Saving with a migration is refused before the version is saved.
    const saving = await fixture.user.client.post(`/agent-templates/${fixture.templateId}/versions`, { message: 'three', migrate: {} });
    expect(saving.status).toBe(400);
    expect((await AgentTemplate.query(stack.db).findById(fixture.templateId))!.latestVersion).toBe(2);
    expect(await TemplateMigration.query(stack.db).forOrg(fixture.user.organizationId).resultSize()).toBe(0);
    expect(await agentRows(fixture)).toEqual(before);

    const started = await fixture.user.client.post(`/template-versions/${fixture.name}:2/migrate`, { memoryVariables: { customer: 'Acme' } });
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    await expect
      .poll(async () => (await fixture.user.client.get(`/agent-templates/migrations?templateId=${fixture.templateId}`)).body.migrations[0]?.status, {
        timeout: 60_000,
        interval: 100,
      })
      .toBe('completed');
    for (const agentId of agentIds) {
      expect(await blocksOf(fixture.client, agentId)).toEqual({ persona: 'I am Ava, serving Acme.' });
      const agent = (await Agent.query(stack.db).findById(agentId))!;
      expect(agent.memoryVariables).toEqual({ botName: 'Ava', customer: 'Acme' });
      expect(agent.system).toBe('You are Ava.');
    }
    // /v1 takes the values too; an agent's own value comes before the migration's.
    const back = await call(fixture.apiKey, 'POST', `/templates/${fixture.name}:1/migrate`, { memory_variables: { botName: 'Zed' } });
    expect(back.status, JSON.stringify(back.body)).toBe(200);
    await expect.poll(async () => (await TemplateMigration.query(stack.db).forOrg(fixture.user.organizationId).whereNot('status', 'running')).length, { timeout: 60_000 }).toBe(2);
    expect(await blocksOf(fixture.client, agentIds[0]!)).toEqual({ persona: 'I am Ava.' });
  });

  it('fails an agent that still lacks a value when its turn comes, leaving it whole rather than writing a placeholder', async () => {
    const fixture = await twoVersions();
    const deployed = await deploy(fixture, 1, { memoryVariables: { botName: 'Ava' } });
    const agentId: string = deployed.body.agentIds[0];
    const version = (await stack.db('agent_template_versions').where({ template_id: fixture.templateId, version: 2 }).first()) as { id: string };
    // A migration recorded without values (as one started before an agent without a value was made would be).
    const migration = await TemplateMigration.query(stack.db).insert({
      id: newId('templateMigration'),
      organizationId: fixture.user.organizationId,
      templateId: fixture.templateId,
      toVersionId: version.id,
      status: 'running',
      blockReconciliationStrategy: 'preserve-deleted',
      preserveCoreMemories: false,
      memoryVariables: {},
      abortRequested: false,
      startedAt: new Date(),
    });
    await TemplateMigrationAgent.query(stack.db).insert({ migrationId: migration.id, agentId, organizationId: fixture.user.organizationId, status: 'pending' });
    const before = await agentRows(fixture);
    expect(await migrateTemplateAgent(stack.db, { organizationId: fixture.user.organizationId, migrationId: migration.id, agentId })).toBe('failed');
    expect(await TemplateMigrationAgent.query(stack.db).findById([migration.id, agentId])).toMatchObject({
      status: 'failed',
      failureReason: 'Missing memory variable without a default: customer',
    });
    expect(await agentRows(fixture)).toEqual(before);
    expect(await blocksOf(fixture.client, agentId)).toEqual({ persona: 'I am Ava.' });
  });
});

describe('evaluating a version', () => {
  it('refuses a dataset run without the values before any agent is made, and fills every item agent with them', { timeout: 120_000 }, async () => {
    const fixture = await twoVersions();
    const dataset = await fixture.user.client.post('/datasets', { name: uniqueName('ds') });
    await fixture.user.client.post(`/datasets/${dataset.body.id}/items`, { createMessage: { role: 'user', content: 'Who do you serve?' } });
    const before = await agentRows(fixture);
    const refused = await fixture.user.client.post(`/datasets/${dataset.body.id}/runs`, { templateVersion: `${fixture.name}:2`, memoryVariables: { botName: 'Ava' } });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ errorCode: 'validation', message: 'Missing memory variable without a default: customer' });
    expect(await agentRows(fixture)).toEqual(before);
    expect(await DatasetRun.query(stack.db).forOrg(fixture.user.organizationId).resultSize()).toBe(0);

    model.onRequest(() => ({ type: 'text', text: 'Acme.' }));
    const run = await fixture.user.client.post(`/datasets/${dataset.body.id}/runs`, {
      templateVersion: `${fixture.name}:2`,
      memoryVariables: { botName: 'Ava', customer: 'Acme' },
    });
    expect(run.status, JSON.stringify(run.body)).toBe(201);
    await expect.poll(async () => (await fixture.user.client.get(`/dataset-runs/${run.body.id}`)).body.run.status, { timeout: 60_000, interval: 200 }).toBe('completed');
    const results = (await fixture.user.client.get(`/dataset-runs/${run.body.id}`)).body.results;
    expect(await blocksOf(fixture.client, results[0].agentId)).toEqual({ persona: 'I am Ava, serving Acme.' });
  });

  it('refuses an A/B arm whose variables are not given, and makes the arm’s agents with its values', async () => {
    const fixture = await twoVersions();
    const abTest = await fixture.user.client.post('/ab-tests', { name: uniqueName('ab') });
    const refused = await fixture.user.client.post(`/ab-tests/${abTest.body.id}/templates`, { templateName: `${fixture.name}:2`, memoryVariables: { botName: 'Ava' } });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ errorCode: 'validation', message: 'Missing memory variable without a default: customer' });
    expect((await fixture.user.client.get(`/ab-tests/${abTest.body.id}/templates`)).body.templates).toEqual([]);

    const arm = await fixture.user.client.post(`/ab-tests/${abTest.body.id}/templates`, {
      templateName: `${fixture.name}:2`,
      memoryVariables: { botName: 'Ava', customer: 'Acme' },
    });
    expect(arm.status, JSON.stringify(arm.body)).toBe(201);
    expect(arm.body.memoryVariables).toEqual({ botName: 'Ava', customer: 'Acme' });
    // A user's own values come before the arm's.
    const user = await call(fixture.apiKey, 'POST', `/ab-tests/${abTest.body.id}/agents`, { identity: 'kim', memory_variables: { customer: 'Kim & Co' } });
    expect(user.status, JSON.stringify(user.body)).toBe(201);
    expect(await blocksOf(fixture.client, user.body.agent_id)).toEqual({ persona: 'I am Ava, serving Kim & Co.' });
  });
});

describe("the editor's simulated agent", () => {
  it('is not built while a variable has neither a default nor a simulation value, and says which', async () => {
    const fixture = await twoVersions();
    const simulated = await fixture.user.client.get(`/agent-templates/${fixture.templateId}/simulated-agents/default`);
    expect(simulated.status).toBe(200);
    expect(simulated.body).toMatchObject({ agentId: null, isCorrupted: true, reason: 'Missing memory variables without a default: botName, customer' });
    const partial = await fixture.user.client.put(`/simulated-agents/${simulated.body.id}/variables`, { memoryVariables: { botName: 'Ava' } });
    expect(partial.status).toBe(400);
    expect(partial.body).toMatchObject({ errorCode: 'validation', message: 'Missing memory variable without a default: customer' });
    const given = await fixture.user.client.put(`/simulated-agents/${simulated.body.id}/variables`, { memoryVariables: { botName: 'Ava', customer: 'Acme' } });
    expect(given.status, JSON.stringify(given.body)).toBe(200);
    const built = await fixture.user.client.get(`/agent-templates/${fixture.templateId}/simulated-agents/default`);
    expect(built.body).toMatchObject({ agentId: expect.stringMatching(/^agent-/), isCorrupted: false, reason: null });
    expect(await blocksOf(fixture.client, built.body.agentId)).toEqual({ persona: 'I am Ava, serving Acme.' });
  });
});
