import type { Knex } from 'knex';
import { ofVisibleAgent, type Database } from '@engram/db';
import type { RequestContext } from '../../http/request-context.js';
import { activeQuarters, addBins, type Histogram, localPeriodNamer, percentileOf, splitIntoBuckets, type TimeSpan } from './rollup-math.js';

const DAY_MS = 86_400_000;

/**
 * Metrics over time from rollups per quarter hour (migration 20261130100000_metric_rollups), which triggers keep as
 * the span exporter writes the runs' `traces` summaries: a month reads a few thousand rollup rows, never a step or a
 * span, and never one row per run. Latency percentiles come from histograms, within 2.2% of the run they name.
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

/** What a filter by project or template family compares in a rollup, where a run without one is ''. */
function scopeRollup(rows: Knex.QueryBuilder, query: MetricQuery): Knex.QueryBuilder {
  if (query.projectId) rows.where('project_id', query.projectId);
  if (query.templateFamily) rows.where('template_family', query.templateFamily);
  return rows;
}

/** Rows whose `column` falls in any of the spans (a range's uneven ends, or the whole range). */
export function inSpans(rows: Knex.QueryBuilder, column: string, spans: TimeSpan[]): Knex.QueryBuilder {
  return rows.where((any) => {
    for (const span of spans) {
      any.orWhere((inside) => {
        inside.where(column, '>=', span.start).where(column, '<', span.end);
      });
    }
  });
}

/**
 * Where a metric reads: the rollups for the whole quarter hours of the range, the runs themselves for its uneven ends.
 * The rollups hold no agent, so a metric of one agent reads that agent's runs (an index finds them).
 */
export function partsOf(query: MetricQuery): { buckets: TimeSpan | null; runs: TimeSpan[] } {
  if (query.agentId) return { buckets: null, runs: [{ start: query.start, end: query.end }] };
  const { whole, ends } = splitIntoBuckets(query);
  return { buckets: whole, runs: ends };
}

/** The run summaries (`traces` rows of a run) that started in the given spans. */
function tracesIn(db: Database, ctx: RequestContext, query: MetricQuery, spans: TimeSpan[]): Knex.QueryBuilder {
  const runs = inSpans(db('traces').where('organization_id', ctx.organizationId).whereNotNull('run_id'), 'started_at', spans);
  if (query.projectId) runs.where('project_id', query.projectId);
  if (query.agentId) runs.where('agent_id', query.agentId);
  if (query.templateFamily) runs.where('template_family', query.templateFamily);
  return runs;
}

/** Rollup rows of the organization in the whole buckets of the range. */
function bucketsIn(db: Database, ctx: RequestContext, query: MetricQuery, table: string, span: TimeSpan): Knex.QueryBuilder {
  return scopeRollup(db(table).where('organization_id', ctx.organizationId).where('bucket_start', '>=', span.start).where('bucket_start', '<', span.end), query);
}

/** The local start of each run's hour or day in the caller's timezone, as `YYYY-MM-DDTHH:00` or `YYYY-MM-DD`. */
function periodOf(db: Database, query: MetricQuery, column: string): Knex.Raw {
  const unit = query.granularity === 'hourly' ? 'hour' : 'day';
  const format = query.granularity === 'hourly' ? 'YYYY-MM-DD"T"HH24:00' : 'YYYY-MM-DD';
  return db.raw(`to_char(date_trunc('${unit}', ${column} at time zone ?), '${format}')`, [query.timezone]);
}

/** Runs (not their traces: time to first token is the run's own measurement) created in the spans with a first token. */
function answeredRunsIn(db: Database, ctx: RequestContext, query: MetricQuery, spans: TimeSpan[]): Knex.QueryBuilder {
  const runs = inSpans(db('runs').where('runs.organization_id', ctx.organizationId).whereNotNull('runs.ttft_ns'), 'runs.created_at', spans);
  if (query.projectId) runs.where('runs.project_id', query.projectId);
  if (query.agentId) runs.where('runs.agent_id', query.agentId);
  if (query.templateFamily) {
    runs.whereRaw('exists (select 1 from agents where agents.organization_id = runs.organization_id and agents.id = runs.agent_id and agents.base_template_id = ?)', [
      query.templateFamily,
    ]);
  }
  return runs;
}

