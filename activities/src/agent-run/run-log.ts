import type { Knex } from 'knex';
import { MAX_NOTIFY_PAYLOAD_BYTES, RUN_DELTAS_CHANNEL, RUN_EVENTS_CHANNEL } from '@engram/db';

export type Frame = { message_type: string; [key: string]: unknown };

/**
 * Appends frames to a run's log inside the caller's transaction. Seq ids come from bumping
 * `runs.last_seq` in that same transaction, so they are gap-free and a rolled-back step leaves no trace.
 * The NOTIFY is delivered only on commit, when readers can see the rows.
 */
export async function appendRunFrames(
  trx: Knex.Transaction,
  run: { runId: string; organizationId: string },
  frames: Frame[],
): Promise<void> {
  if (frames.length === 0) return;
  const [bumped] = (await trx('runs')
    .where({ id: run.runId })
    .increment('last_seq', frames.length)
    .returning('last_seq')) as Array<{ lastSeq: number }>;
  const last = bumped?.lastSeq;
  if (last === undefined) throw new Error(`run ${run.runId} does not exist`);
  const first = last - frames.length + 1;
  await trx('run_events').insert(
    frames.map((frame, index) => ({
      runId: run.runId,
      seqId: first + index,
      organizationId: run.organizationId,
      messageType: frame.message_type,
      payload: JSON.stringify({ ...frame, run_id: run.runId, seq_id: first + index }),
    })),
  );
  await trx.raw('select pg_notify(?, ?)', [RUN_EVENTS_CHANNEL, `${run.runId}:${last}`]);
}

/** Forwards a token delta to live streams; deltas are not logged (the complete message is). */
/** `attempt` is the model call's: a retried call streams its message again, and readers drop what they already sent. */
export async function publishDelta(db: Knex, runId: string, attempt: number, frame: Frame): Promise<void> {
  const payload = JSON.stringify({ run_id: runId, attempt, frame });
  if (Buffer.byteLength(payload) > MAX_NOTIFY_PAYLOAD_BYTES) return;
  await db.raw('select pg_notify(?, ?)', [RUN_DELTAS_CHANNEL, payload]);
}
