import { describe, expect, it } from 'vitest';
import { DateFilter, DurationFilter, isTimezone, OBSERVABILITY_MESSAGES, parseDuration, parseIsoDate, TimeRange } from './query-rules.js';

const messagesOf = (result: { success: boolean; error?: { issues: Array<{ message: string }> } }) => result.error?.issues.map((issue) => issue.message) ?? [];

describe('observability query rules', () => {
  it('reads durations in ms, s and m, and nothing else', () => {
    expect(parseDuration('250ms')).toBe(250);
    expect(parseDuration('1.5s')).toBe(1500);
    expect(parseDuration('2m')).toBe(120_000);
    for (const bad of ['', '5', '5h', 'ms', '-1s', '1 s s']) expect(parseDuration(bad), bad).toBeNull();
    expect(messagesOf(DurationFilter.safeParse({ operator: 'gte', value: '3 hours' }))).toEqual([OBSERVABILITY_MESSAGES.durationFormat]);
  });

  it('reads ISO dates and rejects other text with the spec’s message', () => {
    expect(parseIsoDate('2026-11-01')?.toISOString()).toBe('2026-11-01T00:00:00.000Z');
    expect(parseIsoDate('2026-11-01T10:30:00+02:00')?.toISOString()).toBe('2026-11-01T08:30:00.000Z');
    for (const bad of ['1', 'yesterday', '2026-13-45', '11/01/2026']) expect(parseIsoDate(bad), bad).toBeNull();
    expect(messagesOf(DateFilter.safeParse({ operator: 'lte', value: 'soon' }))).toEqual([OBSERVABILITY_MESSAGES.dateFormat]);
  });

  it('wants start before end, at most 365 days apart, both valid timestamps', () => {
    expect(TimeRange.safeParse({ startTimeUnix: 100, endTimeUnix: 200 }).success).toBe(true);
    expect(messagesOf(TimeRange.safeParse({ startTimeUnix: 200, endTimeUnix: 200 }))).toEqual(['startTimeUnix must be less than endTimeUnix']);
    expect(messagesOf(TimeRange.safeParse({ startTimeUnix: 0, endTimeUnix: 366 * 86_400 }))).toEqual([OBSERVABILITY_MESSAGES.maxRange]);
    expect(TimeRange.safeParse({ startTimeUnix: 0, endTimeUnix: 365 * 86_400 }).success).toBe(true);
    expect(messagesOf(TimeRange.safeParse({ startTimeUnix: 'abc', endTimeUnix: 10 }))).toEqual([OBSERVABILITY_MESSAGES.startTimestamp]);
    expect(messagesOf(TimeRange.safeParse({ startTimeUnix: 1, endTimeUnix: -5 }))).toEqual([OBSERVABILITY_MESSAGES.endTimestamp]);
  });

  it('knows IANA timezones', () => {
    expect(isTimezone('UTC')).toBe(true);
    expect(isTimezone('Asia/Kolkata')).toBe(true);
    expect(isTimezone('Mars/Olympus')).toBe(false);
  });
});
