export type Summary = { n: number; p50: number; p99: number; mean: number; min: number; max: number };

/** Nearest-rank percentile of ascending samples, so every reported value is one that was measured. */
function percentileOfSorted(sorted: number[], percent: number): number {
  const rank = Math.ceil((percent / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] ?? Number.NaN;
}

export function summarize(samples: number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  const total = sorted.reduce((sum, value) => sum + value, 0);
  return {
    n: sorted.length,
    p50: percentileOfSorted(sorted, 50),
    p99: percentileOfSorted(sorted, 99),
    mean: sorted.length > 0 ? total / sorted.length : Number.NaN,
    min: sorted[0] ?? Number.NaN,
    max: sorted.at(-1) ?? Number.NaN,
  };
}

/** Wall-clock milliseconds with sub-millisecond resolution, comparable with PostgreSQL and Temporal timestamps. */
export function wallClockMs(): number {
  return performance.timeOrigin + performance.now();
}
