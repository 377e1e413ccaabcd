import { BillingAccount, Organization, Referral, type BillingMethod, type BillingTier, type Database, type PricingModel } from '@engram/db';
import { BadRequestError, NotFoundError, ServiceUnavailableError } from '../../errors.js';

export type BillingSettings = { billingTier: BillingTier; pricingModel: PricingModel };

export type BillingMethodState = {
  billingMethod: BillingMethod;
  stripeCustomerId: string | null;
  defaultPaymentMethodId: string | null;
  refreshedAt: Date | null;
};

/** What the payment provider holds for a customer; the card payments module provides it once a provider is configured. */
export type PaymentAccountSource = {
  describeCustomer(customerId: string): Promise<{ defaultPaymentMethodId: string | null }>;
};

export type ReferralProgrammeStats = {
  totalReferrals: number;
  totalReferrerRewards: number;
  totalReferredRewards: number;
  topReferrers: Array<{ organizationId: string; organizationName: string; code: string; usageCount: number; totalRewardsEarned: number }>;
};

export const NO_PAYMENT_PROVIDER_MESSAGE =
  'No payment provider (Stripe) is configured on this platform, so there is nothing to refresh the billing method from';

/**
 * How organizations pay, as platform admins set it: the tier and pricing model (`billing-settings`), the billing
 * method and what the payment provider holds for it (`billing-method`), and the referral programme's totals.
 */
export function createAdminBillingService(deps: { db: Database; paymentAccounts?: PaymentAccountSource | undefined }) {
  const { db } = deps;

  async function organizationOf(organizationId: string): Promise<Organization> {
    const organization = await Organization.query(db).findById(organizationId);
    if (!organization) throw new NotFoundError('Organization');
    return organization;
  }

  /** The organization's billing account, made on first need (organizations made before billing have none). */
  async function accountOf(organizationId: string): Promise<BillingAccount> {
    await organizationOf(organizationId);
    await BillingAccount.query(db).insert({ organizationId } as BillingAccount).onConflict('organizationId').ignore();
    return (await BillingAccount.query(db).forOrg(organizationId).first()) as BillingAccount;
  }

  const methodState = (account: BillingAccount): BillingMethodState => ({
    billingMethod: account.billingMethod,
    stripeCustomerId: account.stripeCustomerId,
    defaultPaymentMethodId: account.defaultPaymentMethodId,
    refreshedAt: account.billingMethodRefreshedAt,
  });

  async function patchAccount(organizationId: string, changes: Partial<BillingAccount>): Promise<BillingAccount> {
    await accountOf(organizationId);
    return (await BillingAccount.query(db).forOrg(organizationId).patch(changes).returning('*').first()) as BillingAccount;
  }

  return {
    async billingSettings(organizationId: string): Promise<BillingSettings> {
      const organization = await organizationOf(organizationId);
      const account = await accountOf(organizationId);
      return { billingTier: organization.billingTier, pricingModel: account.pricingModel };
    },

    /** The tier drives the plan's limits and monthly grants; `cpm` lets runs go on below a zero balance (invoiced usage). */
    async setBillingSettings(organizationId: string, settings: BillingSettings): Promise<BillingSettings> {
      await accountOf(organizationId);
      await db.transaction(async (trx) => {
        await Organization.query(trx).findById(organizationId).patch({ billingTier: settings.billingTier });
        await BillingAccount.query(trx).forOrg(organizationId).patch({ pricingModel: settings.pricingModel });
      });
      return this.billingSettings(organizationId);
    },

    async billingMethod(organizationId: string): Promise<BillingMethodState> {
      return methodState(await accountOf(organizationId));
    },

    async setBillingMethod(organizationId: string, billingMethod: BillingMethod): Promise<BillingMethodState> {
      return methodState(await patchAccount(organizationId, { billingMethod }));
    },

    /**
     * Re-reads what the payment provider holds for a Stripe-managed organization (its default card). An enterprise
     * organization is invoiced under its contract: there is nothing external to read, and only the time is recorded.
     */
    async refreshBillingMethod(organizationId: string): Promise<BillingMethodState> {
      const account = await accountOf(organizationId);
      if (account.billingMethod === 'enterprise') return methodState(await patchAccount(organizationId, { billingMethodRefreshedAt: new Date() }));
      if (!deps.paymentAccounts) throw new ServiceUnavailableError(NO_PAYMENT_PROVIDER_MESSAGE);
      if (!account.stripeCustomerId) throw new BadRequestError('This organization has no payment provider customer yet: it has never saved a card');
      const customer = await deps.paymentAccounts.describeCustomer(account.stripeCustomerId);
      return methodState(
        await patchAccount(organizationId, { defaultPaymentMethodId: customer.defaultPaymentMethodId, billingMethodRefreshedAt: new Date() }),
      );
    },

    /** Referrals across the platform, and the organizations whose codes brought the most. */
    async referralStats(topCount: number): Promise<ReferralProgrammeStats> {
      const totals = (await Referral.query(db)
        .select(db.raw('count(*) as referrals'), db.raw('coalesce(sum(referrer_reward), 0) as referrer'), db.raw('coalesce(sum(referred_reward), 0) as referred'))
        .first()) as unknown as { referrals: string; referrer: string; referred: string };
      const top = (await Referral.query(db)
        .select('referrerOrganizationId', 'code', db.raw('count(*) as usage_count'), db.raw('sum(referrer_reward) as total_rewards_earned'))
        .groupBy('referrerOrganizationId', 'code')
        .orderBy('usageCount', 'desc')
        .orderBy('referrerOrganizationId')
        .limit(topCount)) as unknown as Array<{ referrerOrganizationId: string; code: string; usageCount: string; totalRewardsEarned: string }>;
      const names = new Map(
        (await Organization.query(db).findByIds(top.map((row) => row.referrerOrganizationId)).select('id', 'name')).map((organization) => [organization.id, organization.name]),
      );
      return {
        totalReferrals: Number(totals.referrals),
        totalReferrerRewards: Number(totals.referrer),
        totalReferredRewards: Number(totals.referred),
        topReferrers: top.map((row) => ({
          organizationId: row.referrerOrganizationId,
          organizationName: names.get(row.referrerOrganizationId) ?? '',
          code: row.code,
          usageCount: Number(row.usageCount),
          totalRewardsEarned: Number(row.totalRewardsEarned),
        })),
      };
    },
  };
}

export type AdminBillingService = ReturnType<typeof createAdminBillingService>;
