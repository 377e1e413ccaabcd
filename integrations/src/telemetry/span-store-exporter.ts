import { SpanKind, SpanStatusCode, type Attributes, type HrTime } from '@opentelemetry/api';
import { ExportResultCode, hrTimeToNanoseconds, type ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { ENGRAM, GEN_AI, SPAN } from '@engram/core';
import type { Database } from '@engram/db';

/**
 * The fields a span is read by. Spans of Temporal's workflow sandbox still come in the shape of the 1.x SDK
 * (`parentSpanId` instead of `parentSpanContext`), so both are accepted.
 */
export type ExportedSpan = Pick<ReadableSpan, 'name' | 'kind' | 'spanContext' | 'startTime' | 'endTime' | 'status' | 'attributes' | 'events' | 'resource'> & {
  parentSpanContext?: { spanId: string };
  parentSpanId?: string;
};

export function parentSpanIdOf(span: ExportedSpan): string | null {
  return span.parentSpanContext?.spanId ?? span.parentSpanId ?? null;
}

const KIND_NAMES: Record<SpanKind, string> = {
  [SpanKind.INTERNAL]: 'internal',
  [SpanKind.SERVER]: 'server',
  [SpanKind.CLIENT]: 'client',
  [SpanKind.PRODUCER]: 'producer',
  [SpanKind.CONSUMER]: 'consumer',
};

const STATUS_NAMES: Record<SpanStatusCode, 'unset' | 'ok' | 'error'> = {
  [SpanStatusCode.UNSET]: 'unset',
  [SpanStatusCode.OK]: 'ok',
  [SpanStatusCode.ERROR]: 'error',
};

/** Only scalar values and arrays of them are attributes; Temporal's sink adds whole objects, which are dropped. */
function storedAttributes(attributes: Attributes): Record<string, unknown> {
  const stored: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined || value === null) continue;
    if (typeof value === 'object' && !Array.isArray(value)) continue;
    stored[key] = value;
  }
  return stored;
}

function text(attributes: Attributes, key: string): string | null {
  const value = attributes[key];
  return typeof value === 'string' && value !== '' ? value : null;
}

function nanos(time: HrTime): bigint {
  return BigInt(time[0]) * 1_000_000_000n + BigInt(time[1]);
}

type SpanRow = {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  organizationId: string | null;
  name: string;
  kind: string;
  serviceName: string;
  startedAt: Date;
  startUnixNano: string;
  durationNs: string;
  statusCode: 'unset' | 'ok' | 'error';
  statusMessage: string | null;
  attributes: string;
  events: string;
  runId: string | null;
  stepId: string | null;
};

type TraceSummary = {
  traceId: string;
  organizationId: string | null;
  projectId: string | null;
  agentId: string | null;
  runId: string | null;
  templateFamily: string | null;
  rootSpanName: string | null;
  startedAt: Date;
  endedAt: Date;
  spanCount: number;
  agentSteps: number;
  hasToolError: boolean;
  hasApiError: boolean;
  functionNames: string[];
  /** Calls per tool in this batch, and those that failed. */
  toolCalls: Record<string, { calls: number; failed: number }>;
};

function spanRow(span: ExportedSpan): SpanRow {
  const { traceId, spanId } = span.spanContext();
  const start = nanos(span.startTime);
  const serviceName = span.resource.attributes['service.name'];
  return {
    traceId,
    spanId,
    parentSpanId: parentSpanIdOf(span),
    organizationId: text(span.attributes, ENGRAM.organizationId),
    name: span.name,
    kind: KIND_NAMES[span.kind] ?? 'internal',
    serviceName: typeof serviceName === 'string' ? serviceName : 'unknown',
    startedAt: new Date(Number(start / 1_000_000n)),
    startUnixNano: start.toString(),
    durationNs: (nanos(span.endTime) - start).toString(),
    statusCode: STATUS_NAMES[span.status.code],
    statusMessage: span.status.message ?? null,
    attributes: JSON.stringify(storedAttributes(span.attributes)),
    events: JSON.stringify(
      span.events.map((event) => ({
        name: event.name,
        timeUnixNano: String(hrTimeToNanoseconds(event.time)),
        attributes: storedAttributes(event.attributes ?? {}),
      })),
    ),
    runId: text(span.attributes, ENGRAM.runId),
    stepId: text(span.attributes, ENGRAM.stepId),
  };
}

