import type { Knex } from 'knex';
import { billingPeriod, MONTHLY_CREDIT_GRANTS, monthlyGrantKey, type BillingTier } from '@engram/core';
import { bookTransaction, type Booked } from './ledger.js';

const GRANTING_TIERS = (Object.keys(MONTHLY_CREDIT_GRANTS) as BillingTier[]).filter((tier) => MONTHLY_CREDIT_GRANTS[tier] > 0);

/** Books the tier's grant of the period containing `at` for one organization, once per period whoever asks. */
export async function grantPeriodCredits(
  trx: Knex | Knex.Transaction,
  grant: { organizationId: string; tier: BillingTier; at: Date },
): Promise<Booked | null> {
  const amount = MONTHLY_CREDIT_GRANTS[grant.tier];
  if (amount === 0) return null;
  const period = billingPeriod(grant.at);
  return bookTransaction(trx, {
    organizationId: grant.organizationId,
    type: 'addition',
    amount,
    source: 'monthly_grant',
    note: `Monthly credits for ${period.key}`,
    metadata: { period: period.key, tier: grant.tier },
    idempotencyKey: monthlyGrantKey(period),
  });
}

/**
 * Grants the period's credits to up to `limit` organizations that have not had them, and says how many it granted.
 * The grant's key makes a second booking for the same period book nothing, so runs may overlap or repeat.
 */
export async function grantDueCredits(db: Knex, input: { at: Date; limit: number }): Promise<number> {
  const key = monthlyGrantKey(billingPeriod(input.at));
  const due = (await db('organizations as o')
    .whereIn('o.billing_tier', GRANTING_TIERS)
    .whereNotExists(db('transactions as t').whereRaw('t.organization_id = o.id').where('t.idempotency_key', key))
    .orderBy('o.id')
    .limit(input.limit)
    .select('o.id', 'o.billing_tier')) as Array<{ id: string; billingTier: BillingTier }>;
  for (const organization of due) {
    await grantPeriodCredits(db, { organizationId: organization.id, tier: organization.billingTier, at: input.at });
  }
  return due.length;
}

/**
 * Takes back what is left of up to `limit` granted additions past their expiry (a gift code's `creditExpiryTimeMs`):
 * the grant's amount, or the balance if that is smaller. Each is settled once, in its own transaction with the
 * organization's balance locked. Says how many it settled.
 */
export async function expireLapsedCredits(db: Knex, input: { at: Date; limit: number }): Promise<number> {
  const lapsed = (await db('transactions')
    .where('type', 'addition')
    .whereNotNull('expires_at')
    .where('expires_at', '<=', input.at)
    .whereNull('expiry_settled_at')
    .orderBy('expires_at')
    .limit(input.limit)
    .select('id', 'organization_id', 'amount', 'metadata')) as Array<{ id: string; organizationId: string; amount: string; metadata: Record<string, unknown> }>;
  for (const granted of lapsed) {
    await db.transaction(async (trx) => {
      const settled = await trx('transactions').where({ id: granted.id }).whereNull('expiry_settled_at').update({ expiry_settled_at: input.at });
      if (settled === 0) return;
      const account = await trx('billing_accounts').where('organization_id', granted.organizationId).forUpdate().first('credit_balance');
      const amount = Math.min(Number(granted.amount), Math.max(Number(account?.creditBalance ?? 0), 0));
      if (amount === 0) return;
      await bookTransaction(trx, {
        organizationId: granted.organizationId,
        type: 'subtraction',
        amount,
        source: 'credit_expiry',
        note: 'Granted credits expired',
        metadata: { ...granted.metadata, expiredTransactionId: granted.id },
        idempotencyKey: `credit_expiry:${granted.id}`,
      });
    });
  }
  return lapsed.length;
}

/** Plans cancelled at a period end that has come go back to the free tier; says how many. */
export async function endCancelledPlans(db: Knex, input: { at: Date }): Promise<number> {
  return db.transaction(async (trx) => {
    const ended = (await trx('billing_accounts')
      .where('is_cancelled', true)
      .whereNotNull('cancel_at')
      .where('cancel_at', '<=', input.at)
      .update({ is_cancelled: false, cancel_at: null, stripe_subscription_id: null, updated_at: trx.fn.now() })
      .returning('organization_id')) as Array<{ organizationId: string }>;
    if (ended.length === 0) return 0;
    await trx('organizations')
      .whereIn('id', ended.map((account) => account.organizationId))
      .update({ billing_tier: 'free', updated_at: trx.fn.now() });
    return ended.length;
  });
}
