import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, AgentTemplateVersion, TemplateMigration, TemplateMigrationAgent } from '@engram/db';
import { crashTestProcesses, startTestStack, type TestStack, until } from '@engram/testing';
import { requestV1 } from '@engram/testing/agent-test-context';

let stack: TestStack;
const processes = crashTestProcesses(() => stack.workerEnv);

beforeAll(async () => {
  stack = await startTestStack({ inProcessWorker: false });
});

afterAll(async () => {
  await processes.killAll();
  await stack?.stop();
});

async function call(method: string, path: string, body?: unknown) {
  const response = await requestV1(stack.baseUrl, stack.apiKey, method, path, body);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
}

describe('a template migration survives the death of its worker', () => {
  it('completes after the worker is SIGKILLed mid-batch, every agent migrated exactly once', async () => {
    const organizationId = stack.tenant.organizationId;
    const name = `durable-${Date.now()}`;
    const design = await call('POST', '/agents/', {
      llm_config: { model: 'gpt-4o-mini', model_endpoint_type: 'openai', context_window: 128000 },
      include_base_tools: false,
      memory_blocks: [{ label: 'persona', value: 'Version one, {{botName}}.', limit: 500 }],
    });
    await call('POST', '/templates', { type: 'agent', agent_id: design.id, name });
    const agentIds: string[] = [];
    for (let index = 0; index < 40; index++) {
      agentIds.push(...(await call('POST', `/templates/${name}:1/agents`, { memory_variables: { botName: `bot ${index}` } })).agent_ids);
    }
    const exported = await call('GET', `/agents/${design.id}/export`);
    exported.blocks[0].value = 'Version two, {{botName}}.';
    await call('PATCH', `/templates/${name}`, { agent_file_json: exported });
    await call('POST', `/templates/${name}/save`, { message: 'two' });

    // Holding the 31st agent (in the migration's order) stops the worker's second batch there, mid-transaction
    // (a no-key lock: listing the agents, whose records reference them, is not held up).
    const ordered = await Agent.query(stack.db).forOrg(organizationId).whereIn('id', agentIds).orderBy('id').select('id');
    const held = await stack.db.transaction();
    await held('agents').where({ id: ordered[30]!.id }).forNoKeyUpdate();
    const firstWorker = processes.worker();
    const { workflow_id: workflowId } = await call('POST', `/templates/${name}:2/migrate`, {});
    const migrationId = workflowId.replace(/^template-migration-/, '');
    const migratedRows = async () => TemplateMigrationAgent.query(stack.db).forOrg(organizationId).where({ migrationId, status: 'migrated' });
    // The first batch of 25 and the other agents of the second batch (31 to 40 in order).
    const beforeKill = await until(migratedRows, (rows) => rows.length === 39, { what: '39 agents migrated', timeoutMs: 120_000 });

    await firstWorker.kill();
    await held.rollback();
    processes.worker();
    const migration = await until(async () => TemplateMigration.query(stack.db).forOrg(organizationId).findById(migrationId), (row) => row?.status !== 'running', { what: 'the migration to finish', timeoutMs: 150_000 });
    expect(migration?.status).toBe('completed');

    const rows = await TemplateMigrationAgent.query(stack.db).forOrg(organizationId).where({ migrationId });
    expect(rows).toHaveLength(40);
    expect(rows.every((row) => row.status === 'migrated')).toBe(true);
    // Agents migrated before the kill were not migrated again after it.
    const migratedAt = new Map(rows.map((row) => [row.agentId, row.migratedAt!.getTime()]));
    for (const row of beforeKill) expect(migratedAt.get(row.agentId)).toBe(row.migratedAt!.getTime());

    const versionTwo = await AgentTemplateVersion.query(stack.db).forOrg(organizationId).whereRaw('version = 2').first();
    for (const [index, agentId] of agentIds.entries()) {
      const agent = await call('GET', `/agents/${agentId}?include=agent.blocks`);
      expect(agent.blocks.map((block: { label: string; value: string }) => [block.label, block.value])).toEqual([
        ['persona', `Version two, bot ${index}.`],
      ]);
      expect((await Agent.query(stack.db).findById(agentId))?.templateVersionId).toBe(versionTwo!.id);
    }
  }, 300_000);
});
