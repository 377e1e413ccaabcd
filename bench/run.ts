/**
 * `npm run bench`: measures Engram's own cost per agent step on this machine, against a scripted model
 * that answers at once. See bench/README.md for what each number means.
 */
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { DefaultLogger, Runtime } from '@temporalio/worker';
// The model server alone: the package index also loads the vitest-bound test stack.
import { startScriptedModelServer } from '@engram/testing/model-server/index';
import { startBareWorkflowRunner } from './bare/runner.js';
import { createCpuMeter } from './cpu.js';
import { runFileIngestionBench } from './file-ingestion.js';
import { runTemplateMigrationBench } from './template-migration.js';
import { runLettaImportBench } from './letta-import.js';
import { createEngramHttpClient, SCRIPTED_REPLY, type EngramHttpClient } from './http.js';
import { startBenchInfrastructure } from './infra.js';
import { formatReport, writeResults, type BenchResults, type PlatformResults } from './report.js';
import { measureMeteringCost } from './scenarios/metering.js';
import { measureMessageList, putHistoryInContext, seedConversation } from './scenarios/message-list.js';
import { measureOneStepOverhead } from './scenarios/one-step.js';
import { breakDownSends } from './scenarios/send-breakdown.js';
import { measureStreamLatency } from './scenarios/sse.js';
import { measureThroughput } from './scenarios/throughput.js';
import { measureBareThroughput } from './scenarios/bare-throughput.js';
import { measureConversations } from './scenarios/conversations.js';
import { measureBatchThroughput } from './scenarios/batch.js';
import { measureObservability } from './scenarios/observability.js';
import { startBenchStack, type WorkerPlacement } from './stack.js';
import { summarize } from './stats.js';

const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
const RESULTS_FILE = fileURLToPath(new URL('./results/latest.json', import.meta.url));

/** Enough agents that no conversation in the latency phases grows past a couple dozen messages. */
const LATENCY_AGENTS = 20;
const THROUGHPUT_AGENTS = 50;
const THROUGHPUT_MESSAGES_PER_AGENT = 20;
const CONVERSATIONS = 20;
const MESSAGES_PER_CONVERSATION = 10;
const LIST_LIMIT = 100;
/** Fewer than the send phases: a list is cheap except with a huge context window, where each takes a while. */
const LIST_WARMUP = 10;
const LIST_SAMPLES = 100;
const SMALL_HISTORY = 1_000;
const LARGE_HISTORY = 100_000;
const INGESTED_FILE_BYTES = 5_000_000;
const MIGRATED_AGENTS = 1_000;
/** The migration from a Letta-API server: agents × messages × passages (issue 31's size). */
const IMPORTED_AGENTS = 100;
const IMPORTED_MESSAGES_PER_AGENT = 1_000;
const IMPORTED_PASSAGES_PER_AGENT = 100;
const BATCH_AGENTS = 100;
const BATCH_REQUESTS_PER_AGENT = 10;
/** A batch that has not finished by then is a broken platform, not a slow one. */
const BATCH_TIMEOUT_MS = 15 * 60_000;
/** The scale: a month of a busy organization. */
const OBSERVED_TRACES = 100_000;
const OBSERVED_STEPS = 1_000_000;
const OBSERVABILITY_WARMUP = 3;
const OBSERVABILITY_SAMPLES = 30;
/** After cleanup the process should exit on its own; this only ends it if some handle lingers. */
const EXIT_GRACE_MS = 5_000;

/** `runtimeOnly`: the agent runtime's phases (1-3b) alone, for before/after comparisons of the run path. */
type BenchOptions = { workerPlacement: WorkerPlacement; warmup: number; samples: number; runtimeOnly: boolean };

function parseBenchOptions(argv: string[]): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      'worker-process': { type: 'boolean', default: false },
      'runtime-only': { type: 'boolean', default: false },
      warmup: { type: 'string', default: '20' },
      samples: { type: 'string', default: '200' },
    },
  });
  const count = (name: string, raw: string) => {
    const parsed = Number(raw);
    if (!Number.isInteger(parsed) || parsed < 1) throw new Error(`--${name} must be a positive integer, got ${raw}`);
    return parsed;
  };
  return {
    workerPlacement: values['worker-process'] ? 'child-process' : 'in-process',
    warmup: count('warmup', values.warmup),
    samples: count('samples', values.samples),
    runtimeOnly: values['runtime-only'],
  };
}

