import type { Database } from '@engram/db';

/** A named budget: at most `limit` attempts per `windowMs`. */
export type RateLimit = { limit: number; windowMs: number };

export type RateLimitDecision = { allowed: true } | { allowed: false; retryAfterMs: number };

export type RateLimiter = {
  /** Counts one attempt against the key and says whether it fits the budget. */
  attempt(key: string, budget: RateLimit): Promise<RateLimitDecision>;
};

/** How many attempts pass between sweeps of the windows that have ended. */
const SWEEP_EVERY_ATTEMPTS = 500;

/**
 * Fixed-window counters in PostgreSQL (`rate_limit_windows`), so every API process spends from one
 * budget per key. One upsert counts the attempt and starts a new window when the old one has ended;
 * time is the database's, the one clock all processes share.
 */
export function createPostgresRateLimiter(deps: { db: Database }): RateLimiter {
  const { db } = deps;
  let attemptsSinceSweep = 0;

  async function sweepEndedWindows(): Promise<void> {
    await db('rate_limit_windows')
      .whereRaw('window_started_ms + window_ms <= (extract(epoch from clock_timestamp()) * 1000)::bigint')
      .delete();
  }

  return {
    async attempt(key, budget) {
      const result = await db.raw<{ rows: Array<{ count: number; retry_after_ms: string }> }>(
        `insert into rate_limit_windows as w (key, window_started_ms, window_ms, count)
         values (?, (extract(epoch from clock_timestamp()) * 1000)::bigint, ?, 1)
         on conflict (key) do update set
           count = case when w.window_started_ms + w.window_ms <= excluded.window_started_ms then 1 else w.count + 1 end,
           window_started_ms = case when w.window_started_ms + w.window_ms <= excluded.window_started_ms then excluded.window_started_ms else w.window_started_ms end,
           window_ms = excluded.window_ms
         returning count, window_started_ms + window_ms - (extract(epoch from clock_timestamp()) * 1000)::bigint as retry_after_ms`,
        [key, budget.windowMs],
      );
      attemptsSinceSweep += 1;
      if (attemptsSinceSweep >= SWEEP_EVERY_ATTEMPTS) {
        attemptsSinceSweep = 0;
        await sweepEndedWindows();
      }
      const row = result.rows[0]!;
      if (row.count <= budget.limit) return { allowed: true };
      return { allowed: false, retryAfterMs: Math.max(0, Number(row.retry_after_ms)) };
    },
  };
}
