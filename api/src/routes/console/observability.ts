import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireContext } from '../../http/auth.js';
import type { AppServices } from '../../services/index.js';
import type { MetricQuery } from '../../services/observability/metrics-service.js';
import {
  CountFilter,
  DateFilter,
  DurationFilter,
  isTimezone,
  OBSERVABILITY_MESSAGES,
  parseDuration,
  parseIsoDate,
  TimeRange,
} from '../../services/observability/query-rules.js';
import { TraceSummaryWire, traceToWire } from '../../services/observability/trace-wire.js';

/** Spec 000 §9: a page of traces holds at most 100. */
const TRACES_PER_PAGE = 100;

const TraceSearchBody = z
  .object({
    projectId: z.string().optional(),
    agentId: z.string().optional(),
    duration: DurationFilter.optional(),
    statusCode: z.enum(['tool_error', 'api_error']).optional(),
    timestamp: DateFilter.optional(),
    functionName: z.string().min(1).optional(),
    templateFamily: z.string().min(1).optional(),
    agentSteps: CountFilter.optional(),
    limit: z.number().int().min(1).max(TRACES_PER_PAGE).default(TRACES_PER_PAGE),
    cursor: z.string().optional(),
  })
  .and(TimeRange);

/** Spec 000 §9's ranges, ending now; `custom` takes startTimeUnix and endTimeUnix. */
const RANGE_HOURS = { '1h': 1, '4h': 4, '12h': 12, '1d': 24, '7d': 168, '30d': 720 } as const;

export const MetricQuerySchema = z
  .object({
    range: z.enum(['1h', '4h', '12h', '1d', '7d', '30d', 'custom']).default('7d'),
    startTimeUnix: z.string().optional(),
    endTimeUnix: z.string().optional(),
    granularity: z.enum(['hourly', 'daily']).default('daily'),
    timezone: z.string().default('UTC').refine(isTimezone, { message: OBSERVABILITY_MESSAGES.timezone }),
    projectId: z.string().optional(),
    agentId: z.string().optional(),
    templateFamily: z.string().optional(),
  })
  .superRefine((query, issues) => {
    if (query.range !== 'custom') return;
    const parsed = TimeRange.safeParse({ startTimeUnix: query.startTimeUnix ?? '', endTimeUnix: query.endTimeUnix ?? '' });
    for (const issue of parsed.error?.issues ?? []) issues.addIssue({ code: 'custom', path: issue.path, message: issue.message });
  });

export function metricQueryOf(query: z.infer<typeof MetricQuerySchema>, now = new Date()): MetricQuery {
  const [start, end] =
    query.range === 'custom'
      ? [new Date(Number(query.startTimeUnix) * 1000), new Date(Number(query.endTimeUnix) * 1000)]
      : [new Date(now.getTime() - RANGE_HOURS[query.range] * 3_600_000), now];
  return {
    start,
    end,
    granularity: query.granularity,
    timezone: query.timezone,
    projectId: query.projectId,
    agentId: query.agentId,
    templateFamily: query.templateFamily,
  };
}

/** Spec 000 §9: time-to-first-token messages come 25 to a page. */
const TTFT_MESSAGES_PER_PAGE = 25;

const TtftMessagesQuery = MetricQuerySchema.and(
  z.object({
    limit: z.coerce
      .number({ error: OBSERVABILITY_MESSAGES.limit })
      .int({ error: OBSERVABILITY_MESSAGES.limit })
      .min(1, { error: OBSERVABILITY_MESSAGES.limit })
      .max(TTFT_MESSAGES_PER_PAGE, { error: OBSERVABILITY_MESSAGES.limit })
      .default(TTFT_MESSAGES_PER_PAGE),
    offset: z.coerce.number({ error: OBSERVABILITY_MESSAGES.offset }).int({ error: OBSERVABILITY_MESSAGES.offset }).min(0, { error: OBSERVABILITY_MESSAGES.offset }).default(0),
  }),
);

const Latency = z.object({ p50: z.number().nullable(), p95: z.number().nullable(), p99: z.number().nullable() });

// The response shapes are named so the console kit's wire types carry them (npm run contracts:kit-types).
const ObservabilityOverview = z
  .object({
    runs: z.number(),
    steps: z.number(),
    activeAgents: z.number(),
    errors: z.object({ apiError: z.number(), toolError: z.number() }),
    latencyMs: Latency,
  })
  .meta({ id: 'ObservabilityOverview' });
const LatencyPeriod = Latency.extend({ period: z.string(), runs: z.number() }).meta({ id: 'LatencyPeriod' });
const ErrorsPeriod = z.object({ period: z.string(), runs: z.number(), apiError: z.number(), toolError: z.number() }).meta({ id: 'ErrorsPeriod' });
const StepsPeriod = z.object({ period: z.string(), runs: z.number(), steps: z.number(), stepsPerRun: z.number() }).meta({ id: 'StepsPeriod' });
const ActiveAgentsPeriod = z.object({ period: z.string(), activeAgents: z.number() }).meta({ id: 'ActiveAgentsPeriod' });
const TimeToFirstTokenMessage = z
  .object({ runId: z.string(), agentId: z.string(), timeToFirstTokenMs: z.number(), durationMs: z.number().nullable(), createdAt: z.string() })
  .meta({ id: 'TimeToFirstTokenMessage' });
