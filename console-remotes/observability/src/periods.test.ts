import { describe, expect, it } from 'vitest';
import { fillPeriods, periodsOf } from './periods.js';

const at = (iso: string) => Date.parse(iso);

describe('the periods of a range', () => {
  it('lists each local hour of the range, in a zone half an hour off UTC too', () => {
    expect(periodsOf(at('2026-11-27T04:10:00Z'), at('2026-11-27T07:10:00Z'), 'hourly', 'UTC')).toEqual([
      '2026-11-27T04:00',
      '2026-11-27T05:00',
      '2026-11-27T06:00',
      '2026-11-27T07:00',
    ]);
    // 04:50Z is 10:20 in Kolkata, 06:50Z is 12:20.
    expect(periodsOf(at('2026-11-27T04:50:00Z'), at('2026-11-27T06:50:00Z'), 'hourly', 'Asia/Kolkata')).toEqual(['2026-11-27T10:00', '2026-11-27T11:00', '2026-11-27T12:00']);
  });

  it('lists each local day, the timezone deciding where a day starts', () => {
    expect(periodsOf(at('2026-11-25T12:00:00Z'), at('2026-11-27T12:00:00Z'), 'daily', 'UTC')).toEqual(['2026-11-25', '2026-11-26', '2026-11-27']);
    // 2026-11-27T03:00Z is still the 26th in New York.
    expect(periodsOf(at('2026-11-26T06:00:00Z'), at('2026-11-27T03:00:00Z'), 'daily', 'America/New_York')).toEqual(['2026-11-26']);
    expect(periodsOf(at('2026-11-27T03:00:00Z'), at('2026-11-27T03:00:00Z'), 'daily', 'UTC')).toEqual([]);
  });

  it('fills the periods a series lacks and keeps the ones it has, in order', () => {
    const series = [
      { period: '2026-11-27', runs: 3 },
      { period: '2026-11-25', runs: 1 },
    ];
    expect(fillPeriods(series, ['2026-11-25', '2026-11-26', '2026-11-27'], (period) => ({ period, runs: 0 }))).toEqual([
      { period: '2026-11-25', runs: 1 },
      { period: '2026-11-26', runs: 0 },
      { period: '2026-11-27', runs: 3 },
    ]);
    // A period the API counted outside the list (the range moved on meanwhile) is kept.
    expect(fillPeriods([{ period: '2026-11-28', runs: 2 }], ['2026-11-27'], (period) => ({ period, runs: 0 }))).toEqual([
      { period: '2026-11-27', runs: 0 },
      { period: '2026-11-28', runs: 2 },
    ]);
  });
});
