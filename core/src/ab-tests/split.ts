/** An arm of an A/B test and its share of the traffic (weights need not add up to 100). */
export type WeightedArm = { id: string; weight: number };

/** 32-bit FNV-1a of a string's UTF-16 code units, then MurmurHash3's finalizer so nearby inputs spread evenly. */
function hash32(text: string, seed: number): number {
  let hash = (0x811c9dc5 ^ seed) >>> 0;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b) >>> 0;
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35) >>> 0;
  hash ^= hash >>> 16;
  return hash >>> 0;
}

/** A point in [0, 1) fixed by the test and the identity: 53 bits from two independent hashes. */
export function splitPoint(abTestId: string, identity: string): number {
  const key = `${abTestId}\u0000${identity}`;
  const high = hash32(key, 0x9e3779b9) >>> 11;
  const low = hash32(key, 0x7f4a7c15);
  return (high * 2 ** 32 + low) / 2 ** 53;
}

/**
 * The arm an identity lands on: the same for one test and identity whenever it is asked, each arm taking a share of
 * identities in proportion to its weight. Arms are ordered by id, so the order they were given in does not matter.
 */
export function chooseArm<T extends WeightedArm>(abTestId: string, identity: string, arms: readonly T[]): T {
  const eligible = [...arms].filter((arm) => arm.weight > 0).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  if (eligible.length === 0) throw new RangeError('An A/B test needs an arm with a weight above 0');
  const total = eligible.reduce((sum, arm) => sum + arm.weight, 0);
  let point = splitPoint(abTestId, identity) * total;
  for (const arm of eligible) {
    if (point < arm.weight) return arm;
    point -= arm.weight;
  }
  return eligible[eligible.length - 1]!;
}

/** The 95% Wilson score interval of a proportion: sound at small counts and at rates near 0 or 1. */
export function wilsonInterval(successes: number, trials: number, z = 1.959964): { rate: number | null; low: number; high: number } {
  if (trials === 0) return { rate: null, low: 0, high: 1 };
  const rate = successes / trials;
  const denominator = 1 + (z * z) / trials;
  const centre = (rate + (z * z) / (2 * trials)) / denominator;
  const margin = (z * Math.sqrt((rate * (1 - rate)) / trials + (z * z) / (4 * trials * trials))) / denominator;
  return { rate, low: Math.max(0, centre - margin), high: Math.min(1, centre + margin) };
}

/** Standard normal cumulative distribution (Abramowitz and Stegun 26.2.17, error below 1e-7). */
function normalCdf(x: number): number {
  const t = 1 / (1 + 0.2316419 * Math.abs(x));
  const density = Math.exp((-x * x) / 2) / Math.sqrt(2 * Math.PI);
  const tail = density * t * (0.31938153 + t * (-0.356563782 + t * (1.781477937 + t * (-1.821255978 + t * 1.330274429))));
  return x >= 0 ? 1 - tail : tail;
}

/** Two-sided p-value of a pooled two-proportion z-test; 1 when either side has no trials or nothing varies. */
export function twoProportionPValue(a: { successes: number; trials: number }, b: { successes: number; trials: number }): number {
  if (a.trials === 0 || b.trials === 0) return 1;
  const pooled = (a.successes + b.successes) / (a.trials + b.trials);
  const standardError = Math.sqrt(pooled * (1 - pooled) * (1 / a.trials + 1 / b.trials));
  if (standardError === 0) return 1;
  const z = (a.successes / a.trials - b.successes / b.trials) / standardError;
  return 2 * (1 - normalCdf(Math.abs(z)));
}

/** Below this p-value a difference counts as significant; with more than two arms it is split between the comparisons (Bonferroni). */
export const SIGNIFICANCE_LEVEL = 0.05;

/**
 * The arm with the best positive-feedback rate, when it beats every other arm significantly: a two-proportion test
 * against each, at the significance level divided by the number of comparisons. Null until then.
 */
export function significantWinner<T extends { id: string; positive: number; rated: number }>(arms: readonly T[]): { arm: T; pValue: number } | null {
  const rated = arms.filter((arm) => arm.rated > 0);
  if (rated.length < 2 || rated.length < arms.length) return null;
  const best = [...rated].sort((a, b) => b.positive / b.rated - a.positive / a.rated)[0]!;
  const threshold = SIGNIFICANCE_LEVEL / (arms.length - 1);
  let worstP = 0;
  for (const other of rated) {
    if (other === best) continue;
    const pValue = twoProportionPValue({ successes: best.positive, trials: best.rated }, { successes: other.positive, trials: other.rated });
    if (!(best.positive / best.rated > other.positive / other.rated) || pValue >= threshold) return null;
    worstP = Math.max(worstP, pValue);
  }
  return { arm: best, pValue: worstP };
}
