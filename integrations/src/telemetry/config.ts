export type TelemetryConfig = {
  otlpEndpoint: string | undefined;
  recordContent: boolean;
  /** Traces older than this many days are deleted by the trace retention workflow. */
  retentionDays: number;
};

export class TelemetryConfigError extends Error {}

const DEFAULT_RETENTION_DAYS = 30;

/** Parsed once by each process's entry point (the API server and the worker), like the rest of their configuration. */
export function parseTelemetryConfig(env: NodeJS.ProcessEnv): TelemetryConfig {
  const endpoint = env.OTEL_EXPORTER_OTLP_ENDPOINT || undefined;
  if (endpoint !== undefined && !URL.canParse(endpoint)) {
    throw new TelemetryConfigError('OTEL_EXPORTER_OTLP_ENDPOINT: must be a URL such as http://127.0.0.1:4318');
  }
  const content = env.ENGRAM_TRACE_CONTENT || 'false';
  if (content !== 'true' && content !== 'false') throw new TelemetryConfigError('ENGRAM_TRACE_CONTENT: must be true or false');
  const retention = env.ENGRAM_TRACE_RETENTION_DAYS ? Number(env.ENGRAM_TRACE_RETENTION_DAYS) : DEFAULT_RETENTION_DAYS;
  if (!Number.isInteger(retention) || retention < 1) {
    throw new TelemetryConfigError('ENGRAM_TRACE_RETENTION_DAYS: must be a whole number of days, at least 1');
  }
  return { otlpEndpoint: endpoint, recordContent: content === 'true', retentionDays: retention };
}
