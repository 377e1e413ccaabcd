import type { Database } from '@engram/db';
import { createObservabilityServices } from '@engram/api';
import { summarize, type Summary } from '../stats.js';
import { measureSpanExport, type SpanExportMeasurement } from './span-export.js';

export type ObservabilityMeasurement = {
  traces: number;
  steps: number;
  seedMs: number;
  queries: Array<{ name: string; ms: Summary }>;
  spanExport: SpanExportMeasurement;
};

/** A batch of the span processor holds up to 512 spans: about 170 steps of three spans. */
const STEPS_PER_EXPORT_BATCH = 170;

const DAY_MS = 86_400_000;

/**
 * Stored history at the scale, written by bulk SQL: `traces` per-run summaries (whose triggers keep the rollups
 * the metrics read) and `steps` (what the usage summary reads), spread over the last 30 days across 50 agents and a few tools.
 */
async function seedHistory(db: Database, organizationId: string, plan: { traces: number; steps: number }): Promise<void> {
  await db.raw(
    `insert into traces (trace_id, organization_id, agent_id, run_id, root_span_name, started_at, ended_at, duration_ms, span_count, agent_steps,
                         has_tool_error, has_api_error, function_names)
     select md5('bench-trace-' || i), :organizationId, 'bench-agent-' || (i % 50), 'bench-run-' || i, 'POST /v1/agents/:agent_id/messages',
            now() - (i::double precision / :traces) * interval '30 days',
            now() - (i::double precision / :traces) * interval '30 days' + (100 + i % 5000) * interval '1 millisecond',
            100 + i % 5000, 12, 1 + i % 10, i % 17 = 0, i % 31 = 0,
            case when i % 3 = 0 then array['web_search'] when i % 3 = 1 then array['run_code', 'memory_insert'] else '{}'::text[] end
       from generate_series(1, :traces) as i`,
    { organizationId, traces: plan.traces },
  );
  await db.raw(
    `insert into steps (id, organization_id, step_index, model, model_handle, prompt_tokens, completion_tokens, total_tokens, status, created_at, updated_at)
     select 'step-bench-' || i, :organizationId, i % 10, 'gpt-4o-mini', 'openai/gpt-4o-mini', 1000 + i % 500, 20 + i % 50, 1020 + i % 500 + i % 50, 'success',
            now() - (i::double precision / :steps) * interval '30 days', now()
       from generate_series(1, :steps) as i`,
    { organizationId, steps: plan.steps },
  );
  // What autovacuum does over a month: the rollups' rows are rewritten once per run, their old versions cleared.
  for (const table of ['traces', 'steps', 'run_metric_buckets', 'agent_activity_days', 'tool_metric_buckets', 'model_usage_buckets']) await db.raw(`vacuum analyze ${table}`);
}

/** The overview and each metric over the last 30 days, daily in UTC, read through the services the console routes call. */
export async function measureObservability(
  deps: { db: Database; organizationId: string },
  plan: { traces: number; steps: number; warmup: number; samples: number },
): Promise<ObservabilityMeasurement> {
  const seedStarted = performance.now();
  await seedHistory(deps.db, deps.organizationId, plan);
  const seedMs = performance.now() - seedStarted;

  const { metrics, usage } = createObservabilityServices({ db: deps.db });
  const ctx = { organizationId: deps.organizationId, userId: 'bench', role: 'analyst' as const, requestId: 'bench', project: {} };
  const end = new Date();
  const query = { start: new Date(end.getTime() - 30 * DAY_MS), end, granularity: 'daily' as const, timezone: 'UTC' };
  const reads: Array<[string, () => Promise<unknown>]> = [
    ['overview', () => metrics.overview(ctx, query)],
    ['metrics/latency', () => metrics.latency(ctx, query)],
    ['metrics/errors', () => metrics.errors(ctx, query)],
    ['metrics/steps', () => metrics.steps(ctx, query)],
    ['metrics/active-agents', () => metrics.activeAgents(ctx, query)],
    ['metrics/tool-usage', () => metrics.toolUsage(ctx, query)],
    ['metrics/latency hourly', () => metrics.latency(ctx, { ...query, granularity: 'hourly' })],
    ['usage/model-summary', () => usage.modelSummary(ctx, query)],
  ];
  const queries: ObservabilityMeasurement['queries'] = [];
  for (const [name, read] of reads) {
    for (let index = 0; index < plan.warmup; index++) await read();
    const samples: number[] = [];
    for (let index = 0; index < plan.samples; index++) {
      const started = performance.now();
      await read();
      samples.push(performance.now() - started);
    }
    queries.push({ name, ms: summarize(samples) });
  }
  const spanExport = await measureSpanExport(deps, { warmup: 200, samples: STEPS_PER_EXPORT_BATCH * 20, stepsPerBatch: STEPS_PER_EXPORT_BATCH });
  return { traces: plan.traces, steps: plan.steps, seedMs, queries, spanExport };
}
