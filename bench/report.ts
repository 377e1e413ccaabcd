import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { FileIngestionBenchResult } from './file-ingestion.js';
import type { TemplateMigrationBenchResult } from './template-migration.js';
import type { LettaImportBenchResult } from './letta-import.js';
import type { SendQueries } from './scenarios/metering.js';
import type { QueryCounts } from './stack.js';
import type { Summary } from './stats.js';
import type { BatchThroughputMeasurement } from './scenarios/batch.js';
import type { ObservabilityMeasurement } from './scenarios/observability.js';
import type { ConversationsMeasurement } from './scenarios/conversations.js';

export type BenchResults = {
  generatedAt: string;
  machine: { cores: number; node: string; platform: string; loadAverage1mAtStart: number; loadAverage1mAtEnd: number };
  setup: {
    workerPlacement: 'in-process' | 'child-process';
    postgres: string;
    temporal: string;
    modelLatencyMs: 0;
    sendWarmup: number;
    sendSamples: number;
    listWarmup: number;
    listSamples: number;
  };
  oneStepSend: {
    engramMs: Summary;
    bareTemporalMs: Summary;
    ratio: { p50: number; p99: number };
    queriesPerSend: QueryCounts;
    breakdown: Array<{ segment: string; meanMs: number; p50Ms: number; shareOfMean: number }>;
  };
  /** The same one-step send through the API with ENGRAM_BILLING off and on, alternating, on one worker. */
  billing: { offMs: Summary; onMs: Summary; p50DifferenceMs: number; queriesOff: SendQueries; queriesOn: SendQueries };
  stream: { firstByteMs: Summary; firstAssistantFrameMs: Summary; totalMs: Summary };
  throughput: {
    agents: number;
    messagesPerAgent: number;
    attempted: number;
    completed: number;
    errors: number;
    firstErrors: string[];
    wallMs: number;
    messagesPerSecond: number;
    latencyMs: Summary;
    /** CPU time per completed send, by process; null where it could not be read. */
    cpuMsPerMessage: { benchProcess: number; workerProcess: number | null; temporalServer: number | null; postgres: number | null };
    /** The bare workflow with as many lanes, right after: the engine's own ceiling on this machine. */
    bareTemporal: { workflowsPerSecond: number; cpuMsPerWorkflow: { benchProcess: number; temporalServer: number | null } };
  };
  /** One agent, many conversations at once: throughput, and what ran concurrently (bench/scenarios/conversations.ts). */
  conversations: Omit<ConversationsMeasurement, 'latenciesMs'> & { latencyMs: Summary };
  /** The phases past the agent runtime; absent with --runtime-only. */
  platform?: PlatformResults;
};

export type PlatformResults = {
  messageList: { limit: number; stored1kMs: Summary; stored100kMs: Summary; stored100kInContextMs: Summary };
  fileIngestion: FileIngestionBenchResult;
  templateMigration: TemplateMigrationBenchResult;
  /** Absent in results written before the migration phase existed. */
  lettaImport?: LettaImportBenchResult;
  batch: BatchThroughputMeasurement;
  observability: ObservabilityMeasurement;
};

const ms = (value: number) => value.toFixed(1);

function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((header, column) => Math.max(header.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: string[]) =>
    '  ' + cells.map((cell, column) => (column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0))).join('   ');
  return [line(headers), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n');
}

const LATENCY_HEADERS = ['measurement', 'p50', 'p99', 'mean', 'n'];
const latencyRow = (label: string, summary: Summary) => [label, ms(summary.p50), ms(summary.p99), ms(summary.mean), String(summary.n)];

const cpuCell = (value: number | null) => (value === null ? 'n/a' : ms(value));

const countCell = (value: number | null) => (value === null ? 'n/a (separate process)' : value.toFixed(1));