type RunTotals = { runs: number; apiErrorRuns: number; toolErrorRuns: number; steps: number; durations: Histogram };
type Grouping = 'period' | 'whole range';

const num = (value: unknown): number => (value === null || value === undefined ? 0 : Number(value));

function totalsOf(periods: Map<string, RunTotals>, period: string): RunTotals {
  let totals = periods.get(period);
  if (!totals) {
    totals = { runs: 0, apiErrorRuns: 0, toolErrorRuns: 0, steps: 0, durations: new Map() };
    periods.set(period, totals);
  }
  return totals;
}

const latencyOf = (histogram: Histogram) => ({ p50: percentileOf(histogram, 0.5), p95: percentileOf(histogram, 0.95), p99: percentileOf(histogram, 0.99) });

/** A series in period order, its periods the caller's local hours or days. */
const inPeriodOrder = <T>(periods: Map<string, T>) => [...periods.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

export function createMetricsService(deps: { db: Database }) {
  const { db } = deps;
  const periodColumn = (query: MetricQuery, grouping: Grouping, column: string) => (grouping === 'period' ? periodOf(db, query, column) : db.raw(`'all'`));

  /** Runs, errors, steps and the duration histogram per period (or of the whole range). */
  async function runTotals(ctx: RequestContext, query: MetricQuery, grouping: Grouping): Promise<Map<string, RunTotals>> {
    const parts = partsOf(query);
    const periods = new Map<string, RunTotals>();
    if (parts.buckets) {
      const rows = (await bucketsIn(db, ctx, query, 'run_metric_buckets', parts.buckets)
        .whereNot('runs', 0)
        .select(db.raw(`${periodColumn(query, grouping, 'bucket_start').toQuery()} as period`), 'runs', 'api_error_runs', 'tool_error_runs', 'steps', 'duration_bins')) as Array<{
        period: string;
        runs: number;
        apiErrorRuns: number;
        toolErrorRuns: number;
        steps: string;
        durationBins: Record<string, number>;
      }>;
      for (const row of rows) {
        const totals = totalsOf(periods, row.period);
        totals.runs += row.runs;
        totals.apiErrorRuns += row.apiErrorRuns;
        totals.toolErrorRuns += row.toolErrorRuns;
        totals.steps += num(row.steps);
        addBins(totals.durations, row.durationBins);
      }
    }
    if (parts.runs.length) {
      const rows = (await tracesIn(db, ctx, query, parts.runs)
        .select(
          db.raw(`${periodColumn(query, grouping, 'started_at').toQuery()} as period`),
          db.raw('engram_latency_bin(duration_ms) as bin, count(*) as runs, count(*) filter (where has_api_error) as api_error_runs'),
          db.raw('count(*) filter (where has_tool_error) as tool_error_runs, sum(agent_steps) as steps'),
        )
        .groupByRaw('1, 2')) as Array<{ period: string; bin: number; runs: string; apiErrorRuns: string; toolErrorRuns: string; steps: string }>;
      for (const row of rows) {
        const totals = totalsOf(periods, row.period);
        totals.runs += num(row.runs);
        totals.apiErrorRuns += num(row.apiErrorRuns);
        totals.toolErrorRuns += num(row.toolErrorRuns);
        totals.steps += num(row.steps);
        addBins(totals.durations, [[row.bin, num(row.runs)]]);
      }
    }
    return periods;
  }

  /**
   * Distinct agents with a run per period (or in the whole range): the whole quarter hours from the agents' activity
   * days, named by local period here, the uneven ends from the runs.
   */
  async function activeAgentCounts(ctx: RequestContext, query: MetricQuery, grouping: Grouping): Promise<Map<string, number>> {
    const parts = partsOf(query);
    const agents = new Map<string, Set<string>>();
    const ran = (period: string, agentId: string) => agents.set(period, (agents.get(period) ?? new Set()).add(agentId));
    const whole = parts.buckets;
    if (whole) {
      const nameOf = grouping === 'period' ? localPeriodNamer(query.timezone, query.granularity) : () => 'all';
      const days = (await scopeRollup(
        db('agent_activity_days')
          .where('organization_id', ctx.organizationId)
          .where('day_start', '>', new Date(whole.start.getTime() - DAY_MS))
          .where('day_start', '<', whole.end),
        query,
      ).select('agent_id', 'day_start', 'quarter_runs')) as Array<{ agentId: string; dayStart: Date; quarterRuns: number[] }>;
      for (const day of days) {
        // Over the whole range, an agent counted once needs no more of its days.
        if (grouping === 'whole range' && agents.get('all')?.has(day.agentId)) continue;
        let previous: string | undefined;
        for (const quarter of activeQuarters(day.dayStart, day.quarterRuns)) {
          if (quarter < whole.start.getTime() || quarter >= whole.end.getTime()) continue;
          const period = nameOf(quarter);
          // A day's quarter hours fall in a few local periods, in order: each is added once.
          if (period !== previous) ran(period, day.agentId);
          previous = period;
        }
      }
    }
    if (parts.runs.length) {
      const rows = (await tracesIn(db, ctx, query, parts.runs)
        .whereNotNull('agent_id')
        .distinct(db.raw(`${periodColumn(query, grouping, 'started_at').toQuery()} as period`), 'agent_id')) as Array<{ period: string; agentId: string }>;
      for (const row of rows) ran(row.period, row.agentId);
    }
    return new Map([...agents.entries()].map(([period, ids]) => [period, ids.size]));
  }

  /** The time-to-first-token histogram per period, by each run's creation. */
  async function firstTokenTotals(ctx: RequestContext, query: MetricQuery): Promise<Map<string, { runs: number; times: Histogram }>> {
    const parts = partsOf(query);
    const periods = new Map<string, { runs: number; times: Histogram }>();
    const of = (period: string) => {
      const totals = periods.get(period) ?? { runs: 0, times: new Map() };
      periods.set(period, totals);
      return totals;
    };
    if (parts.buckets) {
      const rows = (await bucketsIn(db, ctx, query, 'run_metric_buckets', parts.buckets)
        .whereNot('ttft_runs', 0)
        .select(db.raw(`${periodOf(db, query, 'bucket_start').toQuery()} as period`), 'ttft_runs', 'ttft_bins')) as Array<{ period: string; ttftRuns: number; ttftBins: Record<string, number> }>;
      for (const row of rows) {
        const totals = of(row.period);
        totals.runs += row.ttftRuns;
        addBins(totals.times, row.ttftBins);
      }
    }
    if (parts.runs.length) {
      const rows = (await answeredRunsIn(db, ctx, query, parts.runs)
        .select(db.raw(`${periodOf(db, query, 'runs.created_at').toQuery()} as period`), db.raw('engram_latency_bin(runs.ttft_ns / 1e6) as bin, count(*) as runs'))
        .groupByRaw('1, 2')) as Array<{ period: string; bin: number; runs: string }>;
      for (const row of rows) {
        const totals = of(row.period);
        totals.runs += num(row.runs);
        addBins(totals.times, [[row.bin, num(row.runs)]]);
      }
    }
    return periods;
  }

  return {
    async overview(ctx: RequestContext, query: MetricQuery) {
      const [totals, agents] = await Promise.all([runTotals(ctx, query, 'whole range'), activeAgentCounts(ctx, query, 'whole range')]);
      const all = totals.get('all') ?? { runs: 0, apiErrorRuns: 0, toolErrorRuns: 0, steps: 0, durations: new Map() };
      return {
        runs: all.runs,
        steps: all.steps,
        activeAgents: agents.get('all') ?? 0,
        errors: { apiError: all.apiErrorRuns, toolError: all.toolErrorRuns },
        latencyMs: latencyOf(all.durations),
      };
    },

    async latency(ctx: RequestContext, query: MetricQuery) {
      return inPeriodOrder(await runTotals(ctx, query, 'period')).map(([period, totals]) => ({ period, runs: totals.runs, ...latencyOf(totals.durations) }));
    },

    async errors(ctx: RequestContext, query: MetricQuery) {
      return inPeriodOrder(await runTotals(ctx, query, 'period')).map(([period, totals]) => ({
        period,
        runs: totals.runs,
        apiError: totals.apiErrorRuns,
        toolError: totals.toolErrorRuns,
      }));
    },

    async steps(ctx: RequestContext, query: MetricQuery) {
      return inPeriodOrder(await runTotals(ctx, query, 'period')).map(([period, totals]) => ({
        period,
        runs: totals.runs,
        steps: totals.steps,
        stepsPerRun: totals.steps / Math.max(1, totals.runs),
      }));
    },

    async activeAgents(ctx: RequestContext, query: MetricQuery) {
      return inPeriodOrder(await activeAgentCounts(ctx, query, 'period')).map(([period, activeAgents]) => ({ period, activeAgents }));
    },

    /** Percentiles of the time to the first token (milliseconds) of the runs that produced one, per period. */
    async timeToFirstToken(ctx: RequestContext, query: MetricQuery) {
      return inPeriodOrder(await firstTokenTotals(ctx, query)).map(([period, totals]) => ({ period, runs: totals.runs, ...latencyOf(totals.times) }));
    },

    /** The sends behind the time-to-first-token chart, slowest first, a page at a time. */
    async timeToFirstTokenMessages(ctx: RequestContext, query: MetricQuery, page: { limit: number; offset: number }) {
      // Hidden agents' runs are listed only when their agent is asked for; the aggregates count every run, as the rollups do.
      const runs = answeredRunsIn(db, ctx, query, [{ start: query.start, end: query.end }]);
      if (!query.agentId) runs.whereRaw(ofVisibleAgent('runs'));
      const rows = (await runs
        .select('runs.id', 'runs.agent_id', 'runs.ttft_ns', 'runs.total_duration_ns', 'runs.created_at')
        .orderBy([{ column: 'runs.ttft_ns', order: 'desc' }, { column: 'runs.id' }])
        .offset(page.offset)
        .limit(page.limit + 1)) as Array<{ id: string; agentId: string; ttftNs: string; totalDurationNs: string | null; createdAt: Date }>;
      return {
        messages: rows.slice(0, page.limit).map((row) => ({
          runId: row.id,
          agentId: row.agentId,
          timeToFirstTokenMs: Number(row.ttftNs) / 1e6,
          durationMs: row.totalDurationNs === null ? null : Number(row.totalDurationNs) / 1e6,
          createdAt: row.createdAt.toISOString(),
        })),
        hasNextPage: rows.length > page.limit,
      };
    },

    /**
     * Runs that called each tool and the share of them in which a tool failed, and the calls themselves with those that
     * failed (each trace summary counts its `execute_tool` spans).
     */
    async toolUsage(ctx: RequestContext, query: MetricQuery) {
      const parts = partsOf(query);
      const sources: Knex.QueryBuilder[] = [];
      if (parts.buckets) sources.push(bucketsIn(db, ctx, query, 'tool_metric_buckets', parts.buckets).select('tool_name', 'runs', 'failed_runs', 'calls', 'failed_calls'));
      if (parts.runs.length) {
        sources.push(
          tracesIn(db, ctx, query, parts.runs)
            .joinRaw('cross join unnest(function_names) as tool_name')
            .select(
              'tool_name',
              db.raw('1 as runs'),
              db.raw('case when has_tool_error then 1 else 0 end as failed_runs'),
              db.raw(`coalesce((tool_calls -> tool_name ->> 'calls')::integer, 0) as calls`),
              db.raw(`coalesce((tool_calls -> tool_name ->> 'failed')::integer, 0) as failed_calls`),
            ),
        );
      }
      if (!sources.length) return [];
      const rows = (await db
        .from(db.unionAll(sources, true).as('calls'))
        .select('tool_name', db.raw('sum(runs) as runs, sum(failed_runs) as failed, sum(calls) as calls, sum(failed_calls) as failed_calls'))
        .groupBy('tool_name')
        .havingRaw('sum(runs) > 0')
        .orderBy([{ column: 'runs', order: 'desc' }, { column: 'tool_name' }])) as Array<{ toolName: string; runs: string; failed: string; calls: string; failedCalls: string }>;
      return rows.map((row) => ({
        toolName: row.toolName,
        runs: num(row.runs),
        errorRate: num(row.failed) / Math.max(1, num(row.runs)),
        calls: num(row.calls),
        failedCalls: num(row.failedCalls),
      }));
    },
  };
}

export type MetricsService = ReturnType<typeof createMetricsService>;
