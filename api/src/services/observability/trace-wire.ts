import { z } from 'zod';
import type { Trace, TraceSpan } from '@engram/db';

export const SpanWire = z
  .object({
    trace_id: z.string(),
    span_id: z.string(),
    parent_span_id: z.string().nullable(),
    name: z.string(),
    kind: z.string(),
    service_name: z.string(),
    start_time: z.string(),
    start_unix_nano: z.string(),
    duration_ms: z.number(),
    status_code: z.enum(['unset', 'ok', 'error']),
    status_message: z.string().nullable(),
    attributes: z.record(z.string(), z.unknown()),
    events: z.array(z.object({ name: z.string(), time_unix_nano: z.string(), attributes: z.record(z.string(), z.unknown()) })),
  })
  .meta({ id: 'TraceSpan' });

export const TraceSummaryWire = z
  .object({
    trace_id: z.string(),
    project_id: z.string().nullable(),
    agent_id: z.string().nullable(),
    run_id: z.string().nullable(),
    template_family: z.string().nullable(),
    root_span_name: z.string().nullable(),
    started_at: z.string(),
    ended_at: z.string(),
    duration_ms: z.number(),
    span_count: z.number(),
    agent_steps: z.number(),
    status_code: z.enum(['ok', 'tool_error', 'api_error']),
    function_names: z.array(z.string()),
  })
  .meta({ id: 'TraceSummary' });

export type SpanWire = z.infer<typeof SpanWire>;
export type TraceSummaryWire = z.infer<typeof TraceSummaryWire>;

export function spanToWire(span: TraceSpan): SpanWire {
  return {
    trace_id: span.traceId,
    span_id: span.spanId,
    parent_span_id: span.parentSpanId,
    name: span.name,
    kind: span.kind,
    service_name: span.serviceName,
    start_time: span.startedAt.toISOString(),
    start_unix_nano: String(span.startUnixNano),
    duration_ms: Number(span.durationNs) / 1e6,
    status_code: span.statusCode,
    status_message: span.statusMessage,
    attributes: span.attributes,
    events: span.events.map((event) => ({ name: event.name, time_unix_nano: event.timeUnixNano, attributes: event.attributes })),
  };
}

/** An API failure (the model call) outranks a tool failure: the run could not go on at all. */
export function traceStatusOf(trace: Pick<Trace, 'hasApiError' | 'hasToolError'>): TraceSummaryWire['status_code'] {
  if (trace.hasApiError) return 'api_error';
  return trace.hasToolError ? 'tool_error' : 'ok';
}

export function traceToWire(trace: Trace): TraceSummaryWire {
  return {
    trace_id: trace.traceId,
    project_id: trace.projectId,
    agent_id: trace.agentId,
    run_id: trace.runId,
    template_family: trace.templateFamily,
    root_span_name: trace.rootSpanName,
    started_at: trace.startedAt.toISOString(),
    ended_at: trace.endedAt.toISOString(),
    duration_ms: Number(trace.durationMs),
    span_count: trace.spanCount,
    agent_steps: trace.agentSteps,
    status_code: traceStatusOf(trace),
    function_names: trace.functionNames,
  };
}
