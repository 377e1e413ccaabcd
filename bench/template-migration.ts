/**
 * Template migration throughput: a template whose agents have 3 memory blocks each (persona and human filled from
 * memory variables, notes kept by preserve-deleted), `--agents` of them (1,000 by default) on version 1, version 2
 * saved with a new persona, and `POST /v1/templates/{name}:2/migrate` run by the real migration workflow on the
 * stack's worker: agents/s from the migration's start to its end (both recorded by the platform), CPU per agent,
 * and a check that every agent ended on version 2 with the new persona.
 *
 *   node --import tsx bench/template-migration.ts [--agents 1000]
 *
 * One agent is made from the template over HTTP; the others are copies of it written by PostgreSQL (agent row,
 * blocks, system message, links), which is what a deployment leaves, made in seconds instead of minutes.
 * Standalone: a throwaway database, a Temporal dev server, the API and a worker in this process.
 * `runTemplateMigrationBench` is the same measurement against a running stack, for bench/run.ts.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import type { Knex } from 'knex';
import { Agent, AgentTemplateVersion, Block, TemplateMigration, TemplateMigrationAgent, type Database } from '@engram/db';
import { createCpuMeter, type CpuMeter } from './cpu.js';
import { startBenchInfrastructure } from './infra.js';
import { startBenchStack } from './stack.js';

export type TemplateMigrationBenchResult = {
  agents: number;
  blocksPerAgent: number;
  migrated: number;
  failed: number;
  /** From the migration's start to its completion, as the platform recorded them. */
  wallMs: number;
  agentsPerSecond: number;
  /** CPU time per migrated agent, by process; null where it could not be read. */
  cpuMsPerAgent: { benchProcess: number; workerProcess: number | null; temporalServer: number | null; postgres: number | null };
};

const BLOCKS = [
  { label: 'persona', value: 'I am {{botName}}, version one.', limit: 2000 },
  { label: 'human', value: 'The user is {{userName}}.', limit: 2000 },
  { label: 'notes', value: 'Nothing noted yet.', limit: 2000 },
];

/** Copies written per statement. */
const CLONE_BATCH = 500;

type Deps = { baseUrl: string; apiKey: string; db: Database; organizationId: string; cpuMeter: CpuMeter };

function v1(deps: Deps) {
  return async <T>(method: string, pathname: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${deps.baseUrl}/v1${pathname}`, {
      method,
      headers: { authorization: `Bearer ${deps.apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(60_000),
    });
    if (!response.ok) throw new Error(`${method} /v1${pathname} answered ${response.status}: ${(await response.text()).slice(0, 300)}`);
    return (await response.json()) as T;
  };
}

/** The table's columns that a copy writes: all but those PostgreSQL numbers itself. */
async function copiedColumns(trx: Knex, table: string): Promise<string[]> {
  const { rows } = (await trx.raw(
    `select column_name as name from information_schema.columns
     where table_schema = current_schema() and table_name = ? and is_identity = 'NO' and coalesce(column_default, '') not like 'nextval(%'
     order by ordinal_position`,
    [table],
  )) as { rows: Array<{ name: string }> };
  return rows.map((row) => row.name);
}

/** `column` for each column, or the replacement expression given for it, quoted for SQL. */
function selectList(columns: string[], replacements: Record<string, string>): string {
  return columns.map((column) => replacements[column] ?? `source."${column}"`).join(', ');
}

/**
 * Writes `count` copies of an agent made from a template: each with its own id, name, system message and copies
 * of its blocks, linked like the original. Copies of one batch are one statement per table.
 */