export function formatReport(results: BenchResults): string {
  const { machine, setup, oneStepSend, billing, stream, throughput, conversations, platform } = results;
  const worker =
    setup.workerPlacement === 'in-process'
      ? 'the worker runs in the same process as the API (--worker-process runs it as a separate process)'
      : 'the worker runs in its own process (temporal/src/worker-main.ts)';
  const busyMachine = Math.max(machine.loadAverage1mAtStart, machine.loadAverage1mAtEnd) >= machine.cores * 0.75;
  const queries = oneStepSend.queriesPerSend;
  return [
    `Engram bench, ${results.generatedAt}: node ${machine.node}, ${machine.cores} cores, load average ${machine.loadAverage1mAtStart.toFixed(2)} at start, ${machine.loadAverage1mAtEnd.toFixed(2)} at end`,
    `Setup: scripted model server answering "ok" at once (0 ms model latency), PostgreSQL (${setup.postgres}), ${setup.temporal}; ${worker}; loopback only.`,
    `How to read this: times in ms, lower is better; p50 = median and p99 = 99th percentile (nearest rank) of the n samples, taken one at a time after warm-up runs. The machine has ${machine.cores} cores, shared by the API, the worker, PostgreSQL, Temporal and the load generator.`,
    ...(busyMachine
      ? ['Note: other work kept this machine busy (see the load averages), which inflates wall-clock times; the ratio, the query counts and the CPU times per message are steadier.']
      : []),
    '',
    '1. Per-step platform overhead: one-step sync send vs a bare Temporal workflow (sequential, alternating)',
    table(LATENCY_HEADERS, [
      latencyRow('Engram: POST /v1/agents/{id}/messages, 1 model step', oneStepSend.engramMs),
      latencyRow('bare Temporal: workflow + 1 no-op activity', oneStepSend.bareTemporalMs),
      ['ratio Engram / bare', `${oneStepSend.ratio.p50.toFixed(1)}x`, `${oneStepSend.ratio.p99.toFixed(1)}x`, '', ''],
    ]),
    `   SQL statements per send: API ${queries.api.toFixed(1)}, worker ${countCell(queries.worker)} (of which metering ${countCell(queries.metering)})`,
    '',
    "   Where a send's time goes (consecutive segments; their means add up to the mean latency):",
    table(
      ['segment', 'mean', 'p50', 'share'],
      oneStepSend.breakdown.map((row) => [row.segment, ms(row.meanMs), ms(row.p50Ms), `${(row.shareOfMean * 100).toFixed(0)}%`]),
    ),
    '',
    '1b. Billing: the same one-step send with ENGRAM_BILLING=off and =on (alternating; every step is metered either way, on adds the run\'s admission)',
    table(LATENCY_HEADERS, [latencyRow('billing off', billing.offMs), latencyRow('billing on', billing.onMs)]),
    `   p50 difference on - off: ${billing.p50DifferenceMs.toFixed(1)} ms`,
    table(
      ['SQL statements per send', 'API', 'worker', 'of which metering'],
      [
        ['billing off', billing.queriesOff.api.toFixed(1), countCell(billing.queriesOff.worker), countCell(billing.queriesOff.metering)],
        ['billing on', billing.queriesOn.api.toFixed(1), countCell(billing.queriesOn.worker), countCell(billing.queriesOn.metering)],
      ],
    ),
    '',
    '2. Streaming: POST /v1/agents/{id}/messages/stream (default options, so the first event is a ping)',
    table(LATENCY_HEADERS, [
      latencyRow('time to first SSE byte', stream.firstByteMs),
      latencyRow('time to the assistant_message frame', stream.firstAssistantFrameMs),
      latencyRow('time to [DONE]', stream.totalMs),
    ]),
    '',
    `3. Throughput: ${throughput.agents} agents x ${throughput.messagesPerAgent} messages, each agent's sends sequential, agents in parallel`,
    table(
      ['measurement', 'value'],
      [
        ['messages/s', throughput.messagesPerSecond.toFixed(1)],
        ['errors', `${throughput.errors} (${throughput.completed} of ${throughput.attempted} sends completed)`],
        ['wall time (s)', (throughput.wallMs / 1000).toFixed(1)],
        ['send latency under load p50 / p99', `${ms(throughput.latencyMs.p50)} / ${ms(throughput.latencyMs.p99)}`],
        [
          setup.workerPlacement === 'in-process'
            ? 'CPU per message: this process (API, worker, load generator, model server)'
            : 'CPU per message: this process (API, load generator, model server)',
          ms(throughput.cpuMsPerMessage.benchProcess),
        ],
        ...(setup.workerPlacement === 'child-process' ? [['CPU per message: worker process', cpuCell(throughput.cpuMsPerMessage.workerProcess)]] : []),
        ['CPU per message: PostgreSQL', cpuCell(throughput.cpuMsPerMessage.postgres)],
        ['CPU per message: Temporal server', cpuCell(throughput.cpuMsPerMessage.temporalServer)],
        ['bare Temporal, as many lanes: workflows/s', throughput.bareTemporal.workflowsPerSecond.toFixed(1)],
        ['bare Temporal: CPU per workflow, this process / Temporal server', `${ms(throughput.bareTemporal.cpuMsPerWorkflow.benchProcess)} / ${cpuCell(throughput.bareTemporal.cpuMsPerWorkflow.temporalServer)}`],
        ['Engram / bare Temporal throughput', `${(throughput.messagesPerSecond / throughput.bareTemporal.workflowsPerSecond).toFixed(2)}x`],
      ],
    ),
    ...throughput.firstErrors.map((error) => `   error: ${error}`),
    '',
    `3b. Conversations: 1 agent x ${conversations.conversations} conversations x ${conversations.messagesPerConversation} messages, each conversation's sends sequential, conversations in parallel`,
    table(
      ['measurement', 'value'],
      [
        ['messages/s', conversations.messagesPerSecond.toFixed(1)],
        ['errors', `${conversations.errors} (${conversations.completed} of ${conversations.attempted} sends completed)`],
        ['wall time (s)', (conversations.wallMs / 1000).toFixed(1)],
        ['send latency under load p50 / p99', `${ms(conversations.latencyMs.p50)} / ${ms(conversations.latencyMs.p99)}`],
        ["most of the agent's runs executing at once", String(conversations.mostRunsAtOnce)],
        ['runs of one conversation overlapping / out of send order', `${conversations.overlapsWithinAConversation} / ${conversations.outOfOrderWithinAConversation}`],
      ],
    ),
    ...conversations.firstErrors.map((error) => `   error: ${error}`),
    '',
    ...(platform ? formatPlatform(setup, platform) : ['(phases 4-8 skipped: --runtime-only)']),
  ].join('\n');
}

