import type { Database } from '@engram/db';

/**
 * Deletes up to `batchSize` traces that ended more than `retentionDays` ago, with their spans (cascade).
 * Returns how many went, so the caller repeats until a batch comes back short.
 */
export async function deleteExpiredTraces(db: Database, options: { retentionDays: number; batchSize: number; now?: Date }): Promise<number> {
  const cutoff = new Date((options.now ?? new Date()).getTime() - options.retentionDays * 86_400_000);
  const deleted = await db.raw<{ rowCount: number }>(
    `delete from traces where trace_id in (select trace_id from traces where ended_at < ? order by ended_at limit ?)`,
    [cutoff, options.batchSize],
  );
  return deleted.rowCount;
}
