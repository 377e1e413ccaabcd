import { Run, Trace, TraceSpan, type Database, ofVisibleAgent } from '@engram/db';
import { NotFoundError, UnprocessableError } from '../../errors.js';
import type { RequestContext } from '../../http/request-context.js';
import { SQL_COMPARISON, type Comparison } from './query-rules.js';

/** The filters of spec 000 §5 over a time range; durations in milliseconds. */
export type TraceSearch = {
  start: Date;
  end: Date;
  projectId?: string;
  agentId?: string;
  duration?: { operator: 'gte' | 'lte'; milliseconds: number };
  statusCode?: 'tool_error' | 'api_error';
  timestamp?: { operator: 'gte' | 'lte'; at: Date };
  functionName?: string;
  templateFamily?: string;
  agentSteps?: { operator: Comparison; value: number };
  limit: number;
  cursor?: string;
};

/** Newest first; the cursor is the last trace of a page: its start and id. */
function encodeCursor(trace: Trace): string {
  return Buffer.from(JSON.stringify([trace.startedAt.toISOString(), trace.traceId])).toString('base64url');
}

function decodeCursor(cursor: string): [Date, string] {
  try {
    const [at, traceId] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [string, string];
    const date = new Date(at);
    if (typeof traceId === 'string' && !Number.isNaN(date.getTime())) return [date, traceId];
  } catch {
    // Reported below like any other cursor that is not one of ours.
  }
  throw new UnprocessableError(['cursor'], 'Invalid cursor');
}

export type TraceWithSpans = { trace: Trace; spans: TraceSpan[] };

/** Spans in tree order's usual reading: by start time, parents before children that start with them. */
function spansOf(db: Database, traceIds: string[], limit?: number) {
  const query = TraceSpan.query(db).whereIn('traceId', traceIds).orderBy([{ column: 'startUnixNano' }, { column: 'spanId' }]);
  return limit === undefined ? query : query.limit(limit);
}

/** Reads of the span store; a trace belongs to the organization its summary row names, so every read starts there. */
export function createTraceService(deps: { db: Database }) {
  const { db } = deps;
  return {
    async getTrace(ctx: RequestContext, traceId: string): Promise<TraceWithSpans> {
      const trace = await Trace.query(db).forOrg(ctx.organizationId).findById(traceId);
      if (!trace) throw new NotFoundError('Trace');
      return { trace, spans: await spansOf(db, [traceId]) };
    },

    /** The spans of a run's traces (a run is one trace; a resumed approval adds the trace of its request). */
    async runSpans(ctx: RequestContext, runId: string, limit: number): Promise<TraceSpan[]> {
      const run = await Run.query(db).forOrg(ctx.organizationId).findById(runId);
      if (!run) throw new NotFoundError('Run');
      const traces = await Trace.query(db).forOrg(ctx.organizationId).where('runId', runId).select('traceId');
      if (traces.length === 0) return [];
      return spansOf(db, traces.map((trace) => trace.traceId), limit);
    },

    /** The organization's run traces that started in the range and pass every filter, newest first. */
    async searchTraces(ctx: RequestContext, search: TraceSearch): Promise<{ traces: Trace[]; nextCursor: string | null }> {
      const query = Trace.query(db)
        .forOrg(ctx.organizationId)
        .whereNotNull('runId')
        .where('startedAt', '>=', search.start)
        .where('startedAt', '<', search.end);
      if (search.projectId) query.where('projectId', search.projectId);
      // Traces of hidden agents (a template's simulated agent, an evaluation's, a visitor's copy) are found only by their agent.
      if (search.agentId) query.where('agentId', search.agentId);
      else query.whereRaw(ofVisibleAgent('traces'));
      if (search.templateFamily) query.where('templateFamily', search.templateFamily);
      if (search.functionName) query.whereRaw('? = any(function_names)', [search.functionName]);
      if (search.statusCode === 'tool_error') query.where('hasToolError', true);
      if (search.statusCode === 'api_error') query.where('hasApiError', true);
      if (search.duration) query.where('durationMs', SQL_COMPARISON[search.duration.operator], search.duration.milliseconds);
      if (search.timestamp) query.where('startedAt', SQL_COMPARISON[search.timestamp.operator], search.timestamp.at);
      if (search.agentSteps) query.where('agentSteps', SQL_COMPARISON[search.agentSteps.operator], search.agentSteps.value);
      if (search.cursor) {
        const [at, traceId] = decodeCursor(search.cursor);
        query.whereRaw('(started_at, trace_id) < (?, ?)', [at, traceId]);
      }
      const rows = await query.orderBy([{ column: 'startedAt', order: 'desc' }, { column: 'traceId', order: 'desc' }]).limit(search.limit + 1);
      const traces = rows.slice(0, search.limit);
      const last = traces.at(-1);
      return { traces, nextCursor: rows.length > search.limit && last ? encodeCursor(last) : null };
    },
  };
}

export type TraceService = ReturnType<typeof createTraceService>;
