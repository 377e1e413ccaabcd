import { BillingAccount, type Database } from '@engram/db';
import { isPurchasableCredits, PAYMENTS_NOT_CONFIGURED, type PaymentGateway } from '@engram/integrations/payments';
import { badRequest } from '../../errors.js';
import type { AutoTopUpSettings, AutoTopUpState } from './types.js';

/** What a console shows before anything was saved: off, with a refill worth offering. */
const UNSET: AutoTopUpSettings = { threshold: 1000, refillAmount: 10_000, maxMonthlySpend: null, enabled: false };

/**
 * Auto top-up settings (spec 000 §3, amounts in credits). Saving them on while the balance is already below the
 * threshold asks for a top-up at once; afterwards every metered step that crosses the threshold does.
 */
export function createAutoTopUpService(deps: {
  db: Database;
  gateway: Pick<PaymentGateway, 'configured'>;
  /** Signal-with-start of the organization's top-up workflow. */
  requestTopUp: (organizationId: string) => Promise<void>;
}) {
  const { db } = deps;

  async function account(organizationId: string): Promise<BillingAccount> {
    await BillingAccount.query(db).insert({ organizationId } as BillingAccount).onConflict('organizationId').ignore();
    return (await BillingAccount.query(db).forOrg(organizationId).first()) as BillingAccount;
  }

  const stateOf = (billing: BillingAccount): AutoTopUpState => ({
    threshold: billing.autoTopUpThreshold ?? UNSET.threshold,
    refillAmount: billing.autoTopUpRefillAmount ?? UNSET.refillAmount,
    maxMonthlySpend: billing.autoTopUpThreshold === null ? UNSET.maxMonthlySpend : billing.autoTopUpMaxMonthlySpend,
    enabled: billing.autoTopUpEnabled,
    disabledReason: billing.autoTopUpEnabled ? null : billing.autoTopUpFailure,
  });

  return {
    async get(organizationId: string): Promise<AutoTopUpState> {
      return stateOf(await account(organizationId));
    },

    async set(organizationId: string, settings: AutoTopUpSettings): Promise<AutoTopUpState> {
      if (!isPurchasableCredits(settings.refillAmount)) {
        throw badRequest('validation', 'The refill is bought in whole cents (multiples of 10 credits), at least 500 credits ($0.50)');
      }
      if (settings.maxMonthlySpend !== null && settings.maxMonthlySpend < settings.refillAmount) {
        throw badRequest('validation', 'The monthly maximum must allow at least one refill');
      }
      const current = await account(organizationId);
      if (settings.enabled && !deps.gateway.configured) throw badRequest('paymentError', PAYMENTS_NOT_CONFIGURED);
      if (settings.enabled && !current.defaultPaymentMethodId) throw badRequest('paymentError', 'Add a card before turning on auto top-up');
      const [saved] = await BillingAccount.query(db)
        .forOrg(organizationId)
        .patch({
          autoTopUpEnabled: settings.enabled,
          autoTopUpThreshold: settings.threshold,
          autoTopUpRefillAmount: settings.refillAmount,
          autoTopUpMaxMonthlySpend: settings.maxMonthlySpend,
          ...(settings.enabled ? { autoTopUpFailure: null } : {}),
        })
        .returning('*');
      const billing = saved as unknown as BillingAccount;
      if (billing.autoTopUpEnabled && Number(billing.creditBalance) < settings.threshold) await deps.requestTopUp(organizationId);
      return stateOf(billing);
    },
  };
}

export type AutoTopUpService = ReturnType<typeof createAutoTopUpService>;
