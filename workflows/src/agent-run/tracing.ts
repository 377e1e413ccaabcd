import { context, propagation, ROOT_CONTEXT, SpanStatusCode, trace, type Attributes, type Context, type Span } from '@opentelemetry/api';

/**
 * A span made inside workflow code. The tracer is the one Temporal's workflow interceptors register in the
 * sandbox (workflow clock, sink export, skipped on replay); without those interceptors every call is a no-op.
 */
export type WorkflowSpan = {
  context: Context;
  setAttributes(attributes: Attributes): void;
  /** Runs `start` with this span as the parent of what it schedules (activities, child workflows, inner spans). */
  within<T>(start: () => Promise<T>): Promise<T>;
  end(error?: unknown): void;
};

export function startWorkflowSpan(name: string, attributes: Attributes, parent?: WorkflowSpan): WorkflowSpan {
  const parentContext = parent?.context ?? context.active();
  const span: Span = trace.getTracer('engram-workflow').startSpan(name, { attributes }, parentContext);
  const spanContext: Context = trace.setSpan(parentContext, span);
  return {
    context: spanContext,
    setAttributes: (more) => void span.setAttributes(more),
    // Activities and child workflows read the active context synchronously when they are scheduled.
    within: (start) => context.with(spanContext, start),
    end(error) {
      if (error !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
      span.end();
    },
  };
}

/** The W3C trace context of the caller that queued a run, so its run workflow joins the request's trace. */
export type TraceCarrier = Record<string, string>;

export function withinCarriedTrace<T>(carrier: TraceCarrier | undefined, start: () => Promise<T>): Promise<T> {
  if (!carrier) return start();
  return context.with(propagation.extract(ROOT_CONTEXT, carrier), start);
}
