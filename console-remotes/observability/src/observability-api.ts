import { sendJson } from '@engram/console-kit';
import type { Wire } from '@engram/console-kit/wire-types';

/** The console's observability, usage and cost calls (spec 000 §7), all scoped to the organization by the API. */
const API = '/api';

export type Overview = Wire.ObservabilityOverview;
export type LatencyPeriod = Wire.LatencyPeriod;
export type ErrorsPeriod = Wire.ErrorsPeriod;
export type StepsPeriod = Wire.StepsPeriod;
export type ActiveAgentsPeriod = Wire.ActiveAgentsPeriod;
export type ToolUsage = Wire.ToolUsage;
export type TimeToFirstTokenMessage = Wire.TimeToFirstTokenMessage;
export type TraceSummary = Wire.TraceSummary;
export type TraceSpan = Wire.TraceSpan;
export type ModelUsageSummary = Wire.ModelUsageSummary;
export type CostSummary = Wire.CostSummary;
export type ModelCosts = Wire.ModelCosts;

/** Spec 000 §9's ranges; `custom` sends its own start and end. */
export const RANGES = ['1h', '4h', '12h', '1d', '7d', '30d', 'custom'] as const;
export type RangeName = (typeof RANGES)[number];
export type Granularity = 'hourly' | 'daily';

/** The query every metric, usage and cost call takes (`MetricQuerySchema` of the API). */
export type MetricQuery = {
  range: RangeName;
  /** Unix seconds, for `custom` only. */
  startTimeUnix?: number;
  endTimeUnix?: number;
  granularity: Granularity;
  timezone: string;
  projectId?: string;
  agentId?: string;
};

type Comparison<Operator extends string, Value> = { operator: Operator; value: Value };

/** The trace search body: spec 000 §5's filters over a time range (Unix seconds), 100 to a page. */
export type TraceSearch = {
  startTimeUnix: number;
  endTimeUnix: number;
  projectId?: string;
  agentId?: string;
  /** `250ms`, `1.5s`, `2m`. */
  duration?: Comparison<'gte' | 'lte', string>;
  statusCode?: 'tool_error' | 'api_error';
  /** An ISO 8601 date or date-time. */
  timestamp?: Comparison<'gte' | 'lte', string>;
  functionName?: string;
  templateFamily?: string;
  agentSteps?: Comparison<'eq' | 'gte' | 'lte', number>;
  cursor?: string;
};

export const TTFT_MESSAGES_PER_PAGE = 25;

const metric = <T>(path: string, query: MetricQuery) => sendJson<T>(`${API}/observability${path}`, { query });

export const observabilityApi = {
  overview: (query: MetricQuery) => metric<Overview>('/overview', query),
  latency: (query: MetricQuery) => metric<{ series: LatencyPeriod[] }>('/metrics/latency', query),
  timeToFirstToken: (query: MetricQuery) => metric<{ series: LatencyPeriod[] }>('/metrics/time-to-first-token', query),
  timeToFirstTokenMessages: (query: MetricQuery, offset: number) =>
    sendJson<{ messages: TimeToFirstTokenMessage[]; hasNextPage: boolean }>(`${API}/observability/metrics/time-to-first-token/messages`, {
      query: { ...query, limit: TTFT_MESSAGES_PER_PAGE, offset },
    }),
  errors: (query: MetricQuery) => metric<{ series: ErrorsPeriod[] }>('/metrics/errors', query),
  steps: (query: MetricQuery) => metric<{ series: StepsPeriod[] }>('/metrics/steps', query),
  activeAgents: (query: MetricQuery) => metric<{ series: ActiveAgentsPeriod[] }>('/metrics/active-agents', query),
  toolUsage: (query: MetricQuery) => metric<{ tools: ToolUsage[] }>('/metrics/tool-usage', query),

  searchTraces: (search: TraceSearch) => sendJson<{ traces: TraceSummary[]; nextCursor: string | null }>(`${API}/observability/traces`, { method: 'POST', json: search }),
  trace: (traceId: string) => sendJson<{ trace: TraceSummary; spans: TraceSpan[] }>(`${API}/traces/${encodeURIComponent(traceId)}`),

  modelSummary: (query: MetricQuery) => sendJson<{ models: ModelUsageSummary[] }>(`${API}/usage/model-summary`, { query }),
  costs: (query: MetricQuery) => sendJson<CostSummary>(`${API}/costs`, { query }),
  modelCosts: (modelId: string, query: MetricQuery) => sendJson<ModelCosts>(`${API}/costs/${encodeURIComponent(modelId)}`, { query }),
};

/** Everything here reads the organization's telemetry: one prefix, so a refresh can invalidate it all. */
export const observabilityKeys = {
  all: ['observability'] as const,
  metric: (name: string, query: MetricQuery) => ['observability', 'metric', name, query] as const,
  ttftMessages: (query: MetricQuery, offset: number) => ['observability', 'ttft-messages', query, offset] as const,
  traces: (search: TraceSearch) => ['observability', 'traces', search] as const,
  trace: (traceId: string) => ['observability', 'trace', traceId] as const,
  modelSummary: (query: MetricQuery) => ['observability', 'model-summary', query] as const,
  costs: (query: MetricQuery) => ['observability', 'costs', query] as const,
  modelCosts: (modelId: string, query: MetricQuery) => ['observability', 'costs', modelId, query] as const,
  agents: (projectId: string) => ['observability', 'agents', projectId] as const,
};
