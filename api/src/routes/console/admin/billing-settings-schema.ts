import { z } from 'zod';
import type { BillingMethodState, ReferralProgrammeStats } from '../../../services/admin/admin-billing.js';
import { iso } from '../schemas.js';

/** Spec 000 §3: billing tiers, pricing models and billing methods. */
export const BillingSettingsSchema = z.object({
  billingTier: z.enum(['free', 'pro', 'scale', 'enterprise']),
  /** `prepay`: runs need credits bought first; `cpm`: usage is metered and invoiced afterwards, the balance may go below zero. */
  pricingModel: z.enum(['prepay', 'cpm']),
});

export const BillingMethodSchema = z.object({
  billingMethod: z.enum(['stripe_managed', 'enterprise']),
  stripeCustomerId: z.string().nullable(),
  defaultPaymentMethodId: z.string().nullable(),
  /** When the method was last refreshed from the payment provider. */
  refreshedAt: z.string().nullable(),
});

export const SetBillingMethodBody = BillingMethodSchema.pick({ billingMethod: true });

export const billingMethodWire = (state: BillingMethodState): z.infer<typeof BillingMethodSchema> => ({
  billingMethod: state.billingMethod,
  stripeCustomerId: state.stripeCustomerId,
  defaultPaymentMethodId: state.defaultPaymentMethodId,
  refreshedAt: state.refreshedAt ? iso(state.refreshedAt) : null,
});

export const ReferralStatsQuery = z.object({ top: z.coerce.number().int().min(1).max(100).default(10) });

export const ReferralProgrammeStatsSchema = z.object({
  totalReferrals: z.number(),
  totalReferrerRewards: z.number(),
  totalReferredRewards: z.number(),
  topReferrers: z.array(
    z.object({ organizationId: z.string(), organizationName: z.string(), code: z.string(), usageCount: z.number(), totalRewardsEarned: z.number() }),
  ),
});

export const referralStatsWire = (stats: ReferralProgrammeStats): z.infer<typeof ReferralProgrammeStatsSchema> => ({
  totalReferrals: stats.totalReferrals,
  totalReferrerRewards: stats.totalReferrerRewards,
  totalReferredRewards: stats.totalReferredRewards,
  topReferrers: stats.topReferrers.map((referrer) => ({ ...referrer })),
});