function formatPlatform(setup: BenchResults['setup'], platform: PlatformResults): string[] {
  const { messageList, fileIngestion, templateMigration, lettaImport, batch, observability } = platform;
  return [
    `4. GET /v1/agents/{id}/messages?limit=${messageList.limit} (default order: the newest page) for one agent's stored history`,
    table(LATENCY_HEADERS, [
      latencyRow('1k messages stored', messageList.stored1kMs),
      latencyRow('100k messages stored', messageList.stored100kMs),
      latencyRow('100k stored, all in the context window', messageList.stored100kInContextMs),
    ]),
    '',
    `5. File ingestion: a ${(fileIngestion.bytes / 1e6).toFixed(1)} MB markdown file through the ingestion workflow (parse, chunk, local embedder, passages)`,
    table(
      ['measurement', 'value'],
      [
        ['chunks', String(fileIngestion.chunks)],
        ['chunks/s', fileIngestion.chunksPerSecond.toFixed(0)],
        ['MB/s', fileIngestion.megabytesPerSecond.toFixed(2)],
        ['start to completed (s)', (fileIngestion.totalMs / 1000).toFixed(1)],
        ['of which parse and chunk (s)', (fileIngestion.parseAndChunkMs / 1000).toFixed(1)],
      ],
    ),
    '',
    `6. Template migration: ${templateMigration.agents} agents with ${templateMigration.blocksPerAgent} blocks each moved to a new version by the migration workflow`,
    table(
      ['measurement', 'value'],
      [
        ['agents/s', templateMigration.agentsPerSecond.toFixed(1)],
        ['migrated / failed', `${templateMigration.migrated} / ${templateMigration.failed}`],
        ['start to completed (s)', (templateMigration.wallMs / 1000).toFixed(1)],
        [
          setup.workerPlacement === 'in-process' ? 'CPU per agent: this process (API and worker)' : 'CPU per agent: this process (API)',
          ms(templateMigration.cpuMsPerAgent.benchProcess),
        ],
        ...(setup.workerPlacement === 'child-process' ? [['CPU per agent: worker process', cpuCell(templateMigration.cpuMsPerAgent.workerProcess)]] : []),
        ['CPU per agent: PostgreSQL', cpuCell(templateMigration.cpuMsPerAgent.postgres)],
        ['CPU per agent: Temporal server', cpuCell(templateMigration.cpuMsPerAgent.temporalServer)],
      ],
    ),
    ...(lettaImport
      ? [
          `6b. Letta import: ${lettaImport.agents} agents × ${lettaImport.messagesPerAgent} messages × ${lettaImport.passagesPerAgent} passages moved from this server's /v1 API into a fresh organization by the import workflow (the source read at 10 requests/s)`,
          table(
            ['measurement', 'value'],
            [
              ['agents/s', lettaImport.agentsPerSecond.toFixed(2)],
              ['messages/s', lettaImport.messagesPerSecond.toFixed(0)],
              ['passages/s', lettaImport.passagesPerSecond.toFixed(0)],
              ['start to completed (s)', (lettaImport.wallMs / 1000).toFixed(1)],
            ],
          ),
        ]
      : []),
    `7. Message batch: ${batch.requests} requests over ${batch.agents} agents in one POST /v1/messages/batches (each agent's in order, at most 16 at once)`,
    table(
      ['measurement', 'value'],
      [
        ['requests/s', batch.requestsPerSecond.toFixed(1)],
        ['errors', `${batch.errors} (${batch.completed} of ${batch.requests} requests completed)`],
        ['POST to completed (s)', (batch.wallMs / 1000).toFixed(1)],
      ],
    ),
    ...batch.firstErrors.map((error) => `   error: ${error}`),
    `8. Observability over the last 30 days, daily in UTC, with ${observability.traces} run traces and ${observability.steps} steps stored (seeded by bulk SQL in ${(observability.seedMs / 1000).toFixed(1)} s)`,
    table(
      LATENCY_HEADERS,
      observability.queries.map((query) => latencyRow(query.name, query.ms)),
    ),
    `   Tracing's cost per step (${observability.spanExport.spansPerStep} spans: agent_step, chat, execute_tool): recording them ${(observability.spanExport.recordPerStepUs.p50 / 1000).toFixed(3)} ms p50 / ${(observability.spanExport.recordPerStepUs.p99 / 1000).toFixed(3)} ms p99 on the step's path; the span store's write ${observability.spanExport.writePerStepMs.p50.toFixed(3)} ms p50 per step, off the path, in batches of ${observability.spanExport.stepsPerBatch} steps.`,
  ];
}

export function writeResults(results: BenchResults, file: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
}