async function cloneAgent(db: Database, agentId: string, count: number): Promise<string[]> {
  const cloneIds: string[] = [];
  for (let from = 0; from < count; from += CLONE_BATCH) {
    const size = Math.min(CLONE_BATCH, count - from);
    await db.transaction(async (trx) => {
      await trx.raw(
        `create temporary table bench_clones on commit drop as
         select n, 'agent-' || gen_random_uuid() as agent_id, 'message-' || gen_random_uuid() as message_id
         from generate_series(1, cast(? as integer)) as n`,
        [size],
      );
      await trx.raw(
        `create temporary table bench_clone_blocks on commit drop as
         select clone.agent_id, link.block_id as source_block_id, 'block-' || gen_random_uuid() as block_id
         from bench_clones clone cross join agent_blocks link where link.agent_id = ?`,
        [agentId],
      );
      // One after the other: a transaction has one connection.
      const agents = await copiedColumns(trx, 'agents');
      const messages = await copiedColumns(trx, 'messages');
      const blocks = await copiedColumns(trx, 'blocks');
      const links = await copiedColumns(trx, 'agent_blocks');
      const tools = await copiedColumns(trx, 'agent_tools');
      await trx.raw(
        `insert into agents (${agents.map((column) => `"${column}"`).join(', ')})
         select ${selectList(agents, { id: 'clone.agent_id', name: `source.name || '-' || clone.n`, message_ids: 'array[clone.message_id]' })}
         from agents source cross join bench_clones clone where source.id = ?`,
        [agentId],
      );
      await trx.raw(
        `insert into messages (${messages.map((column) => `"${column}"`).join(', ')})
         select ${selectList(messages, { id: 'clone.message_id', agent_id: 'clone.agent_id' })}
         from messages source cross join bench_clones clone
         where source.id = (select message_ids[1] from agents where id = ?)`,
        [agentId],
      );
      await trx.raw(
        `insert into blocks (${blocks.map((column) => `"${column}"`).join(', ')})
         select ${selectList(blocks, { id: 'map.block_id' })}
         from blocks source join bench_clone_blocks map on map.source_block_id = source.id`,
      );
      await trx.raw(
        `insert into agent_blocks (${links.map((column) => `"${column}"`).join(', ')})
         select ${selectList(links, { agent_id: 'map.agent_id', block_id: 'map.block_id' })}
         from agent_blocks source join bench_clone_blocks map on map.source_block_id = source.block_id and source.agent_id = ?`,
        [agentId],
      );
      await trx.raw(
        `insert into agent_tools (${tools.map((column) => `"${column}"`).join(', ')})
         select ${selectList(tools, { agent_id: 'clone.agent_id' })}
         from agent_tools source cross join bench_clones clone where source.agent_id = ?`,
        [agentId],
      );
      cloneIds.push(...(await trx('bench_clones').orderBy('n').pluck('agent_id')));
    });
  }
  // Fresh statistics, as autovacuum would gather them on live tables, so the planner sees the real tables.
  await db.raw('analyze agents, blocks, agent_blocks, messages');
  return cloneIds;
}

