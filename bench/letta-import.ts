/**
 * Migration throughput: an organization of `--agents` agents (100 by default), each with `--messages` stored
 * messages (1,000) and `--passages` archival passages (100), moved into a fresh organization of the same server by
 * `POST /v1/imports/letta` (the source is this server's own `/v1` API, on loopback) and the real import workflow on
 * the stack's worker: agents/s, messages/s and passages/s from the run's creation to its completion (both recorded
 * by the platform), and a check that every message and passage arrived.
 *
 *   node --import tsx bench/letta-import.ts [--agents 100] [--messages 1000] [--passages 100]
 *
 * The source's agents are made over HTTP; their messages are written by PostgreSQL (what a long-lived deployment
 * leaves) and their passages through the archive batch route. Standalone: a throwaway database, a Temporal dev
 * server, the API and a worker in this process. `runLettaImportBench` is the same measurement against a running
 * stack, for bench/run.ts.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { createApiKeyService, createOrganizationService, createTierLimitGuard } from '@engram/api';
import { LettaImport, Message, Passage, newId, type Database } from '@engram/db';
import { startBenchInfrastructure } from './infra.js';
import { startBenchStack } from './stack.js';

export type LettaImportBenchResult = {
  agents: number;
  messagesPerAgent: number;
  passagesPerAgent: number;
  /** From the run's creation to its completion, as the platform recorded them. */
  wallMs: number;
  agentsPerSecond: number;
  messagesPerSecond: number;
  passagesPerSecond: number;
};

type Deps = { baseUrl: string; apiKey: string; db: Database; organizationId: string };
type Shape = { agents: number; messages: number; passages: number; log: (line: string) => void };

async function v1<T>(baseUrl: string, apiKey: string, method: string, pathname: string, body?: unknown): Promise<T> {
  const response = await fetch(`${baseUrl}/v1${pathname}`, {
    method,
    headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(120_000),
  });
  if (!response.ok) throw new Error(`${method} /v1${pathname} answered ${response.status}: ${(await response.text()).slice(0, 300)}`);
  return (await response.json()) as T;
}

/** Rows written per statement. */
const INSERT_BATCH = 1000;

async function seedSource(deps: Deps, shape: Shape): Promise<void> {
  const start = Date.now() - shape.messages * 1000;
  for (let index = 0; index < shape.agents; index++) {
    const agent = await v1<{ id: string }>(deps.baseUrl, deps.apiKey, 'POST', '/agents/', {
      name: `migrated-${index}`,
      llm_config: { model: 'gpt-4o-mini', model_endpoint_type: 'openai', context_window: 128000 },
      include_base_tools: false,
      memory_blocks: [{ label: 'persona', value: `I am agent ${index}.`, limit: 2000 }],
    });
    const messages = Array.from({ length: shape.messages }, (_, position) => ({
      id: newId('message'),
      organizationId: deps.organizationId,
      agentId: agent.id,
      role: position % 2 === 0 ? ('user' as const) : ('assistant' as const),
      content: [{ type: 'text' as const, text: `message ${position} of agent ${index}` }],
      createdAt: new Date(start + position * 1000),
    }));
    for (let first = 0; first < messages.length; first += INSERT_BATCH) await Message.query(deps.db).insert(messages.slice(first, first + INSERT_BATCH));
    if (shape.passages === 0) continue;
    await v1(deps.baseUrl, deps.apiKey, 'POST', `/agents/${agent.id}/archival-memory`, { text: `memory 0 of agent ${index}` });
    const [archive] = await v1<Array<{ id: string }>>(deps.baseUrl, deps.apiKey, 'GET', `/archives/?agent_id=${agent.id}`);
    for (let first = 1; first < shape.passages; first += 100) {
      const passages = Array.from({ length: Math.min(100, shape.passages - first) }, (_, offset) => ({ text: `memory ${first + offset} of agent ${index}`, tags: [`t${offset % 5}`] }));
      await v1(deps.baseUrl, deps.apiKey, 'POST', `/archives/${archive!.id}/passages/batch`, { passages });
    }
    if ((index + 1) % 10 === 0) shape.log(`seeded ${index + 1} of ${shape.agents} agents`);
  }
}

export async function runLettaImportBench(deps: Deps, shape: Shape): Promise<LettaImportBenchResult> {
  shape.log(`seeding ${shape.agents} agents × ${shape.messages} messages × ${shape.passages} passages`);
  await seedSource(deps, shape);
  const target = await createOrganizationService({ db: deps.db, apiKeys: createApiKeyService({ db: deps.db, limits: createTierLimitGuard({ mode: 'off' }) }) }).createWithAdmin({
    name: 'bench import target',
    adminName: 'bench admin',
  });

  shape.log('importing into a fresh organization');
  const started = await v1<{ id: string }>(deps.baseUrl, target.apiKey.key, 'POST', '/imports/letta', { sourceUrl: deps.baseUrl, apiKey: deps.apiKey });
  let run: LettaImport | undefined;
  for (;;) {
    run = await LettaImport.query(deps.db).forOrg(target.organizationId).findById(started.id);
    if (run && run.status !== 'running') break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const messages = await Message.query(deps.db).forOrg(target.organizationId).whereNot('role', 'system').resultSize();
  const passages = await Passage.query(deps.db).forOrg(target.organizationId).whereNotNull('archiveId').resultSize();
  if (run.status !== 'completed' || messages !== shape.agents * shape.messages || passages !== shape.agents * shape.passages) {
    throw new Error(`import ${run.status} (${run.error ?? 'no error'}): ${messages} of ${shape.agents * shape.messages} messages, ${passages} of ${shape.agents * shape.passages} passages`);
  }
  const wallMs = run.completedAt!.getTime() - run.createdAt.getTime();
  const seconds = wallMs / 1000;
  const result = {
    agents: shape.agents,
    messagesPerAgent: shape.messages,
    passagesPerAgent: shape.passages,
    wallMs,
    agentsPerSecond: shape.agents / seconds,
    messagesPerSecond: messages / seconds,
    passagesPerSecond: passages / seconds,
  };
  shape.log(`imported in ${seconds.toFixed(1)} s: ${result.agentsPerSecond.toFixed(2)} agents/s, ${result.messagesPerSecond.toFixed(0)} messages/s, ${result.passagesPerSecond.toFixed(0)} passages/s`);
  return result;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { agents: { type: 'string', default: '100' }, messages: { type: 'string', default: '1000' }, passages: { type: 'string', default: '100' } } });
  const shape = { agents: Number(values.agents), messages: Number(values.messages), passages: Number(values.passages) };
  for (const [name, value] of Object.entries(shape)) if (!Number.isInteger(value) || value < 0) throw new Error(`--${name} must be a whole number, got ${value}`);
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const log = (line: string) => console.error(`[bench] ${line}`);
  const infrastructure = await startBenchInfrastructure({ configuredDatabaseUrl: process.env.DATABASE_URL, dataDir: path.join(process.cwd(), '.data'), log });
  try {
    const stack = await startBenchStack(infrastructure, { baseProviders: [], workerPlacement: 'in-process' });
    try {
      console.log(JSON.stringify(await runLettaImportBench(stack, { ...shape, log }), null, 2));
    } finally {
      await stack.stop();
    }
  } finally {
    await infrastructure.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
