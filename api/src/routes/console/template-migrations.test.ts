import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import Letta from '@letta-ai/letta-client';
import { Agent, AgentTemplateVersion, Block } from '@engram/db';
import { startAgentTestContext } from '@engram/testing/agent-test-context';
import { signUp, type ConsoleUser } from './console-test-support.js';
import { until } from '@engram/testing';

const { stack, model, stop } = await startAgentTestContext();
afterAll(stop);

const V1_PERSONA = 'I am {{botName}}, version one.';
const V2_PERSONA = 'I am {{botName}}, version two.';

type Fixture = { user: ConsoleUser; client: Letta; templateId: string; name: string };

/** A console user of a fresh organization, with an API key for /v1, and a template saved as version 1. */
async function templateFixture(name: string): Promise<Fixture> {
  const user = await signUp(stack);
  const key = await user.client.post('/api-keys', { name: 'migrations' });
  expect(key.status, JSON.stringify(key.body)).toBe(201);
  const client = new Letta({ apiKey: key.body.apiKey, baseURL: stack.baseUrl, maxRetries: 0 });
  const design = await client.agents.create({
    model: 'openai/gpt-4o-mini',
    include_base_tools: false,
    memory_blocks: [
      { label: 'persona', value: V1_PERSONA, limit: 2000 },
      { label: 'human', value: 'The user is {{userName}}.', limit: 2000 },
    ],
  });
  const created = await user.client.post('/agent-templates', { name, agentId: design.id });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const saved = await user.client.post(`/agent-templates/${created.body.id}/versions`, { message: 'version one' });
  expect(saved.status, JSON.stringify(saved.body)).toBe(201);
  return { user, client, templateId: created.body.id, name };
}

/** Many agents at once: through the template service, as the console's deploy does it, without an HTTP round trip per 100. */
async function deployMany(fixture: Fixture, count: number): Promise<string[]> {
  const ctx = { organizationId: fixture.user.organizationId, userId: fixture.user.userId, role: 'admin' as const, requestId: 'deploy', project: {} };
  const created = await stack.services.templates.createAgents(ctx, `${fixture.name}:1`, { memoryVariables: { botName: 'Ava', userName: 'Kim' } }, count);
  return created.agentIds;
}

async function deploy(fixture: Fixture, count: number): Promise<string[]> {
  const deployed = await fixture.user.client.post(`/template-versions/${fixture.name}:1/agents`, {
    count,
    memoryVariables: { botName: 'Ava', userName: 'Kim' },
  });
  expect(deployed.status, JSON.stringify(deployed.body)).toBe(201);
  return deployed.body.agentIds;
}

/** Changes the persona in the working version and saves it as version 2. */
async function saveVersionTwo(fixture: Fixture): Promise<void> {
  const template = await fixture.user.client.get(`/agent-templates/${fixture.templateId}`);
  const blocks = template.body.agentState.blocks.map((block: { label: string }) => (block.label === 'persona' ? { ...block, value: V2_PERSONA } : block));
  expect((await fixture.user.client.patch(`/agent-templates/${fixture.templateId}`, { blocks })).status).toBe(200);
  const saved = await fixture.user.client.post(`/agent-templates/${fixture.templateId}/versions`, { message: 'persona two' });
  expect(saved.status, JSON.stringify(saved.body)).toBe(201);
  expect(saved.body.version.version).toBe('2');
}

async function migrationOf(fixture: Fixture, workflowId: string) {
  const listed = await fixture.user.client.get(`/agent-templates/migrations?templateId=${fixture.templateId}`);
  expect(listed.status).toBe(200);
  return listed.body.migrations.find((migration: { workflowId: string }) => migration.workflowId === workflowId);
}

/** Each agent's version and persona, read from the database. */
async function agentStates(organizationId: string, agentIds: string[]) {
  const agents = await Agent.query(stack.db).forOrg(organizationId).whereIn('id', agentIds);
  const versions = await AgentTemplateVersion.query(stack.db).forOrg(organizationId);
  const versionNumber = new Map(versions.map((version) => [version.id, version.version]));
  const blocks = (await Block.query(stack.db)
    .forOrg(organizationId)
    .join('agent_blocks', 'agent_blocks.block_id', 'blocks.id')
    .whereIn('agent_blocks.agent_id', agentIds)
    .select('blocks.label', 'blocks.value', 'agent_blocks.agent_id as owner')) as unknown as Array<{ label: string; value: string; owner: string }>;
  return agents.map((agent) => {
    const own = blocks.filter((block) => block.owner === agent.id);
    return {
      id: agent.id,
      version: versionNumber.get(agent.templateVersionId!)!,
      persona: own.filter((block) => block.label === 'persona').map((block) => block.value),
      human: own.filter((block) => block.label === 'human').map((block) => block.value),
    };
  });
}

