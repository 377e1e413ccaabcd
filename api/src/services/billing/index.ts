import type { Database } from '@engram/db';
import { createGiftCodeService } from './gift-codes.js';
import { createLedgerService } from './ledger-service.js';
import { createQuotaService } from './quotas.js';
import { createReferralService } from './referrals.js';
import type { BillingMode } from './types.js';

export type BillingDeps = { db: Database; mode: BillingMode; now?: () => Date };

/**
 * Billing, for the console and `/v1` routes and the admin area: the ledger (`billing.addCredits`,
 * `billing.removeCredits`, `billing.listTransactions`), gift codes (`giftCodes.createGiftCode`, …), the referral
 * programme (`referrals.setReferralConfiguration`, …) and quotas.
 */
export function createBillingServices(deps: BillingDeps) {
  return {
    billing: createLedgerService(deps),
    giftCodes: createGiftCodeService(deps),
    referrals: createReferralService(deps),
    quotas: createQuotaService(deps),
  };
}

export type { BillingMode } from './types.js';
