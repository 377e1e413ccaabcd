import type { Knex } from 'knex';
import type { Database } from '@engram/db';
import type { RequestContext } from '../../http/request-context.js';

/**
 * Metrics over time from the `traces` summaries: one row per run, kept by the span store exporter as spans
 * arrive, so a metric reads one indexed row per run in range and never a step or a span.
 */
export type MetricQuery = {
  start: Date;
  end: Date;
  granularity: 'hourly' | 'daily';
  timezone: string;
  projectId?: string;
  agentId?: string;
  templateFamily?: string;
};

function runsInRange(db: Database, ctx: RequestContext, query: MetricQuery): Knex.QueryBuilder {
  const runs = db('traces')
    .where('organization_id', ctx.organizationId)
    .whereNotNull('run_id')
    .where('started_at', '>=', query.start)
    .where('started_at', '<', query.end);
  if (query.projectId) runs.where('project_id', query.projectId);
  if (query.agentId) runs.where('agent_id', query.agentId);
  if (query.templateFamily) runs.where('template_family', query.templateFamily);
  return runs;
}

/** The local start of each run's hour or day in the caller's timezone, as `YYYY-MM-DDTHH:00` or `YYYY-MM-DD`. */
function periodOf(db: Database, query: MetricQuery, column = 'started_at'): Knex.Raw {
  const unit = query.granularity === 'hourly' ? 'hour' : 'day';
  const format = query.granularity === 'hourly' ? 'YYYY-MM-DD"T"HH24:00' : 'YYYY-MM-DD';
  return db.raw(`to_char(date_trunc('${unit}', ${column} at time zone ?), '${format}')`, [query.timezone]);
}

/** Runs (not their traces: time to first token is the run's own measurement) that started in range with a first token. */
function answeredRunsInRange(db: Database, ctx: RequestContext, query: MetricQuery): Knex.QueryBuilder {
  const runs = db('runs')
    .where('runs.organization_id', ctx.organizationId)
    .whereNotNull('runs.ttft_ns')
    .where('runs.created_at', '>=', query.start)
    .where('runs.created_at', '<', query.end);
  if (query.projectId) runs.where('runs.project_id', query.projectId);
  if (query.agentId) runs.where('runs.agent_id', query.agentId);
  if (query.templateFamily) {
    runs.whereRaw('exists (select 1 from agents where agents.organization_id = runs.organization_id and agents.id = runs.agent_id and agents.base_template_id = ?)', [
      query.templateFamily,
    ]);
  }
  return runs;
}

const percentiles = (column: string) =>
  `percentile_cont(0.5) within group (order by ${column}) as p50, percentile_cont(0.95) within group (order by ${column}) as p95, percentile_cont(0.99) within group (order by ${column}) as p99`;

const num = (value: unknown): number => (value === null || value === undefined ? 0 : Number(value));
const maybe = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));

