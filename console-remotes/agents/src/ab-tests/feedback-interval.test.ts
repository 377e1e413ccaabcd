import { describe, expect, it } from 'vitest';
import { formatInterval, intervalGeometry, trafficShares } from './feedback-interval.js';

describe('intervalGeometry', () => {
  it('draws the band from the low to the high end with the rate marked inside, in percent', () => {
    expect(intervalGeometry({ rate: 0.8, low: 0.49, high: 0.943 })).toEqual({ bandLeft: 49, bandWidth: 45.3, marker: 80 });
  });

  it('spans the whole scale without a marker before any feedback', () => {
    expect(intervalGeometry({ rate: null, low: 0, high: 1 })).toEqual({ bandLeft: 0, bandWidth: 100, marker: null });
  });
});

describe('formatInterval', () => {
  it('reads the rate and its interval in whole percents', () => {
    expect(formatInterval({ rate: 1, low: 0.566, high: 1 })).toBe('100% (57–100%)');
    expect(formatInterval({ rate: null, low: 0, high: 1 })).toBe('no feedback yet');
  });
});

describe('trafficShares', () => {
  it("gives each arm its weight's share of all weights, and none when every weight is 0", () => {
    expect(trafficShares([{ id: 'a', weight: 60 }, { id: 'b', weight: 40 }])).toEqual(new Map([['a', 0.6], ['b', 0.4]]));
    expect(trafficShares([{ id: 'a', weight: 0 }])).toEqual(new Map([['a', 0]]));
  });
});
