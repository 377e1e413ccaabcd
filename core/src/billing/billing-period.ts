export type BillingTier = 'free' | 'pro' | 'scale' | 'enterprise';

/** Credits granted at the start of each monthly period (spec 000 §9). */
export const MONTHLY_CREDIT_GRANTS: Record<BillingTier, number> = { free: 5000, pro: 20_000, scale: 0, enterprise: 0 };

export type BillingPeriod = { key: string; start: Date; end: Date };

/** Billing periods are calendar months in UTC, so every process agrees on a period without asking the database. */
export function billingPeriod(now: Date): BillingPeriod {
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  return { key: start.toISOString().slice(0, 7), start, end };
}

/** What books a period's grant: one per organization and period, whoever books it (the schedule, a new organization). */
export const monthlyGrantKey = (period: BillingPeriod) => `monthly_grant:${period.key}`;
