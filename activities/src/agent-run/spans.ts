import { SpanKind, SpanStatusCode, trace, type Attributes, type Span, type Tracer } from '@opentelemetry/api';
import { Context } from '@temporalio/activity';
import { ENGRAM, GEN_AI } from '@engram/core';

/** `recordContent`: ENGRAM_TRACE_CONTENT, message and tool content on spans (off by default, as the GenAI conventions advise). */
export type ActivityTracing = { tracer: Tracer; recordContent: boolean };

/** Without telemetry (unit tests, workers started without it) every span is a no-op. */
export function tracingOf(deps: { tracing?: ActivityTracing }): ActivityTracing {
  return deps.tracing ?? { tracer: trace.getTracer('engram-disabled'), recordContent: false };
}

/**
 * Marks a repeated attempt on the activity's own span (Temporal's `RunActivity:…`) and on the span made in it,
 * so a trace shows which call ran again after a worker died or a provider failed.
 */
function attemptAttributes(): Attributes {
  const { attempt } = Context.current().info;
  return attempt > 1 ? { [ENGRAM.attempt]: attempt, [ENGRAM.retried]: true } : {};
}

/** Runs `work` in a child span of the active one; an error ends the span with an error status and is rethrown. */
export async function inSpan<T>(
  tracer: Tracer,
  name: string,
  options: { kind?: SpanKind; attributes: Attributes; inActivity?: boolean },
  work: (span: Span) => Promise<T>,
): Promise<T> {
  const attempt = options.inActivity === false ? {} : attemptAttributes();
  if (Object.keys(attempt).length > 0) trace.getActiveSpan()?.setAttributes(attempt);
  return tracer.startActiveSpan(name, { kind: options.kind ?? SpanKind.INTERNAL, attributes: { ...options.attributes, ...attempt } }, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
      throw error;
    } finally {
      span.end();
    }
  });
}

/** A tool that answered with an error status failed, though nothing was thrown. */
export function markToolResult(span: Span, status: 'success' | 'error', result: string, recordContent: boolean): void {
  if (status === 'error') span.setStatus({ code: SpanStatusCode.ERROR, message: result.slice(0, 500) });
  if (recordContent) span.setAttribute(GEN_AI.toolCallResult, result);
}
