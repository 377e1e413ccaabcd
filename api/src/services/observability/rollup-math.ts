/**
 * The arithmetic of the metric rollups (migration 20261130100000_metric_rollups): quarter-hour buckets and latency
 * histograms. The bucket width and the bin formula must stay those of the migration's SQL functions.
 */

export const BUCKET_MS = 15 * 60_000;

/** Bins per doubling: a bin spans 2^(1/16) − 1 ≈ 4.4% of its value. */
const BINS_PER_DOUBLING = 16;

/** Runs per latency bin. */
export type Histogram = Map<number, number>;

export type TimeSpan = { start: Date; end: Date };

/**
 * A range as the whole buckets inside it, read from the rollups, and the uneven pieces at its ends (at most a quarter
 * hour each), read from the runs themselves. A range shorter than a bucket is all ends.
 */
export function splitIntoBuckets(range: TimeSpan): { whole: TimeSpan | null; ends: TimeSpan[] } {
  const start = range.start.getTime();
  const end = range.end.getTime();
  const firstWhole = Math.ceil(start / BUCKET_MS) * BUCKET_MS;
  const pastLastWhole = Math.floor(end / BUCKET_MS) * BUCKET_MS;
  if (firstWhole >= pastLastWhole) return { whole: null, ends: end > start ? [range] : [] };
  const ends: TimeSpan[] = [];
  if (start < firstWhole) ends.push({ start: range.start, end: new Date(firstWhole) });
  if (pastLastWhole < end) ends.push({ start: new Date(pastLastWhole), end: range.end });
  return { whole: { start: new Date(firstWhole), end: new Date(pastLastWhole) }, ends };
}

/** The value a bin stands for: the geometric middle of the milliseconds it holds. */
export function binValue(bin: number): number {
  return 2 ** ((bin + 0.5) / BINS_PER_DOUBLING) - 1;
}

/** Adds `{ "<bin>": runs }` (a rollup's jsonb) or single bins to a histogram. */
export function addBins(histogram: Histogram, bins: Record<string, number> | Array<[number, number]>): void {
  const entries = Array.isArray(bins) ? bins : Object.entries(bins).map(([bin, runs]) => [Number(bin), runs] as [number, number]);
  for (const [bin, runs] of entries) {
    if (runs !== 0) histogram.set(bin, (histogram.get(bin) ?? 0) + runs);
  }
}

/**
 * The nearest-rank percentile (the smallest value with at least `fraction` of the runs at or below it), as the value
 * of its bin: within 2.2% of that run's own latency. Null without runs.
 */
export function percentileOf(histogram: Histogram, fraction: number): number | null {
  const bins = [...histogram.entries()].filter(([, runs]) => runs > 0).sort(([a], [b]) => a - b);
  const total = bins.reduce((sum, [, runs]) => sum + runs, 0);
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil(fraction * total));
  let seen = 0;
  for (const [bin, runs] of bins) {
    seen += runs;
    if (seen >= rank) return Math.round(binValue(bin) * 1000) / 1000;
  }
  return null;
}

const QUARTERS_PER_DAY = 96;

const DAY_MS = 86_400_000;

/**
 * Names instants by their local hour (`YYYY-MM-DDTHH:00`) or day (`YYYY-MM-DD`) in a timezone, as the metrics' SQL
 * names periods (`to_char(date_trunc(…, at time zone …))`). The timezone's offset is looked up twice a UTC day (again
 * per quarter hour only on a day its offset changes), so naming a month of quarter hours stays cheap.
 */
export function localPeriodNamer(timezone: string, granularity: 'hourly' | 'daily'): (at: number) => string {
  const format = new Intl.DateTimeFormat('en-CA', { timeZone: timezone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
  const offsetAt = (at: number) => {
    const parts = Object.fromEntries(format.formatToParts(new Date(at)).map((part) => [part.type, Number(part.value)]));
    return Date.UTC(parts.year as number, (parts.month as number) - 1, parts.day, parts.hour, parts.minute) - Math.floor(at / 60_000) * 60_000;
  };
  const dayOffsets = new Map<number, number | null>();
  const offsetOf = (at: number) => {
    const day = Math.floor(at / DAY_MS) * DAY_MS;
    let offset = dayOffsets.get(day);
    if (offset === undefined) {
      const [morning, night] = [offsetAt(day), offsetAt(day + DAY_MS - BUCKET_MS)];
      offset = morning === night ? morning : null;
      dayOffsets.set(day, offset);
    }
    return offset ?? offsetAt(at);
  };
  const named = new Map<number, string>();
  return (at) => {
    const known = named.get(at);
    if (known !== undefined) return known;
    const local = new Date(at + offsetOf(at)).toISOString();
    const period = granularity === 'hourly' ? `${local.slice(0, 13)}:00` : local.slice(0, 10);
    named.set(at, period);
    return period;
  };
}

/** The starts of the quarter hours of a UTC day (an `agent_activity_days` row) in which the agent ran. */
export function activeQuarters(dayStart: Date, quarterRuns: number[]): number[] {
  const starts: number[] = [];
  for (let quarter = 0; quarter < QUARTERS_PER_DAY; quarter++) {
    if ((quarterRuns[quarter] ?? 0) > 0) starts.push(dayStart.getTime() + quarter * BUCKET_MS);
  }
  return starts;
}
