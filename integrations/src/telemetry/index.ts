export { createTelemetry, installTraceContext, noopTracer, type Telemetry, type TelemetryOptions } from './telemetry.js';
export { PostgresSpanExporter, summarizeTraces, parentSpanIdOf, type ExportedSpan } from './span-store-exporter.js';
export { parseTelemetryConfig, TelemetryConfigError, type TelemetryConfig } from './config.js';
export { deleteExpiredTraces } from './retention.js';
