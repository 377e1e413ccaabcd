import { TenantModel } from './base-model.js';

/** One trace's summary, maintained by the span store exporter; every trace read is scoped through it. */
export class Trace extends TenantModel {
  static override tableName = 'traces';
  static override idColumn = 'traceId';
  static override hasTimestamps = false;
  declare traceId: string;
  declare projectId: string | null;
  declare agentId: string | null;
  declare runId: string | null;
  declare templateFamily: string | null;
  declare rootSpanName: string | null;
  declare startedAt: Date;
  declare endedAt: Date;
  /** bigint columns come back as strings. */
  declare durationMs: string | number;
  declare spanCount: number;
  declare agentSteps: number;
  declare hasToolError: boolean;
  declare hasApiError: boolean;
  declare functionNames: string[];
}

/** One exported OpenTelemetry span. */
export class TraceSpan extends TenantModel {
  static override tableName = 'trace_spans';
  static override idColumn = ['traceId', 'spanId'];
  static override hasTimestamps = false;
  static override jsonAttributes = ['attributes', 'events'];
  declare traceId: string;
  declare spanId: string;
  declare parentSpanId: string | null;
  declare name: string;
  declare kind: string;
  declare serviceName: string;
  declare startedAt: Date;
  declare startUnixNano: string | number;
  declare durationNs: string | number;
  declare statusCode: 'unset' | 'ok' | 'error';
  declare statusMessage: string | null;
  declare attributes: Record<string, unknown>;
  declare events: Array<{ name: string; timeUnixNano: string; attributes: Record<string, unknown> }>;
  declare runId: string | null;
  declare stepId: string | null;
}
