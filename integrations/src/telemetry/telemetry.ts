import { context, propagation, trace, type Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes, type Resource } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, type ReadableSpan, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { Database } from '@engram/db';
import { PostgresSpanExporter, type ExportedSpan } from './span-store-exporter.js';

export type TelemetryOptions = {
  db: Database;
  /** `service.name` of this process's spans: engram-api or engram-worker. */
  serviceName: string;
  /** OTEL_EXPORTER_OTLP_ENDPOINT: spans also go to this OTLP/HTTP collector (Jaeger, Tempo, Langfuse, Phoenix …). */
  otlpEndpoint?: string;
  /** ENGRAM_TRACE_CONTENT: message and tool content on spans, off by default as the GenAI conventions advise. */
  recordContent: boolean;
  /** How long finished spans wait to be written together; tests shorten it. */
  exportDelayMs?: number;
};

export type Telemetry = {
  tracer: Tracer;
  recordContent: boolean;
  resource: Resource;
  /** Where spans made outside this SDK (Temporal's workflow sandbox) are handed in, in either SDK generation's shape. */
  foreignSpanProcessor: SpanProcessor;
  forceFlush(): Promise<void>;
  shutdown(): Promise<void>;
};

/**
 * The process's context manager and W3C propagator. Temporal's interceptors read the active context and
 * inject it into workflow and activity headers through the global API, so these two must be global;
 * the tracer itself is passed to whoever makes spans.
 */
export function installTraceContext(): void {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
}

/** Spans of the 1.x SDK name their parent by id and their scope as a library; the 2.x exporters read the newer fields. */
function asCurrentSpan(span: ReadableSpan): ReadableSpan {
  const legacy = span as ExportedSpan & { instrumentationLibrary?: ReadableSpan['instrumentationScope'] };
  if (span.parentSpanContext || !legacy.parentSpanId) {
    return legacy.instrumentationLibrary && !span.instrumentationScope ? { ...span, instrumentationScope: legacy.instrumentationLibrary } : span;
  }
  const { traceId, traceFlags } = span.spanContext();
  return {
    ...span,
    parentSpanContext: { traceId, spanId: legacy.parentSpanId, traceFlags },
    instrumentationScope: span.instrumentationScope ?? legacy.instrumentationLibrary ?? { name: 'temporal-workflow' },
  };
}

/**
 * Tracing for one process: spans go in batches to Engram's span store in PostgreSQL and, when an OTLP
 * endpoint is configured, to that collector too.
 */
export function createTelemetry(options: TelemetryOptions): Telemetry {
  installTraceContext();
  const resource = resourceFromAttributes({ 'service.name': options.serviceName });
  const batch = { scheduledDelayMillis: options.exportDelayMs ?? 1000, maxExportBatchSize: 512, maxQueueSize: 8192 };
  const processors: SpanProcessor[] = [new BatchSpanProcessor(new PostgresSpanExporter(options.db), batch)];
  if (options.otlpEndpoint) {
    const url = `${options.otlpEndpoint.replace(/\/+$/, '')}/v1/traces`;
    processors.push(new BatchSpanProcessor(new OTLPTraceExporter({ url }), batch));
  }
  const provider = new BasicTracerProvider({ resource, spanProcessors: processors });
  const foreignSpanProcessor: SpanProcessor = {
    onStart: () => undefined,
    onEnd: (span) => {
      const current = asCurrentSpan(span);
      for (const processor of processors) processor.onEnd(current);
    },
    forceFlush: () => provider.forceFlush(),
    shutdown: () => Promise.resolve(),
  };
  return {
    tracer: provider.getTracer('engram'),
    recordContent: options.recordContent,
    resource,
    foreignSpanProcessor,
    forceFlush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}

/** A tracer that records nothing, for processes and tests that run without telemetry. */
export function noopTracer(): Tracer {
  return trace.getTracerProvider().getTracer('engram-disabled');
}
