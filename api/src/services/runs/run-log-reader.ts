import { Run, RunEvent, type Database } from '@engram/db';
import type { NotificationHub } from './notification-hub.js';

export type LogItem =
  | { kind: 'frame'; seqId: number; frame: Record<string, unknown> & { message_type: string } }
  | { kind: 'delta'; attempt: number; frame: Record<string, unknown> & { message_type: string } };

export type FollowOptions = {
  organizationId: string;
  runId: string;
  /** Frames with seq_id greater than this are returned. */
  after: number;
  signal: AbortSignal;
  /** Upper bound on waiting when no notification arrives (a safety net, not the main wake-up). */
  pollIntervalMs: number;
  batchSize: number;
  includeDeltas: boolean;
};

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/**
 * Reads a run's log from `after` to its end, waiting for new frames as the run goes on. Sync
 * responses, live streams and resumed streams are all this one reader.
 */
export async function* followRunLog(deps: { db: Database; notifications: NotificationHub }, options: FollowOptions): AsyncGenerator<LogItem> {
  let wake = deferred();
  const deltas: LogItem[] = [];
  const stopEvents = deps.notifications.onRunEvents(options.runId, () => wake.resolve());
  const stopDeltas = options.includeDeltas
    ? deps.notifications.onRunDelta(options.runId, ({ frame, attempt }) => {
        deltas.push({ kind: 'delta', attempt, frame: frame as LogItem['frame'] & { message_type: string } });
        wake.resolve();
      })
    : () => undefined;
  const onAbort = () => wake.resolve();
  options.signal.addEventListener('abort', onAbort);
  let last = options.after;
  try {
    while (!options.signal.aborted) {
      wake = deferred();
      while (deltas.length > 0) yield deltas.shift() as LogItem;
      const rows = await RunEvent.query(deps.db)
        .forOrg(options.organizationId)
        .where('run_id', options.runId)
        .where('seq_id', '>', last)
        .orderBy('seq_id')
        .limit(options.batchSize);
      for (const row of rows) {
        last = row.seqId;
        yield { kind: 'frame', seqId: row.seqId, frame: row.payload as LogItem['frame'] & { message_type: string } };
      }
      if (rows.length === options.batchSize) continue;
      const run = await Run.query(deps.db).forOrg(options.organizationId).findById(options.runId).select('status', 'last_seq');
      if (!run || (TERMINAL.has(run.status) && last >= run.lastSeq)) return;
      if (deltas.length > 0) continue;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([wake.promise, new Promise<void>((resolve) => (timer = setTimeout(resolve, options.pollIntervalMs)))]);
      clearTimeout(timer);
    }
  } finally {
    stopEvents();
    stopDeltas();
    options.signal.removeEventListener('abort', onAbort);
  }
}