/** Folds a batch's spans into one summary per trace; the database merges it with what earlier batches said. */
export function summarizeTraces(spans: ExportedSpan[]): TraceSummary[] {
  const summaries = new Map<string, TraceSummary>();
  for (const span of spans) {
    const row = spanRow(span);
    const endedAt = new Date(Number(nanos(span.endTime) / 1_000_000n));
    const summary = summaries.get(row.traceId) ?? {
      traceId: row.traceId,
      organizationId: null,
      projectId: null,
      agentId: null,
      runId: null,
      templateFamily: null,
      rootSpanName: null,
      startedAt: row.startedAt,
      endedAt,
      spanCount: 0,
      agentSteps: 0,
      hasToolError: false,
      hasApiError: false,
      functionNames: [],
      toolCalls: {},
    };
    summary.organizationId ??= row.organizationId;
    summary.projectId ??= text(span.attributes, ENGRAM.projectId);
    summary.agentId ??= text(span.attributes, ENGRAM.agentId);
    summary.runId ??= row.runId;
    summary.templateFamily ??= text(span.attributes, ENGRAM.templateFamily);
    if (row.parentSpanId === null) summary.rootSpanName = span.name;
    if (row.startedAt < summary.startedAt) summary.startedAt = row.startedAt;
    if (endedAt > summary.endedAt) summary.endedAt = endedAt;
    summary.spanCount += 1;
    const operation = text(span.attributes, GEN_AI.operationName);
    if (span.name === SPAN.agentStep) summary.agentSteps += 1;
    const failed = span.status.code === SpanStatusCode.ERROR;
    if (operation === SPAN.executeTool) {
      const toolName = text(span.attributes, GEN_AI.toolName);
      if (toolName && !summary.functionNames.includes(toolName)) summary.functionNames.push(toolName);
      if (toolName) {
        const counts = (summary.toolCalls[toolName] ??= { calls: 0, failed: 0 });
        counts.calls += 1;
        if (failed) counts.failed += 1;
      }
      if (failed) summary.hasToolError = true;
    }
    if (operation === SPAN.chat && failed) summary.hasApiError = true;
    summaries.set(row.traceId, summary);
  }
  return [...summaries.values()];
}

/**
 * Writes finished spans to PostgreSQL: one insert of the spans and one upsert of the trace summaries per
 * batch. It runs behind a BatchSpanProcessor, so a step only pays for queueing its spans in memory.
 */
export class PostgresSpanExporter implements SpanExporter {
  constructor(private readonly db: Database) {}

  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    this.write(spans).then(
      () => resultCallback({ code: ExportResultCode.SUCCESS }),
      (error: unknown) => resultCallback({ code: ExportResultCode.FAILED, error: error instanceof Error ? error : new Error(String(error)) }),
    );
  }

  async write(spans: ExportedSpan[]): Promise<void> {
    if (spans.length === 0) return;
    const summaries = summarizeTraces(spans);
    const { db } = this;
    await db.transaction(async (trx) => {
      await trx('traces')
        .insert(summaries.map((summary) => ({ ...summary, durationMs: summary.endedAt.getTime() - summary.startedAt.getTime() })))
        .onConflict('traceId')
        .merge({
          organizationId: trx.raw('coalesce(traces.organization_id, excluded.organization_id)'),
          projectId: trx.raw('coalesce(traces.project_id, excluded.project_id)'),
          agentId: trx.raw('coalesce(traces.agent_id, excluded.agent_id)'),
          runId: trx.raw('coalesce(traces.run_id, excluded.run_id)'),
          templateFamily: trx.raw('coalesce(traces.template_family, excluded.template_family)'),
          rootSpanName: trx.raw('coalesce(excluded.root_span_name, traces.root_span_name)'),
          startedAt: trx.raw('least(traces.started_at, excluded.started_at)'),
          endedAt: trx.raw('greatest(traces.ended_at, excluded.ended_at)'),
          durationMs: trx.raw(
            'floor(extract(epoch from greatest(traces.ended_at, excluded.ended_at) - least(traces.started_at, excluded.started_at)) * 1000)',
          ),
          spanCount: trx.raw('traces.span_count + excluded.span_count'),
          agentSteps: trx.raw('traces.agent_steps + excluded.agent_steps'),
          hasToolError: trx.raw('traces.has_tool_error or excluded.has_tool_error'),
          hasApiError: trx.raw('traces.has_api_error or excluded.has_api_error'),
          functionNames: trx.raw('array(select distinct unnest(traces.function_names || excluded.function_names))'),
          toolCalls: trx.raw('engram_add_tool_calls(traces.tool_calls, excluded.tool_calls)'),
        });
      await trx('trace_spans').insert(spans.map(spanRow)).onConflict(['traceId', 'spanId']).ignore();
    });
  }

  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}
