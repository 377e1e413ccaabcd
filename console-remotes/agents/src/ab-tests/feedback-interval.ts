/** A feedback rate with its confidence interval, all proportions of 0 to 1. */
export type RateInterval = { rate: number | null; low: number; high: number };

/** A proportion as a percentage to one decimal, held to the scale. */
const percent = (value: number) => Math.round(Math.min(1, Math.max(0, value)) * 1000) / 10;

/**
 * Where an interval is drawn on a 0 to 100% scale: the band from its low to its high end, and the rate's marker
 * (none before anything is rated, when the band spans the whole scale).
 */
export function intervalGeometry(interval: RateInterval): { bandLeft: number; bandWidth: number; marker: number | null } {
  const bandLeft = percent(interval.low);
  return { bandLeft, bandWidth: Math.max(0, percent(interval.high - interval.low)), marker: interval.rate === null ? null : percent(interval.rate) };
}

/** `62% (41–79%)`, or what is missing before any step is rated. */
export function formatInterval(interval: RateInterval): string {
  if (interval.rate === null) return 'no feedback yet';
  const whole = (value: number) => Math.round(value * 100);
  return `${whole(interval.rate)}% (${whole(interval.low)}–${whole(interval.high)}%)`;
}

/** Each arm's share of new users: its weight over the weights of all arms. */
export function trafficShares(weights: ReadonlyArray<{ id: string; weight: number }>): Map<string, number> {
  const total = weights.reduce((sum, arm) => sum + arm.weight, 0);
  return new Map(weights.map((arm) => [arm.id, total === 0 ? 0 : arm.weight / total]));
}
