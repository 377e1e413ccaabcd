import { describe, expect, it } from 'vitest';
import { isoInTimezone, parseSearchBound } from './zoned-time.js';

describe('isoInTimezone', () => {
  it("writes an instant in the zone's wall time with its offset", () => {
    const instant = new Date('2024-04-02T15:00:00Z');
    expect(isoInTimezone(instant, 'UTC')).toBe('2024-04-02T15:00:00+00:00');
    expect(isoInTimezone(instant, 'America/New_York')).toBe('2024-04-02T11:00:00-04:00');
    expect(isoInTimezone(instant, 'Asia/Kolkata')).toBe('2024-04-02T20:30:00+05:30');
    expect(isoInTimezone(instant, 'Not/AZone')).toBe('2024-04-02T15:00:00+00:00');
  });
});

describe('parseSearchBound', () => {
  it('reads a date as the whole day in the zone', () => {
    expect(parseSearchBound('2024-01-15', 'America/New_York', 'start')?.toISOString()).toBe('2024-01-15T05:00:00.000Z');
    expect(parseSearchBound('2024-01-15', 'America/New_York', 'end')?.toISOString()).toBe('2024-01-16T04:59:59.999Z');
  });

  it('reads a date-time without an offset in the zone, and one with an offset as given', () => {
    expect(parseSearchBound('2024-07-01T09:30', 'Europe/Berlin', 'start')?.toISOString()).toBe('2024-07-01T07:30:00.000Z');
    expect(parseSearchBound('2024-07-01 09:30:15', 'UTC', 'end')?.toISOString()).toBe('2024-07-01T09:30:15.000Z');
    expect(parseSearchBound('2024-07-01T09:30:00+02:00', 'America/New_York', 'start')?.toISOString()).toBe('2024-07-01T07:30:00.000Z');
  });

  it('refuses what is not a date', () => {
    expect(parseSearchBound('last week', 'UTC', 'start')).toBeNull();
  });
});