export function createMetricsService(deps: { db: Database }) {
  const { db } = deps;
  const series = async (ctx: RequestContext, query: MetricQuery, select: string) => {
    const rows = (await runsInRange(db, ctx, query)
      .select(db.raw(`${periodOf(db, query).toQuery()} as period`), db.raw(select))
      .groupByRaw('1')
      .orderByRaw('1')) as Array<Record<string, unknown> & { period: string }>;
    return rows;
  };

  return {
    async overview(ctx: RequestContext, query: MetricQuery) {
      const row = (await runsInRange(db, ctx, query)
        .first(
          db.raw(`count(*) as runs, count(*) filter (where has_api_error) as api_errors, count(*) filter (where has_tool_error) as tool_errors`),
          db.raw(`coalesce(sum(agent_steps), 0) as steps, count(distinct agent_id) as active_agents`),
          db.raw(percentiles('duration_ms')),
        )) as Record<string, unknown>;
      return {
        runs: num(row.runs),
        steps: num(row.steps),
        activeAgents: num(row.activeAgents),
        errors: { apiError: num(row.apiErrors), toolError: num(row.toolErrors) },
        latencyMs: { p50: maybe(row.p50), p95: maybe(row.p95), p99: maybe(row.p99) },
      };
    },

    async latency(ctx: RequestContext, query: MetricQuery) {
      const rows = await series(ctx, query, `count(*) as runs, ${percentiles('duration_ms')}`);
      return rows.map((row) => ({ period: row.period, runs: num(row.runs), p50: num(row.p50), p95: num(row.p95), p99: num(row.p99) }));
    },

    async errors(ctx: RequestContext, query: MetricQuery) {
      const rows = await series(ctx, query, `count(*) as runs, count(*) filter (where has_api_error) as api_errors, count(*) filter (where has_tool_error) as tool_errors`);
      return rows.map((row) => ({ period: row.period, runs: num(row.runs), apiError: num(row.apiErrors), toolError: num(row.toolErrors) }));
    },

    async steps(ctx: RequestContext, query: MetricQuery) {
      const rows = await series(ctx, query, `count(*) as runs, sum(agent_steps) as steps`);
      return rows.map((row) => ({ period: row.period, runs: num(row.runs), steps: num(row.steps), stepsPerRun: num(row.steps) / Math.max(1, num(row.runs)) }));
    },

    async activeAgents(ctx: RequestContext, query: MetricQuery) {
      const rows = await series(ctx, query, `count(distinct agent_id) as agents`);
      return rows.map((row) => ({ period: row.period, activeAgents: num(row.agents) }));
    },

    /** Percentiles of the time to the first token (milliseconds) of the runs that produced one, per period. */
    async timeToFirstToken(ctx: RequestContext, query: MetricQuery) {
      const rows = (await answeredRunsInRange(db, ctx, query)
        .select(db.raw(`${periodOf(db, query, 'runs.created_at').toQuery()} as period`), db.raw(`count(*) as runs, ${percentiles('runs.ttft_ns / 1e6')}`))
        .groupByRaw('1')
        .orderByRaw('1')) as Array<Record<string, unknown> & { period: string }>;
      return rows.map((row) => ({ period: row.period, runs: num(row.runs), p50: num(row.p50), p95: num(row.p95), p99: num(row.p99) }));
    },

    /** The sends behind the time-to-first-token chart, slowest first, a page at a time. */
    async timeToFirstTokenMessages(ctx: RequestContext, query: MetricQuery, page: { limit: number; offset: number }) {
      const rows = (await answeredRunsInRange(db, ctx, query)
        .select('runs.id', 'runs.agent_id', 'runs.ttft_ns', 'runs.total_duration_ns', 'runs.created_at')
        .orderBy([{ column: 'runs.ttft_ns', order: 'desc' }, { column: 'runs.id' }])
        .offset(page.offset)
        .limit(page.limit + 1)) as Array<{ id: string; agentId: string; ttftNs: string; totalDurationNs: string | null; createdAt: Date }>;
      return {
        messages: rows.slice(0, page.limit).map((row) => ({
          runId: row.id,
          agentId: row.agentId,
          timeToFirstTokenMs: Number(row.ttftNs) / 1e6,
          durationMs: maybe(row.totalDurationNs) === null ? null : Number(row.totalDurationNs) / 1e6,
          createdAt: row.createdAt.toISOString(),
        })),
        hasNextPage: rows.length > page.limit,
      };
    },

    /**
     * Runs that called each tool and the share of them in which a tool failed (from the trace summaries), and the
     * calls themselves with those that failed (the `execute_tool` spans of those runs' traces).
     */
    async toolUsage(ctx: RequestContext, query: MetricQuery) {
      const rows = (await runsInRange(db, ctx, query)
        .select(db.raw('tool_name'), db.raw('count(*) as runs'), db.raw('count(*) filter (where has_tool_error) as failed'))
        .joinRaw('cross join unnest(function_names) as tool_name')
        .groupBy('tool_name')
        .orderBy([{ column: 'runs', order: 'desc' }, { column: 'tool_name' }])) as Array<{ toolName: string; runs: string; failed: string }>;
      const calls = (await db('trace_spans')
        .whereIn('trace_id', runsInRange(db, ctx, query).select('trace_id'))
        .where('name', 'like', 'execute\\_tool %')
        .select(
          db.raw(`coalesce(attributes->>'gen_ai.tool.name', substr(name, length('execute_tool ') + 1)) as tool_name`),
          db.raw('count(*) as calls'),
          db.raw(`count(*) filter (where status_code = 'error') as failed_calls`),
        )
        .groupByRaw('1')) as Array<{ toolName: string; calls: string; failedCalls: string }>;
      return rows.map((row) => {
        const called = calls.find((candidate) => candidate.toolName === row.toolName);
        return {
          toolName: row.toolName,
          runs: num(row.runs),
          errorRate: num(row.failed) / Math.max(1, num(row.runs)),
          calls: num(called?.calls),
          failedCalls: num(called?.failedCalls),
        };
      });
    },
  };
}

export type MetricsService = ReturnType<typeof createMetricsService>;
