import { describe, expect, it } from 'vitest';
import { billingPeriod } from './billing-period.js';

describe('billingPeriod', () => {
  it('is the calendar month in UTC around the given instant', () => {
    const period = billingPeriod(new Date('2026-11-30T23:59:59.999Z'));
    expect(period).toEqual({ key: '2026-11', start: new Date('2026-11-01T00:00:00Z'), end: new Date('2026-12-01T00:00:00Z') });
  });

  it('rolls over the year at December', () => {
    expect(billingPeriod(new Date('2026-12-15T12:00:00Z')).end).toEqual(new Date('2027-01-01T00:00:00Z'));
  });
});
