import type { BillingMode } from './types.js';
import type { LedgerService } from './ledger-service.js';
import type { QuotaService } from './quotas.js';

/** How much of a request allowance is left, in the five steps Letta's clients show (`letta usage`). */
export type QuotaBucket = 'full' | 'high' | 'medium' | 'low' | 'empty';

export function bucketOf(usage: { used: number; limit: number | null }): QuotaBucket {
  // No limit (or 0: that tier pays every request with credits) is never used up.
  if (usage.limit === null || usage.limit <= 0) return 'full';
  const left = Math.max(0, usage.limit - usage.used) / usage.limit;
  if (left === 0) return 'empty';
  if (left >= 0.75) return 'full';
  if (left >= 0.5) return 'high';
  if (left >= 0.25) return 'medium';
  return 'low';
}

/**
 * What a client reads of its organization's plan: the credit balance (`/v1/metadata/balance`) and how much of the
 * month's model requests is left (`/v1/organizations/self/quotas`), from the ledger and the tier's limits. With
 * billing off (a self-hosted deployment) steps are metered but nothing is refused, and both answers say `unlimited`.
 */
export function createPlanOverviewService(deps: { mode: BillingMode; billing: Pick<LedgerService, 'billingInfo'>; quotas: Pick<QuotaService, 'quotas'> }) {
  const unlimited = deps.mode === 'off';
  return {
    async balance(organizationId: string) {
      const info = await deps.billing.billingInfo(organizationId);
      // One balance is kept: the part the tier's monthly grant covers counts as monthly, the rest as purchased.
      const monthly = Math.max(0, Math.min(info.totalCredits, info.recurrentCredits));
      return {
        total_balance: info.totalCredits,
        monthly_credit_balance: monthly,
        purchased_credit_balance: info.totalCredits - monthly,
        billing_tier: unlimited ? 'self-hosted' : info.billingTier,
        unlimited,
        billing_period_end: info.billingPeriodEnd,
      };
    },

    async modelQuotas(organizationId: string) {
      const [info, quotas] = await Promise.all([deps.billing.billingInfo(organizationId), deps.quotas.quotas(organizationId)]);
      const standard = unlimited ? { used: quotas.freeModelRequests.used, limit: null } : quotas.freeModelRequests;
      const premium = unlimited ? { used: quotas.premiumModelRequests.used, limit: null } : quotas.premiumModelRequests;
      return {
        lettaTier: { bucket: bucketOf(standard), dailyBucket: null, used: standard.used, limit: standard.limit },
        premiumTier: { bucket: bucketOf(premium), dailyBucket: null, used: premium.used, limit: premium.limit },
        quotaWindowEnd: info.billingPeriodEnd,
        dailyQuotaWindowEnd: null,
        unlimited,
      };
    },
  };
}

export type PlanOverviewService = ReturnType<typeof createPlanOverviewService>;