describe('template migrations', () => {
  it('migrates 300 agents in batches and, aborted midway, leaves each agent whole on exactly one version', async () => {
    const fixture = await templateFixture(`abortable-${Date.now()}`);
    const agentIds = await deployMany(fixture, 300);
    await saveVersionTwo(fixture);

    // The migration goes through agents in id order; holding the 151st agent's row stops it there (a
    // no-key lock: listing the agents, whose records reference them, is not held up).
    const ordered = await Agent.query(stack.db).forOrg(fixture.user.organizationId).whereIn('id', agentIds).orderBy('id').select('id');
    const held = await stack.db.transaction();
    onTestFinished(async () => {
      if (!held.isCompleted()) await held.rollback();
    });
    await held('agents').where({ id: ordered[150]!.id }).forNoKeyUpdate();

    const started = await fixture.user.client.post(`/template-versions/${fixture.name}:2/migrate`, {});
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    const { workflowId } = started.body;
    expect(workflowId).toMatch(/^template-migration-template_migration-/);
    // Six batches of 25, and the seventh batch's agents other than the held one.
    await until(() => migrationOf(fixture, workflowId), (migration) => migration.migrated === 174, { what: '174 agents migrated', timeoutMs: 180_000 });

    const aborting = await fixture.user.client.post(`/agent-templates/migrations/${workflowId}/abort`);
    expect(aborting.status).toBe(200);
    await held.rollback();
    const ended = await until(() => migrationOf(fixture, workflowId), (migration) => migration.status !== 'running', { what: 'the abort' });
    expect(ended).toMatchObject({ status: 'aborted', total: 300, migrated: 175, failed: 0, untouched: 125, templateVersion: `${fixture.name}:2` });
    expect(ended.migrated + ended.untouched).toBe(300);
    expect(ended.completedAt).not.toBeNull();

    const states = await agentStates(fixture.user.organizationId, agentIds);
    expect(states.filter((state) => state.version === 2)).toHaveLength(175);
    expect(states.filter((state) => state.version === 1)).toHaveLength(125);
    for (const state of states) {
      const persona = state.version === 2 ? 'I am Ava, version two.' : 'I am Ava, version one.';
      expect(state, 'blocks match the version, once each').toMatchObject({ persona: [persona], human: ['The user is Kim.'] });
    }
    // Migrated are the first 175 in the migration's order: the held agent passed its abort check before the abort,
    // so it was migrated once it was free; every later one is untouched.
    const versionOf = new Map(states.map((state) => [state.id, state.version]));
    expect(ordered.map((agent) => versionOf.get(agent.id))).toEqual([...Array<number>(175).fill(2), ...Array<number>(125).fill(1)]);
  }, 480_000);

  it('migrates an agent that is mid-run only after its run finishes on the old version', async () => {
    const fixture = await templateFixture(`midrun-${Date.now()}`);
    const [busyAgent, ...others] = await deploy(fixture, 3);
    model.enqueue({ type: 'text', text: 'Done thinking.', delayMs: 4000 });
    const run = await fixture.client.agents.messages.createAsync(busyAgent!, { messages: [{ role: 'user', content: 'Take your time' }] });
    await until(() => fixture.client.runs.retrieve(run.id), (current) => current.status === 'running', { what: 'the run to start' });
    await saveVersionTwo(fixture);

    const started = await fixture.user.client.post(`/template-versions/${fixture.name}:2/migrate`, {});
    const { workflowId } = started.body;
    const partway = await until(() => migrationOf(fixture, workflowId), (migration) => migration.migrated === 2, { what: 'the idle agents' });
    expect(partway.status).toBe('running');
    expect((await agentStates(fixture.user.organizationId, [busyAgent!]))[0]!.version).toBe(1);

    const finished = await until(() => fixture.client.runs.retrieve(run.id), (current) => current.status !== 'running', { what: 'the run' });
    expect(finished.status).toBe('completed');
    const ended = await until(() => migrationOf(fixture, workflowId), (migration) => migration.status !== 'running', { what: 'the migration' });
    expect(ended).toMatchObject({ status: 'completed', total: 3, migrated: 3, failed: 0, untouched: 0 });

    // The run's model call saw version one's persona; afterwards the agent holds version two.
    const runRequest = model.requests.find((request) => JSON.stringify(request.messages).includes('Take your time'));
    expect(JSON.stringify(runRequest?.messages[0])).toContain('I am Ava, version one.');
    const states = await agentStates(fixture.user.organizationId, [busyAgent!, ...others]);
    expect(states.map((state) => state.version)).toEqual([2, 2, 2]);
    expect(states.every((state) => state.persona[0] === 'I am Ava, version two.')).toBe(true);
  }, 240_000);
});
