/** A named budget: at most `limit` attempts per `windowMs`. */
export type RateLimit = { limit: number; windowMs: number };

export type RateLimitDecision = { allowed: true } | { allowed: false; retryAfterMs: number };

export type RateLimiter = {
  /** Counts one attempt against the key and says whether it fits the budget. */
  attempt(key: string, budget: RateLimit): RateLimitDecision;
};

/**
 * Fixed-window counters in process memory: enough for one API process; several processes each
 * enforce their own budget, which still bounds guessing to a small multiple.
 */
export function createInMemoryRateLimiter(options: { now?: () => number; maxKeys?: number } = {}): RateLimiter {
  const now = options.now ?? Date.now;
  const maxKeys = options.maxKeys ?? 100_000;
  const windows = new Map<string, { startedAt: number; count: number; windowMs: number }>();

  const forgetExpired = (at: number) => {
    for (const [key, window] of windows) {
      if (at - window.startedAt >= window.windowMs) windows.delete(key);
    }
  };

  return {
    attempt(key, budget) {
      const at = now();
      let window = windows.get(key);
      if (!window || at - window.startedAt >= budget.windowMs) {
        if (windows.size >= maxKeys) forgetExpired(at);
        window = { startedAt: at, count: 0, windowMs: budget.windowMs };
        windows.set(key, window);
      }
      window.count += 1;
      if (window.count <= budget.limit) return { allowed: true };
      return { allowed: false, retryAfterMs: window.startedAt + budget.windowMs - at };
    },
  };
}
