import type { Database } from '@engram/db';
import { unconfiguredGateway, type PaymentGateway } from '@engram/integrations/payments';
import { createAutoTopUpService } from './auto-top-up-service.js';
import { createGiftCodeService } from './gift-codes.js';
import { createLedgerService } from './ledger-service.js';
import { createPaymentService } from './payment-service.js';
import { createPlanOverviewService } from './plan-overview.js';
import { createQuotaService } from './quotas.js';
import { createReferralService } from './referrals.js';
import type { BillingMode } from './types.js';

export type BillingDeps = {
  db: Database;
  mode: BillingMode;
  /** Stripe when STRIPE_SECRET_KEY is set; otherwise card operations answer one error naming the variable. */
  gateway?: PaymentGateway;
  /** Signal-with-start of an organization's auto top-up workflow. */
  requestTopUp: (organizationId: string) => Promise<void>;
  now?: () => Date;
};

/**
 * Billing, for the console and `/v1` routes and the admin area: the ledger (`billing.addCredits`,
 * `billing.removeCredits`, `billing.listTransactions`), cards, purchases and plans (`payments`), gift codes (`giftCodes.createGiftCode`, …), the referral
 * programme (`referrals.setReferralConfiguration`, …), quotas, and the plan overview Letta's clients read (`planOverview`).
 */
export function createBillingServices(deps: BillingDeps) {
  const billing = createLedgerService(deps);
  const quotas = createQuotaService(deps);
  return {
    billing,
    payments: createPaymentService({ db: deps.db, gateway: deps.gateway ?? unconfiguredGateway, now: deps.now }),
    autoTopUps: createAutoTopUpService({ db: deps.db, gateway: deps.gateway ?? unconfiguredGateway, requestTopUp: deps.requestTopUp }),
    giftCodes: createGiftCodeService(deps),
    referrals: createReferralService(deps),
    quotas,
    planOverview: createPlanOverviewService({ mode: deps.mode, billing, quotas }),
  };
}

export type { BillingMode } from './types.js';
