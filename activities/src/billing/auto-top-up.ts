import { ApplicationFailure } from '@temporalio/activity';
import { billingPeriod } from '@engram/core';
import { BillingAccount, OrganizationMember, Payment, User, type Database } from '@engram/db';
import type { Notifier } from '@engram/integrations/notifications';
import { PaymentError, purchaseCredits, type PaymentGateway } from '@engram/integrations/payments';
import { whileHeartbeating } from '../heartbeat.js';

export type AutoTopUpDeps = { db: Database; payments: PaymentGateway; notifier: Notifier };

export type AutoTopUpInput = {
  organizationId: string;
  /** What this top-up is (the workflow run and its count of top-ups): a retry of it is the same charge. */
  idempotencyKey: string;
};

export type AutoTopUpOutcome =
  | { kind: 'charged'; credits: number; balance: number; belowThreshold: boolean }
  | { kind: 'skipped'; reason: 'disabled' | 'above_threshold' | 'no_card' | 'monthly_limit' }
  | { kind: 'declined'; message: string };

const HEARTBEAT_EVERY_MS = 1000;


/** Credits bought by auto top-up in the calendar month (UTC) of `at`, as `maxMonthlySpend` counts them. */
async function toppedUpThisMonth(db: Database, organizationId: string, at: Date): Promise<number> {
  const row = (await Payment.query(db)
    .forOrg(organizationId)
    .where('kind', 'auto_top_up')
    .where('createdAt', '>=', billingPeriod(at).start)
    .sum('credits as total')
    .first()) as unknown as { total: string | null } | undefined;
  return Number(row?.total ?? 0);
}

/**
 * The activities of `autoTopUpWorkflow`: charge the default card for the refill when the balance is below the
 * threshold (within `maxMonthlySpend`), and tell the organization's admins when the card is declined.
 */
export function createAutoTopUpActivities(deps: AutoTopUpDeps) {
  const { db } = deps;

  return {
    /**
     * One top-up. A payment already pending under this key is a charge that was sent before a crash: it is sent
     * again with the same key, whatever the balance says now. A declined card turns auto top-up off; a transient
     * failure is thrown, for the workflow's retries.
     */
    async autoTopUp(input: AutoTopUpInput): Promise<AutoTopUpOutcome> {
      const { organizationId, idempotencyKey } = input;
      const started = await Payment.query(db).forOrg(organizationId).where('idempotencyKey', idempotencyKey).first();
      const account = await BillingAccount.query(db).forOrg(organizationId).first();
      if (!started) {
        if (!account?.autoTopUpEnabled || account.autoTopUpThreshold === null || account.autoTopUpRefillAmount === null) {
          return { kind: 'skipped', reason: 'disabled' };
        }
        if (Number(account.creditBalance) >= account.autoTopUpThreshold) return { kind: 'skipped', reason: 'above_threshold' };
        if (!account.defaultPaymentMethodId) return { kind: 'skipped', reason: 'no_card' };
        const limit = account.autoTopUpMaxMonthlySpend;
        if (limit !== null && (await toppedUpThisMonth(db, organizationId, new Date())) + account.autoTopUpRefillAmount > limit) {
          return { kind: 'skipped', reason: 'monthly_limit' };
        }
      }
      const credits = started?.credits ?? (account?.autoTopUpRefillAmount as number);
      try {
        const purchase = await whileHeartbeating(HEARTBEAT_EVERY_MS, () =>
          purchaseCredits(
            { db, gateway: deps.payments },
            {
              organizationId,
              kind: 'auto_top_up',
              credits,
              paymentMethodId: started?.paymentMethodId ?? (account?.defaultPaymentMethodId as string),
              description: `Auto top-up: ${credits.toLocaleString('en-US')} credits`,
              idempotencyKey,
            },
          ),
        );
        const after = (await BillingAccount.query(db).forOrg(organizationId).first()) as BillingAccount;
        const balance = Number(after.creditBalance);
        return { kind: 'charged', credits: purchase.payment.credits, balance, belowThreshold: after.autoTopUpEnabled && balance < (after.autoTopUpThreshold ?? 0) };
      } catch (error) {
        if (!(error instanceof PaymentError)) throw error;
        if (error.kind === 'transient') throw ApplicationFailure.retryable(error.message, 'PaymentUnavailable');
        if (error.kind !== 'declined') throw ApplicationFailure.nonRetryable(error.message, 'PaymentRefused');
        await BillingAccount.query(db).forOrg(organizationId).patch({ autoTopUpEnabled: false, autoTopUpFailure: error.message });
        return { kind: 'declined', message: error.message };
      }
    },

    /** Tells every admin of the organization that auto top-up was turned off, through the notifier (outbox, email). */
    async notifyAutoTopUpDeclined(input: { organizationId: string; message: string }): Promise<void> {
      const admins = await User.query(db)
        .whereIn('id', OrganizationMember.query(db).forOrg(input.organizationId).where('role', 'admin').select('userId'))
        .whereNotNull('email');
      for (const admin of admins) {
        await deps.notifier.send({
          channel: 'email',
          recipient: admin.email as string,
          subject: 'Auto top-up is off: your card was declined',
          body:
            `Engram tried to top up your organization's credits, and the card was declined: ${input.message}\n` +
            'Auto top-up is now off. Add or choose another card in Billing and turn it on again.',
        });
      }
    },
  };
}

export type AutoTopUpActivities = ReturnType<typeof createAutoTopUpActivities>;
