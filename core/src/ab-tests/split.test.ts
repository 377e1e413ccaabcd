import { describe, expect, it } from 'vitest';
import { chooseArm, significantWinner, twoProportionPValue, wilsonInterval } from './split.js';

const USERS = 2000;
const identities = Array.from({ length: USERS }, (_, index) => `user-${index}@example.com`);

function shares(abTestId: string, arms: Array<{ id: string; weight: number }>): Record<string, number> {
  const counts: Record<string, number> = Object.fromEntries(arms.map((arm) => [arm.id, 0]));
  for (const identity of identities) counts[chooseArm(abTestId, identity, arms).id]! += 1;
  return Object.fromEntries(Object.entries(counts).map(([id, count]) => [id, (100 * count) / USERS]));
}

describe('chooseArm', () => {
  it('puts one identity on the same arm every time, whatever order the arms are given in', () => {
    const arms = [
      { id: 'arm-a', weight: 50 },
      { id: 'arm-b', weight: 30 },
      { id: 'arm-c', weight: 20 },
    ];
    for (const identity of identities.slice(0, 200)) {
      const chosen = chooseArm('ab_test-1', identity, arms).id;
      expect(chooseArm('ab_test-1', identity, arms).id).toBe(chosen);
      expect(chooseArm('ab_test-1', identity, [...arms].reverse()).id).toBe(chosen);
    }
  });

  it.each([
    [[50, 50]],
    [[70, 30]],
    [[90, 10]],
    [[50, 30, 20]],
    [[1, 1, 1, 1]],
  ])('splits %j within 3 points of the weights over 2,000 users, for several tests', (weights) => {
    const arms = weights.map((weight, index) => ({ id: `arm-${index}`, weight }));
    const total = weights.reduce((sum, weight) => sum + weight, 0);
    for (const abTestId of ['ab_test-alpha', 'ab_test-beta', 'ab_test-gamma']) {
      const got = shares(abTestId, arms);
      for (const arm of arms) expect(Math.abs(got[arm.id]! - (100 * arm.weight) / total), `${abTestId} ${arm.id}`).toBeLessThanOrEqual(3);
    }
  });

  it('gives an arm of weight 0 nobody, and refuses a test without weight', () => {
    const got = shares('ab_test-zero', [
      { id: 'on', weight: 1 },
      { id: 'off', weight: 0 },
    ]);
    expect(got).toEqual({ on: 100, off: 0 });
    expect(() => chooseArm('ab_test-none', 'someone', [{ id: 'off', weight: 0 }])).toThrow(RangeError);
  });

  it('splits two tests independently: the arm of one test says nothing about the other', () => {
    const arms = [
      { id: 'a', weight: 1 },
      { id: 'b', weight: 1 },
    ];
    const same = identities.filter((identity) => chooseArm('ab_test-1', identity, arms).id === chooseArm('ab_test-2', identity, arms).id).length;
    expect(Math.abs((100 * same) / USERS - 50)).toBeLessThanOrEqual(3);
  });
});

describe('feedback statistics', () => {
  it('gives the Wilson interval around the rate, within [0, 1]', () => {
    const interval = wilsonInterval(80, 100);
    expect(interval.rate).toBe(0.8);
    expect(interval.low).toBeCloseTo(0.7112, 3);
    expect(interval.high).toBeCloseTo(0.8666, 3);
    expect(wilsonInterval(0, 10).low).toBe(0);
    expect(wilsonInterval(10, 10).high).toBeCloseTo(1, 9);
    expect(wilsonInterval(0, 0)).toEqual({ rate: null, low: 0, high: 1 });
  });

  it('computes the two-proportion p-value', () => {
    expect(twoProportionPValue({ successes: 60, trials: 100 }, { successes: 40, trials: 100 })).toBeCloseTo(0.0047, 3);
    expect(twoProportionPValue({ successes: 5, trials: 10 }, { successes: 5, trials: 10 })).toBeCloseTo(1, 6);
  });

  it('declares a winner on seeded feedback only when the difference is significant', () => {
    // 80% against 60% positive over 100 ratings each: p ≈ 0.002.
    const clear = significantWinner([
      { id: 'a', positive: 60, rated: 100 },
      { id: 'b', positive: 80, rated: 100 },
    ]);
    expect(clear?.arm.id).toBe('b');
    expect(clear!.pValue).toBeLessThan(0.01);
    // The same rates over 10 ratings each are not enough.
    expect(significantWinner([
      { id: 'a', positive: 6, rated: 10 },
      { id: 'b', positive: 8, rated: 10 },
    ])).toBeNull();
    // An arm nobody rated yet leaves the test undecided.
    expect(significantWinner([
      { id: 'a', positive: 10, rated: 100 },
      { id: 'b', positive: 90, rated: 100 },
      { id: 'c', positive: 0, rated: 0 },
    ])).toBeNull();
    // Three arms: the best must beat both at the split level (0.025 each).
    expect(significantWinner([
      { id: 'a', positive: 50, rated: 100 },
      { id: 'b', positive: 65, rated: 100 },
      { id: 'c', positive: 75, rated: 100 },
    ])).toBeNull();
    expect(significantWinner([
      { id: 'a', positive: 50, rated: 200 },
      { id: 'b', positive: 60, rated: 200 },
      { id: 'c', positive: 160, rated: 200 },
    ])?.arm.id).toBe('c');
  });
});
