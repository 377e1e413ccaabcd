import { describe, expect, it } from 'vitest';
import { activeQuarters, addBins, binValue, BUCKET_MS, type Histogram, localPeriodNamer, percentileOf, splitIntoBuckets } from './rollup-math.js';

const at = (minutes: number) => new Date(Date.UTC(2026, 8, 1) + minutes * 60_000);
/** The migration's `engram_latency_bin`. */
const binOf = (milliseconds: number) => Math.floor(16 * Math.log2(milliseconds + 1));

describe('splitIntoBuckets', () => {
  it('keeps a range of whole quarter hours whole', () => {
    expect(splitIntoBuckets({ start: at(0), end: at(60) })).toEqual({ whole: { start: at(0), end: at(60) }, ends: [] });
  });

  it('reads the uneven ends of a range apart from its whole quarter hours', () => {
    expect(splitIntoBuckets({ start: at(7), end: at(68) })).toEqual({
      whole: { start: at(15), end: at(60) },
      ends: [
        { start: at(7), end: at(15) },
        { start: at(60), end: at(68) },
      ],
    });
  });

  it('reads a range inside one quarter hour, or across one boundary only, from its runs', () => {
    expect(splitIntoBuckets({ start: at(2), end: at(9) })).toEqual({ whole: null, ends: [{ start: at(2), end: at(9) }] });
    expect(splitIntoBuckets({ start: at(10), end: at(20) })).toEqual({ whole: null, ends: [{ start: at(10), end: at(20) }] });
    expect(BUCKET_MS).toBe(15 * 60_000);
  });
});

describe('latency histograms', () => {
  it('names each value within 2.2% (of milliseconds + 1) by the value of its bin', () => {
    for (const milliseconds of [0, 1, 7, 99, 100, 1_234, 65_535, 86_400_000]) {
      expect(Math.abs(binValue(binOf(milliseconds)) - milliseconds)).toBeLessThanOrEqual(0.022 * (milliseconds + 1));
    }
  });

  it('gives the nearest-rank percentile of the runs counted, whatever order their bins were added in', () => {
    const values = Array.from({ length: 200 }, (_, index) => 50 + ((index * 7919) % 3000));
    const histogram: Histogram = new Map();
    addBins(histogram, Object.fromEntries(values.slice(0, 120).map((value) => [String(binOf(value)), 0])));
    for (const value of values.slice(0, 100)) addBins(histogram, [[binOf(value), 1]]);
    for (const value of values.slice(100)) addBins(histogram, { [String(binOf(value))]: 1 });
    const sorted = [...values].sort((a, b) => a - b);
    for (const fraction of [0.5, 0.95, 0.99]) {
      const exact = sorted[Math.ceil(fraction * sorted.length) - 1] as number;
      expect(Math.abs((percentileOf(histogram, fraction) as number) - exact)).toBeLessThanOrEqual(0.022 * (exact + 1));
    }
  });

  it('has no percentile without runs, and drops runs moved out of a bin', () => {
    const histogram: Histogram = new Map();
    expect(percentileOf(histogram, 0.5)).toBeNull();
    addBins(histogram, { '100': 1, '120': 0 });
    addBins(histogram, { '100': -1 });
    expect(percentileOf(histogram, 0.5)).toBeNull();
  });
});

describe('local periods of quarter hours', () => {
  it('names a quarter hour by its local hour or day, a half-hour timezone included', () => {
    const lateEvening = at(18 * 60 + 45).getTime();
    expect(localPeriodNamer('UTC', 'hourly')(lateEvening)).toBe('2026-09-01T18:00');
    expect(localPeriodNamer('Asia/Kolkata', 'hourly')(lateEvening)).toBe('2026-09-02T00:00');
    expect(localPeriodNamer('Asia/Kolkata', 'daily')(at(18 * 60 + 15).getTime())).toBe('2026-09-01');
    expect(localPeriodNamer('America/New_York', 'daily')(at(2 * 60).getTime())).toBe('2026-08-31');
  });

  it('lists the quarter hours of an activity day with runs', () => {
    const quarterRuns = Array.from({ length: 96 }, (_, quarter) => (quarter === 0 || quarter === 95 ? 1 : 0));
    expect(activeQuarters(at(0), quarterRuns)).toEqual([at(0).getTime(), at(95 * 15).getTime()]);
  });
});

describe('local periods across a change of offset', () => {
  it('names every quarter hour of a month as Intl does, across daylight saving changes', () => {
    for (const timezone of ['America/New_York', 'Europe/London', 'Asia/Kolkata', 'Australia/Lord_Howe', 'Asia/Kathmandu']) {
      const byIntl = new Intl.DateTimeFormat('en-CA', { timeZone: timezone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', hourCycle: 'h23' });
      const hourly = localPeriodNamer(timezone, 'hourly');
      const daily = localPeriodNamer(timezone, 'daily');
      // October 15 to November 15 holds the end of daylight saving time in New York, London and Lord Howe's start.
      for (let at = Date.UTC(2026, 9, 15); at < Date.UTC(2026, 10, 15); at += BUCKET_MS) {
        const parts = Object.fromEntries(byIntl.formatToParts(new Date(at)).map((part) => [part.type, part.value]));
        expect(hourly(at)).toBe(`${parts.year}-${parts.month}-${parts.day}T${parts.hour}:00`);
        expect(daily(at)).toBe(`${parts.year}-${parts.month}-${parts.day}`);
      }
    }
  });
});
