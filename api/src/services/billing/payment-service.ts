import { billingPeriod, MONTHLY_CREDIT_GRANTS, monthlyGrantKey } from '@engram/core';
import {
  BillingAccount,
  bookTransaction,
  CreditTransaction,
  newPaymentId,
  Organization,
  Payment,
  PaymentCard,
  type Database,
} from '@engram/db';
import {
  ensureCustomer,
  isPurchasableCredits,
  PaymentError,
  purchaseCredits,
  type PaidTier,
  type PaymentGateway,
  type SubscriptionResult,
} from '@engram/integrations/payments';
import { badRequest, NotFoundError } from '../../errors.js';
import { keysetPage } from '../shared/paging.js';
import { TIER_LIMITS } from '../tenancy/tier-limits.js';
import type { CardView, PurchaseResult } from './types.js';

/** The spec's one code for a failed purchase, upgrade, cancel or resume, with the payment provider's message. */
const paymentError = (message: string) => badRequest('paymentError', message);

async function paying<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if (error instanceof PaymentError) throw paymentError(error.message);
    throw error;
  }
}

const TIER_NAMES: Record<PaidTier, string> = { pro: 'Pro', scale: 'Scale' };

/** A card is expired after the last day of its expiry month. */
const isExpired = (card: Pick<PaymentCard, 'expMonth' | 'expYear'>, now: Date) =>
  card.expYear < now.getUTCFullYear() || (card.expYear === now.getUTCFullYear() && card.expMonth < now.getUTCMonth() + 1);

/**
 * Cards, purchases and plans through the payment gateway (Stripe). Engram's tables are the record: cards are listed
 * from `payment_cards`, the history from `payments`, the plan from the organization's tier; Stripe is asked to charge.
 * Every failure of the provider answers `paymentError` with its message and changes nothing.
 */
