import pg from 'pg';
import { RUN_DELTAS_CHANNEL, RUN_EVENTS_CHANNEL } from '@engram/db';

type Listener<T> = (value: T) => void;

/** A token delta of a run, from the model call's `attempt` (1, or more when the call was retried). */
export type RunDelta = { frame: Record<string, unknown>; attempt: number };

export type NotificationHub = {
  /** Called when new frames of the run are committed (or, after a reconnect, when some may have been). */
  onRunEvents(runId: string, listener: Listener<void>): () => void;
  onRunDelta(runId: string, listener: Listener<RunDelta>): () => void;
  close(): Promise<void>;
};

type Logger = { warn(obj: unknown, msg?: string): void };

/**
 * One LISTEN connection per API process fans PostgreSQL notifications out to the streams of that
 * process. If it drops, it reconnects and wakes every reader, which then re-reads the log.
 */
export async function createNotificationHub(deps: { databaseUrl: string; log?: Logger }): Promise<NotificationHub> {
  const eventListeners = new Map<string, Set<Listener<void>>>();
  const deltaListeners = new Map<string, Set<Listener<RunDelta>>>();
  let client: pg.Client | null = null;
  let closed = false;

  const wakeAll = () => eventListeners.forEach((set) => set.forEach((listener) => listener()));

  const connect = async (): Promise<void> => {
    const next = new pg.Client({ connectionString: deps.databaseUrl });
    next.on('notification', (message) => {
      if (!message.payload) return;
      if (message.channel === RUN_EVENTS_CHANNEL) {
        const runId = message.payload.slice(0, message.payload.lastIndexOf(':'));
        eventListeners.get(runId)?.forEach((listener) => listener());
      } else if (message.channel === RUN_DELTAS_CHANNEL) {
        const { run_id: runId, attempt, frame } = JSON.parse(message.payload) as { run_id: string; attempt?: number; frame: Record<string, unknown> };
        deltaListeners.get(runId)?.forEach((listener) => listener({ frame, attempt: attempt ?? 1 }));
      }
    });
    next.on('error', (error) => {
      deps.log?.warn({ err: error }, 'notification connection lost; reconnecting');
      void next.end().catch(() => undefined);
      if (client === next) client = null;
      if (!closed) setTimeout(() => void reconnect(), 500);
    });
    await next.connect();
    await next.query(`listen ${RUN_EVENTS_CHANNEL}`);
    await next.query(`listen ${RUN_DELTAS_CHANNEL}`);
    client = next;
  };

  const reconnect = async () => {
    try {
      await connect();
      wakeAll();
    } catch (error) {
      deps.log?.warn({ err: error }, 'notification reconnect failed; retrying');
      if (!closed) setTimeout(() => void reconnect(), 1000);
    }
  };

  await connect();

  function subscribe<T>(map: Map<string, Set<Listener<T>>>, runId: string, listener: Listener<T>) {
    const set = map.get(runId) ?? new Set();
    set.add(listener);
    map.set(runId, set);
    return () => {
      set.delete(listener);
      if (set.size === 0) map.delete(runId);
    };
  }

  return {
    onRunEvents: (runId, listener) => subscribe(eventListeners, runId, listener),
    onRunDelta: (runId, listener) => subscribe(deltaListeners, runId, listener),
    async close() {
      closed = true;
      await client?.end().catch(() => undefined);
    },
  };
}