const log = (line: string) => console.error(`[bench] ${line}`);

/** Stops what was started, last first, once, however many times it is asked to. */
function createTeardown() {
  const stops: Array<() => Promise<void>> = [];
  let running: Promise<void> | undefined;
  return {
    defer(stop: () => Promise<void>) {
      stops.push(stop);
    },
    run(): Promise<void> {
      running ??= (async () => {
        for (const stop of stops.splice(0).reverse()) {
          await stop().catch((error: unknown) => log(`cleanup step failed: ${String(error)}`));
        }
      })();
      return running;
    },
  };
}

async function createAgents(client: EngramHttpClient, purpose: string, count: number): Promise<string[]> {
  const agentIds: string[] = [];
  for (let index = 0; index < count; index++) agentIds.push(await client.createAgent(`bench-${purpose}-${index}`));
  return agentIds;
}

/** Phases 6-10: history listing, file ingestion, template migration, batches and observability. */
async function runPlatformPhases(deps: {
  client: EngramHttpClient;
  stack: Awaited<ReturnType<typeof startBenchStack>>;
  cpuMeter: ReturnType<typeof createCpuMeter>;
  options: BenchOptions;
}): Promise<PlatformResults> {
  const { client, stack, cpuMeter, options } = deps;
  log(`10/10 message list: seeding ${SMALL_HISTORY} and ${LARGE_HISTORY} messages`);
  const [smallHistoryAgent, largeHistoryAgent] = (await createAgents(client, 'history', 2)) as [string, string];
  await seedConversation(stack.db, { organizationId: stack.organizationId, agentId: smallHistoryAgent, count: SMALL_HISTORY });
  await seedConversation(stack.db, { organizationId: stack.organizationId, agentId: largeHistoryAgent, count: LARGE_HISTORY });
  const listPlan = { limit: LIST_LIMIT, warmup: Math.min(options.warmup, LIST_WARMUP), samples: Math.min(options.samples, LIST_SAMPLES) };
  const stored1kMs = summarize(await measureMessageList(client, { ...listPlan, agentId: smallHistoryAgent }));
  const stored100kMs = summarize(await measureMessageList(client, { ...listPlan, agentId: largeHistoryAgent }));
  await putHistoryInContext(stack.db, largeHistoryAgent);
  const stored100kInContextMs = summarize(await measureMessageList(client, { ...listPlan, agentId: largeHistoryAgent }));

  log(`10/10 file ingestion: ${INGESTED_FILE_BYTES / 1e6} MB of markdown`);
  const fileIngestion = await runFileIngestionBench(
    { db: stack.db, temporal: stack.temporal, taskQueue: stack.taskQueue, organizationId: stack.organizationId },
    { bytes: INGESTED_FILE_BYTES, log },
  );

  log(`10/10 template migration: ${MIGRATED_AGENTS} agents with 3 blocks each`);
  const templateMigration = await runTemplateMigrationBench(
    { baseUrl: stack.baseUrl, apiKey: stack.apiKey, db: stack.db, organizationId: stack.organizationId, cpuMeter },
    { agents: MIGRATED_AGENTS, log },
  );
  log(`10/10 Letta import: ${IMPORTED_AGENTS} agents × ${IMPORTED_MESSAGES_PER_AGENT} messages × ${IMPORTED_PASSAGES_PER_AGENT} passages into a fresh organization`);
  const lettaImport = await runLettaImportBench(
    { baseUrl: stack.baseUrl, apiKey: stack.apiKey, db: stack.db, organizationId: stack.organizationId },
    { agents: IMPORTED_AGENTS, messages: IMPORTED_MESSAGES_PER_AGENT, passages: IMPORTED_PASSAGES_PER_AGENT, log },
  );
  log(`10/10 batch: ${BATCH_AGENTS * BATCH_REQUESTS_PER_AGENT} requests over ${BATCH_AGENTS} agents in one message batch`);
  const batch = await measureBatchThroughput(client, {
    agentIds: await createAgents(client, 'batch', BATCH_AGENTS),
    requestsPerAgent: BATCH_REQUESTS_PER_AGENT,
    timeoutMs: BATCH_TIMEOUT_MS,
  });

  log(`10/10 observability: seeding ${OBSERVED_TRACES} traces and ${OBSERVED_STEPS} steps, then the overview and each metric over 30 days`);
  const observability = await measureObservability(
    { db: stack.db, organizationId: stack.organizationId },
    { traces: OBSERVED_TRACES, steps: OBSERVED_STEPS, warmup: OBSERVABILITY_WARMUP, samples: OBSERVABILITY_SAMPLES },
  );

  return { messageList: { limit: LIST_LIMIT, stored1kMs, stored100kMs, stored100kInContextMs }, fileIngestion, templateMigration, lettaImport, batch, observability };
}