export function createPaymentService(deps: { db: Database; gateway: PaymentGateway; now?: () => Date }) {
  const { db, gateway } = deps;
  const now = deps.now ?? (() => new Date());

  async function account(organizationId: string): Promise<BillingAccount> {
    await BillingAccount.query(db).insert({ organizationId } as BillingAccount).onConflict('organizationId').ignore();
    return (await BillingAccount.query(db).forOrg(organizationId).first()) as BillingAccount;
  }

  async function cardOf(organizationId: string, cardId: string): Promise<PaymentCard> {
    const card = await PaymentCard.query(db).forOrg(organizationId).where('id', cardId).first();
    if (!card) throw new NotFoundError('Card');
    return card;
  }

  /** Records the plan, its first payment, and tops this period's grant up to the new tier's, in one transaction. */
  async function recordPlan(organizationId: string, tier: PaidTier, paid: SubscriptionResult, idempotencyKey: string, cardId: string): Promise<void> {
    const at = now();
    const period = billingPeriod(at);
    await db.transaction(async (trx) => {
      await Organization.query(trx).findById(organizationId).forUpdate().patch({ billingTier: tier });
      await BillingAccount.query(trx).forOrg(organizationId).patch({ stripeSubscriptionId: paid.subscriptionId, isCancelled: false, cancelAt: null });
      await Payment.query(trx)
        .insert({
          id: newPaymentId(),
          organizationId,
          kind: 'subscription',
          status: 'succeeded',
          amountCents: paid.amountPaidCents,
          credits: 0,
          description: `Engram ${TIER_NAMES[tier]} plan`,
          paymentMethodId: cardId,
          stripeInvoiceId: paid.invoiceId,
          receiptUrl: paid.receiptUrl,
          idempotencyKey,
        } as Payment)
        .onConflict(['organizationId', 'idempotencyKey'])
        .ignore();
      const granted = await CreditTransaction.query(trx)
        .forOrg(organizationId)
        .where('source', 'monthly_grant')
        .whereRaw(`metadata->>'period' = ?`, [period.key])
        .sum('amount as total')
        .first();
      const grantedSoFar = Number((granted as unknown as { total: string | null }).total ?? 0);
      const owed = MONTHLY_CREDIT_GRANTS[tier] - grantedSoFar;
      if (owed > 0) {
        await bookTransaction(trx, {
          organizationId,
          type: 'addition',
          amount: owed,
          source: 'monthly_grant',
          note: `Monthly credits for ${period.key} (${TIER_NAMES[tier]} plan)`,
          metadata: { period: period.key, tier },
          // With no grant yet this period, this is the period's grant; otherwise the difference the new tier adds.
          idempotencyKey: grantedSoFar === 0 ? monthlyGrantKey(period) : `${monthlyGrantKey(period)}:${tier}`,
        });
      }
    });
  }

  return {
    /** Whether cards can be used at all (STRIPE_SECRET_KEY is set). */
    configured: gateway.configured,

    async setupIntent(organizationId: string): Promise<{ clientSecret: string; setupIntentId: string }> {
      return paying(async () => {
        const intent = await gateway.createSetupIntent(await ensureCustomer({ db, gateway }, organizationId));
        return { clientSecret: intent.clientSecret, setupIntentId: intent.id };
      });
    },

    /** Saves the card a setup intent was confirmed with; the first card becomes the default. */
    async addCard(organizationId: string, input: { setupIntentId: string; paymentMethodId: string }): Promise<CardView> {
      const details = await paying(async () =>
        gateway.confirmCard({ customerId: await ensureCustomer({ db, gateway }, organizationId), ...input }),
      );
      await db.transaction(async (trx) => {
        await PaymentCard.query(trx)
          .insert({ organizationId, ...details } as PaymentCard)
          .onConflict(['organizationId', 'id'])
          .merge(['brand', 'last4', 'expMonth', 'expYear', 'name', 'billingAddress']);
        await BillingAccount.query(trx).forOrg(organizationId).whereNull('defaultPaymentMethodId').patch({ defaultPaymentMethodId: details.id });
      });
      return (await this.listCards(organizationId)).find((card) => card.card.id === details.id) as CardView;
    },

    /** Newest first, the default card flagged, expired cards flagged. */
    async listCards(organizationId: string): Promise<CardView[]> {
      const [cards, billing] = await Promise.all([
        PaymentCard.query(db).forOrg(organizationId).orderBy('createdAt', 'desc').orderBy('id'),
        account(organizationId),
      ]);
      const at = now();
      return cards.map((card) => ({ card, isDefault: card.id === billing.defaultPaymentMethodId, isExpired: isExpired(card, at) }));
    },

    /** Detaches the card at Stripe and forgets it; the newest remaining card becomes the default if it was. */
    async deleteCard(organizationId: string, cardId: string): Promise<void> {
      await cardOf(organizationId, cardId);
      await paying(() => gateway.detachCard(cardId));
      await db.transaction(async (trx) => {
        await PaymentCard.query(trx).forOrg(organizationId).where('id', cardId).delete();
        const billing = (await BillingAccount.query(trx).forOrg(organizationId).forUpdate().first()) as BillingAccount;
        if (billing.defaultPaymentMethodId !== cardId) return;
        const next = await PaymentCard.query(trx).forOrg(organizationId).orderBy('createdAt', 'desc').orderBy('id').first();
        await BillingAccount.query(trx).forOrg(organizationId).patch({ defaultPaymentMethodId: next?.id ?? null });
      });
    },

    async setDefaultCard(organizationId: string, cardId: string): Promise<void> {
      await cardOf(organizationId, cardId);
      await paying(async () => gateway.setDefaultCard(await ensureCustomer({ db, gateway }, organizationId), cardId));
      await BillingAccount.query(db).forOrg(organizationId).patch({ defaultPaymentMethodId: cardId });
    },

    /**
     * Buys credits with a saved card. `requestKey` (the client's `Idempotency-Key`) makes a resent request the same
     * purchase; without one, each request is a purchase of its own.
     */
    async purchaseCredits(organizationId: string, input: { credits: number; cardId: string }, requestKey?: string): Promise<PurchaseResult> {
      if (!isPurchasableCredits(input.credits)) {
        throw badRequest('validation', 'Credits are bought in whole cents (multiples of 10 credits), at least 500 credits ($0.50)');
      }
      await cardOf(organizationId, input.cardId);
      const purchase = await paying(() =>
        purchaseCredits(
          { db, gateway },
          {
            organizationId,
            kind: 'credit_purchase',
            credits: input.credits,
            paymentMethodId: input.cardId,
            description: `${input.credits.toLocaleString('en-US')} credits`,
            idempotencyKey: `credit_purchase:${requestKey ?? newPaymentId()}`,
          },
        ),
      );
      return { payment: purchase.payment, totalCredits: Number((await account(organizationId)).creditBalance) };
    },

    /** Subscribes to a paid tier (or moves the subscription to another), paying its first invoice with the card. */
    async upgrade(organizationId: string, input: { cardId: string; tier: PaidTier }): Promise<void> {
      await cardOf(organizationId, input.cardId);
      const organization = (await Organization.query(db).findById(organizationId)) as Organization;
      const billing = await account(organizationId);
      if (organization.billingTier === input.tier && billing.stripeSubscriptionId) {
        throw paymentError(`Your organization is already on the ${TIER_NAMES[input.tier]} plan`);
      }
      const customerId = await paying(() => ensureCustomer({ db, gateway }, organizationId));
      // One plan change is one subscription payment: the same request sent again (nothing recorded in between)
      // carries the same key, and Stripe answers it with the subscription it already made.
      const earlier = await Payment.query(db).forOrg(organizationId).where('kind', 'subscription').resultSize();
      const subscription = {
        tier: input.tier,
        monthlyAmountCents: TIER_LIMITS[input.tier].monthlyCostDollars * 100,
        billingCycleAnchor: billingPeriod(now()).end,
        metadata: { organizationId, tier: input.tier },
        idempotencyKey: `subscription:${organizationId}:${earlier}:${input.tier}`,
      };
      const paid = await paying(() =>
        billing.stripeSubscriptionId
          ? gateway.changeSubscriptionTier(billing.stripeSubscriptionId, input.cardId, subscription)
          : gateway.subscribe(customerId, input.cardId, subscription),
      );
      await recordPlan(organizationId, input.tier, paid, subscription.idempotencyKey, input.cardId);
    },

    /** Cancels at the end of the period: the tier stays until then (`isCancelled`), when the billing period schedule ends it. */
    async cancelSubscription(organizationId: string): Promise<void> {
      const billing = await account(organizationId);
      if (!billing.stripeSubscriptionId) throw paymentError('Your organization has no paid plan to cancel');
      if (billing.isCancelled) throw paymentError('The plan is already cancelled');
      await paying(() => gateway.setCancelAtPeriodEnd(billing.stripeSubscriptionId as string, true));
      await BillingAccount.query(db).forOrg(organizationId).patch({ isCancelled: true, cancelAt: billingPeriod(now()).end });
    },

    async resumeSubscription(organizationId: string): Promise<void> {
      const billing = await account(organizationId);
      if (!billing.stripeSubscriptionId || !billing.isCancelled) throw paymentError('There is no cancelled plan to resume');
      await paying(() => gateway.setCancelAtPeriodEnd(billing.stripeSubscriptionId as string, false));
      await BillingAccount.query(db).forOrg(organizationId).patch({ isCancelled: false, cancelAt: null });
    },

    /** Paid charges, newest first; `cursor` is the id of the last entry of the previous page. */
    async billingHistory(organizationId: string, page: { cursor?: string | undefined; limit: number }) {
      const rows = await keysetPage(
        Payment.query(db).forOrg(organizationId).where('status', 'succeeded'),
        { after: page.cursor, limit: page.limit + 1, order: 'desc' },
        { table: 'payments' },
      );
      const shown = rows.slice(0, page.limit);
      return { payments: shown, nextCursor: rows.length > page.limit ? (shown.at(-1)?.id ?? null) : null };
    },
  };
}

export type PaymentService = ReturnType<typeof createPaymentService>;
