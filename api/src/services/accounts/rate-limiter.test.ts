import { describe, expect, it } from 'vitest';
import { createInMemoryRateLimiter } from './rate-limiter.js';

describe('the in-memory rate limiter', () => {
  it('allows the budget per window and key, then says how long to wait', () => {
    let now = 1_000;
    const limiter = createInMemoryRateLimiter({ now: () => now });
    const budget = { limit: 2, windowMs: 60_000 };
    expect(limiter.attempt('a', budget)).toEqual({ allowed: true });
    expect(limiter.attempt('a', budget)).toEqual({ allowed: true });
    expect(limiter.attempt('b', budget)).toEqual({ allowed: true });
    now += 10_000;
    expect(limiter.attempt('a', budget)).toEqual({ allowed: false, retryAfterMs: 50_000 });
    now += 50_000;
    expect(limiter.attempt('a', budget)).toEqual({ allowed: true });
  });
});