async function runBench(options: BenchOptions, teardown: ReturnType<typeof createTeardown>): Promise<BenchResults> {
  const loadAverage1mAtStart = os.loadavg()[0] ?? 0;
  log('starting PostgreSQL database, Temporal dev server and workflow bundle');
  const infrastructure = await startBenchInfrastructure({
    configuredDatabaseUrl: process.env.DATABASE_URL,
    dataDir: path.join(REPO_ROOT, '.data'),
    log,
  });
  teardown.defer(() => infrastructure.stop());

  const model = await startScriptedModelServer({ models: ['gpt-4o-mini'] });
  teardown.defer(() => model.close());
  model.onRequest(() => ({ type: 'text', text: SCRIPTED_REPLY }));

  const stack = await startBenchStack(infrastructure, {
    baseProviders: [{ name: 'openai', providerType: 'openai', apiKey: 'bench', baseUrl: model.url }],
    workerPlacement: options.workerPlacement,
  });
  teardown.defer(() => stack.stop());
  const bare = await startBareWorkflowRunner({ temporalAddress: infrastructure.temporalAddress, namespace: 'default' });
  teardown.defer(() => bare.stop());
  const client = createEngramHttpClient(stack.baseUrl, stack.apiKey);
  const billedClient = createEngramHttpClient(stack.billedBaseUrl, stack.apiKey);
  log(`API on ${stack.baseUrl}, worker ${options.workerPlacement}`);

  log(`1/10 one-step sends and bare workflows: ${options.warmup} warm-up + ${options.samples} samples each`);
  const oneStep = await measureOneStepOverhead(
    { client, bare, queryCounts: stack.queryCounts },
    { agentIds: await createAgents(client, 'one-step', LATENCY_AGENTS), warmup: options.warmup, samples: options.samples },
  );
  const segments = await breakDownSends({ db: stack.db, temporal: stack.temporal }, oneStep.sends);
  const engramMs = summarize(oneStep.sendLatenciesMs);
  const bareTemporalMs = summarize(oneStep.bareLatenciesMs);

  log(`2/10 billing off vs on: ${options.warmup} warm-up + ${options.samples} samples each`);
  const metering = await measureMeteringCost(
    { off: client, on: billedClient, queryCounts: stack.queryCounts },
    { agentIds: await createAgents(client, 'metering', LATENCY_AGENTS), warmup: options.warmup, samples: options.samples },
  );
  const billingOffMs = summarize(metering.offLatenciesMs);
  const billingOnMs = summarize(metering.onLatenciesMs);

  log(`3/10 streamed sends: ${options.warmup} warm-up + ${options.samples} samples`);
  const stream = await measureStreamLatency(client, {
    agentIds: await createAgents(client, 'stream', LATENCY_AGENTS),
    warmup: options.warmup,
    samples: options.samples,
  });

  log(`4/10 throughput: ${THROUGHPUT_AGENTS} agents x ${THROUGHPUT_MESSAGES_PER_AGENT} messages`);
  const throughputAgents = await createAgents(client, 'throughput', THROUGHPUT_AGENTS);
  const cpuMeter = createCpuMeter({ db: stack.db, temporalServerPid: infrastructure.temporalServerPid, workerPid: stack.workerPid });
  const { result: throughput, cpu } = await cpuMeter.measure(() =>
    measureThroughput(client, { agentIds: throughputAgents, messagesPerAgent: THROUGHPUT_MESSAGES_PER_AGENT }),
  );
  const completedSends = Math.max(1, throughput.completed);
  const perMessage = (ms: number | null) => (ms === null ? null : ms / completedSends);
  log(`4/10 throughput of the bare workflow: ${THROUGHPUT_AGENTS} lanes x ${THROUGHPUT_MESSAGES_PER_AGENT} workflows`);
  const { result: bareThroughput, cpu: bareCpu } = await cpuMeter.measure(() =>
    measureBareThroughput(bare, { lanes: THROUGHPUT_AGENTS, workflowsPerLane: THROUGHPUT_MESSAGES_PER_AGENT }),
  );

  log(`5/10 conversations: 1 agent x ${CONVERSATIONS} conversations x ${MESSAGES_PER_CONVERSATION} messages`);
  const [conversationsAgent] = (await createAgents(client, 'conversations', 1)) as [string];
  const { latenciesMs: conversationLatenciesMs, ...conversations } = await measureConversations(
    { client, db: stack.db },
    { agentId: conversationsAgent, conversations: CONVERSATIONS, messagesPerConversation: MESSAGES_PER_CONVERSATION },
  );
  const platform = options.runtimeOnly ? undefined : await runPlatformPhases({ client, stack, cpuMeter, options });

  return {
    generatedAt: new Date().toISOString(),
    machine: {
      cores: os.availableParallelism(),
      node: process.version,
      platform: `${os.platform()} ${os.arch()}`,
      loadAverage1mAtStart,
      loadAverage1mAtEnd: os.loadavg()[0] ?? 0,
    },
    setup: {
      workerPlacement: options.workerPlacement,
      postgres: infrastructure.postgresKind,
      temporal: 'Temporal dev server (in memory, headless)',
      modelLatencyMs: 0,
      sendWarmup: options.warmup,
      sendSamples: options.samples,
      listWarmup: Math.min(options.warmup, LIST_WARMUP),
      listSamples: Math.min(options.samples, LIST_SAMPLES),
    },
    oneStepSend: {
      engramMs,
      bareTemporalMs,
      ratio: { p50: engramMs.p50 / bareTemporalMs.p50, p99: engramMs.p99 / bareTemporalMs.p99 },
      queriesPerSend: oneStep.queriesPerSend,
      breakdown: segments.map((segment) => {
        const summary = summarize(segment.samplesMs);
        return { segment: segment.label, meanMs: summary.mean, p50Ms: summary.p50, shareOfMean: summary.mean / engramMs.mean };
      }),
    },
    billing: {
      offMs: billingOffMs,
      onMs: billingOnMs,
      p50DifferenceMs: billingOnMs.p50 - billingOffMs.p50,
      queriesOff: metering.queriesOff,
      queriesOn: metering.queriesOn,
    },
    stream: {
      firstByteMs: summarize(stream.firstByteMs),
      firstAssistantFrameMs: summarize(stream.firstAssistantFrameMs),
      totalMs: summarize(stream.totalMs),
    },
    throughput: {
      agents: THROUGHPUT_AGENTS,
      messagesPerAgent: THROUGHPUT_MESSAGES_PER_AGENT,
      attempted: throughput.attempted,
      completed: throughput.completed,
      errors: throughput.errors,
      firstErrors: throughput.firstErrors,
      wallMs: throughput.wallMs,
      messagesPerSecond: throughput.messagesPerSecond,
      latencyMs: summarize(throughput.latenciesMs),
      cpuMsPerMessage: {
        benchProcess: cpu.benchProcessMs / completedSends,
        workerProcess: perMessage(cpu.workerProcessMs),
        temporalServer: perMessage(cpu.temporalServerMs),
        postgres: perMessage(cpu.postgresMs),
      },
      bareTemporal: {
        workflowsPerSecond: bareThroughput.workflowsPerSecond,
        cpuMsPerWorkflow: {
          benchProcess: bareCpu.benchProcessMs / bareThroughput.workflows,
          temporalServer: bareCpu.temporalServerMs === null ? null : bareCpu.temporalServerMs / bareThroughput.workflows,
        },
      },
    },
    conversations: { ...conversations, latencyMs: summarize(conversationLatenciesMs) },
    ...(platform ? { platform } : {}),
  };
}

async function main(): Promise<void> {
  const options = parseBenchOptions(process.argv.slice(2));
  // Workers log every state change at INFO; the bench only wants problems.
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const teardown = createTeardown();
  const interrupt = () => {
    log('interrupted; cleaning up');
    void teardown.run().finally(() => process.exit(130));
  };
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);
  try {
    const results = await runBench(options, teardown);
    console.log(formatReport(results));
    writeResults(results, RESULTS_FILE);
    log(`results written to ${path.relative(process.cwd(), RESULTS_FILE)}`);
    if (results.throughput.errors > 0 || results.conversations.errors > 0 || (results.platform?.batch.errors ?? 0) > 0) process.exitCode = 1;
  } finally {
    log('cleaning up');
    await teardown.run();
    setTimeout(() => process.exit(), EXIT_GRACE_MS).unref();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