export async function runTemplateMigrationBench(deps: Deps, options: { agents: number; log: (line: string) => void }): Promise<TemplateMigrationBenchResult> {
  const call = v1(deps);
  const name = `bench-migration-${Date.now()}`;
  const design = await call<{ id: string }>('POST', '/agents/', {
    name: `${name}-design`,
    llm_config: { model: 'gpt-4o-mini', model_endpoint_type: 'openai', context_window: 128000 },
    include_base_tools: false,
    memory_blocks: BLOCKS,
  });
  await call('POST', '/templates', { type: 'agent', agent_id: design.id, name });
  const deployed = await call<{ agent_ids: string[] }>('POST', `/templates/${name}:1/agents`, { memory_variables: { botName: 'Ava', userName: 'Kim' } });
  const first = deployed.agent_ids[0]!;
  options.log(`copying the deployed agent ${options.agents - 1} times`);
  const agentIds = [first, ...(await cloneAgent(deps.db, first, options.agents - 1))];

  const exported = await call<{ blocks: Array<{ label: string; value: string }> }>(
    'GET',
    `/agents/${design.id}/export`,
  );
  for (const block of exported.blocks) if (block.label === 'persona') block.value = 'I am {{botName}}, version two.';
  await call('PATCH', `/templates/${name}`, { agent_file_json: exported });
  await call('POST', `/templates/${name}/save`, { message: 'version two' });

  options.log(`migrating ${agentIds.length} agents with ${BLOCKS.length} blocks each to version 2`);
  const { result: migration, cpu } = await deps.cpuMeter.measure(async () => {
    const started = await call<{ workflow_id: string }>('POST', `/templates/${name}:2/migrate`, {});
    const migrationId = started.workflow_id.replace(/^template-migration-/, '');
    for (;;) {
      const row = await TemplateMigration.query(deps.db).forOrg(deps.organizationId).findById(migrationId);
      if (row && row.status !== 'running') return row;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });
  const counts = await TemplateMigrationAgent.query(deps.db)
    .forOrg(deps.organizationId)
    .where({ migrationId: migration.id })
    .groupBy('status')
    .select('status')
    .count('* as count');
  const byStatus = Object.fromEntries((counts as unknown as Array<{ status: string; count: string }>).map((row) => [row.status, Number(row.count)]));

  const versionTwo = await AgentTemplateVersion.query(deps.db).forOrg(deps.organizationId).findById(migration.toVersionId);
  const onVersionTwo = await Agent.query(deps.db).forOrg(deps.organizationId).whereIn('id', agentIds).where({ templateVersionId: versionTwo!.id }).resultSize();
  const newPersonas = await Block.query(deps.db)
    .forOrg(deps.organizationId)
    .join('agent_blocks', 'agent_blocks.block_id', 'blocks.id')
    .whereIn('agent_blocks.agent_id', agentIds)
    .where({ 'blocks.label': 'persona', 'blocks.value': 'I am Ava, version two.' })
    .resultSize();
  if (migration.status !== 'completed' || onVersionTwo !== agentIds.length || newPersonas !== agentIds.length) {
    throw new Error(`migration ${migration.status}: ${onVersionTwo} of ${agentIds.length} agents on version 2, ${newPersonas} with the new persona`);
  }

  const wallMs = migration.completedAt!.getTime() - migration.startedAt.getTime();
  const migrated = byStatus.migrated ?? 0;
  const perAgent = (value: number | null) => (value === null ? null : value / Math.max(1, migrated));
  const result = {
    agents: agentIds.length,
    blocksPerAgent: BLOCKS.length,
    migrated,
    failed: byStatus.failed ?? 0,
    wallMs,
    agentsPerSecond: migrated / (wallMs / 1000),
    cpuMsPerAgent: {
      benchProcess: cpu.benchProcessMs / Math.max(1, migrated),
      workerProcess: perAgent(cpu.workerProcessMs),
      temporalServer: perAgent(cpu.temporalServerMs),
      postgres: perAgent(cpu.postgresMs),
    },
  };
  options.log(`${migrated} agents migrated in ${(wallMs / 1000).toFixed(1)} s: ${result.agentsPerSecond.toFixed(1)} agents/s`);
  return result;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { agents: { type: 'string', default: '1000' } } });
  const agents = Number(values.agents);
  if (!Number.isInteger(agents) || agents < 1) throw new Error(`--agents must be a positive integer, got ${values.agents}`);
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const log = (line: string) => console.error(`[bench] ${line}`);
  const infrastructure = await startBenchInfrastructure({ configuredDatabaseUrl: process.env.DATABASE_URL, dataDir: path.join(process.cwd(), '.data'), log });
  try {
    const stack = await startBenchStack(infrastructure, { baseProviders: [], workerPlacement: 'in-process' });
    try {
      const cpuMeter = createCpuMeter({ db: stack.db, temporalServerPid: infrastructure.temporalServerPid, workerPid: stack.workerPid });
      const result = await runTemplateMigrationBench({ ...stack, cpuMeter }, { agents, log });
      console.log(JSON.stringify(result, null, 2));
    } finally {
      await stack.stop();
    }
  } finally {
    await infrastructure.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