const ToolUsage = z
  .object({
    toolName: z.string(),
    /** Runs that called the tool, and the share of them in which a tool failed. */
    runs: z.number(),
    errorRate: z.number(),
    /** The calls of the tool in those runs (their `execute_tool` spans), and those that failed. */
    calls: z.number(),
    failedCalls: z.number(),
  })
  .meta({ id: 'ToolUsage' });

/** The console's observability API: trace search over the span store, and the metrics family. */
export function observabilityRoutes(services: AppServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/observability/traces',
      {
        schema: {
          tags: ['console: observability'],
          summary: 'Search the run traces of a time range by the filters of spec 000 §5, newest first',
          body: TraceSearchBody,
          response: { 200: z.object({ traces: z.array(TraceSummaryWire), nextCursor: z.string().nullable() }) },
        },
      },
      async (request) => {
        const { body } = request;
        const { traces, nextCursor } = await services.traces.searchTraces(requireContext(request), {
          start: new Date(body.startTimeUnix * 1000),
          end: new Date(body.endTimeUnix * 1000),
          projectId: body.projectId,
          agentId: body.agentId,
          duration: body.duration && { operator: body.duration.operator, milliseconds: parseDuration(body.duration.value) as number },
          statusCode: body.statusCode,
          timestamp: body.timestamp && { operator: body.timestamp.operator, at: parseIsoDate(body.timestamp.value) as Date },
          functionName: body.functionName,
          templateFamily: body.templateFamily,
          agentSteps: body.agentSteps,
          limit: body.limit,
          cursor: body.cursor,
        });
        return { traces: traces.map(traceToWire), nextCursor };
      },
    );

    const tags = ['console: observability'];
    app.get(
      '/observability/overview',
      {
        schema: {
          tags,
          querystring: MetricQuerySchema,
          response: { 200: ObservabilityOverview },
        },
      },
      async (request) => services.metrics.overview(requireContext(request), metricQueryOf(request.query)),
    );

    app.get(
      '/observability/metrics/latency',
      { schema: { tags, querystring: MetricQuerySchema, response: { 200: z.object({ series: z.array(LatencyPeriod) }) } } },
      async (request) => ({ series: await services.metrics.latency(requireContext(request), metricQueryOf(request.query)) }),
    );

    app.get(
      '/observability/metrics/errors',
      {
        schema: {
          tags,
          querystring: MetricQuerySchema,
          response: { 200: z.object({ series: z.array(ErrorsPeriod) }) },
        },
      },
      async (request) => ({ series: await services.metrics.errors(requireContext(request), metricQueryOf(request.query)) }),
    );

    app.get(
      '/observability/metrics/steps',
      {
        schema: {
          tags,
          querystring: MetricQuerySchema,
          response: { 200: z.object({ series: z.array(StepsPeriod) }) },
        },
      },
      async (request) => ({ series: await services.metrics.steps(requireContext(request), metricQueryOf(request.query)) }),
    );

    app.get(
      '/observability/metrics/active-agents',
      { schema: { tags, querystring: MetricQuerySchema, response: { 200: z.object({ series: z.array(ActiveAgentsPeriod) }) } } },
      async (request) => ({ series: await services.metrics.activeAgents(requireContext(request), metricQueryOf(request.query)) }),
    );

    app.get(
      '/observability/metrics/time-to-first-token',
      {
        schema: {
          tags,
          summary: 'Percentiles of the time to the first token, in milliseconds, per period',
          querystring: MetricQuerySchema,
          response: { 200: z.object({ series: z.array(LatencyPeriod) }) },
        },
      },
      async (request) => ({ series: await services.metrics.timeToFirstToken(requireContext(request), metricQueryOf(request.query)) }),
    );

    app.get(
      '/observability/metrics/time-to-first-token/messages',
      {
        schema: {
          tags,
          summary: 'The sends of the range with their time to the first token, slowest first, 25 to a page',
          querystring: TtftMessagesQuery,
          response: { 200: z.object({ messages: z.array(TimeToFirstTokenMessage), hasNextPage: z.boolean() }) },
        },
      },
      async (request) => {
        const { query } = request;
        return services.metrics.timeToFirstTokenMessages(requireContext(request), metricQueryOf(query), { limit: query.limit, offset: query.offset });
      },
    );

    app.get(
      '/observability/metrics/tool-usage',
      {
        schema: {
          tags,
          querystring: MetricQuerySchema,
          response: { 200: z.object({ tools: z.array(ToolUsage) }) },
        },
      },
      async (request) => ({ tools: await services.metrics.toolUsage(requireContext(request), metricQueryOf(request.query)) }),
    );
  };
}
