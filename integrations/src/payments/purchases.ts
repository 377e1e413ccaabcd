import { BillingAccount, bookTransaction, newPaymentId, Organization, Payment, type Database, type PaymentKind } from '@engram/db';
import { PaymentError, type PaymentGateway } from './gateway.js';

/** Credits per US cent: a credit is $0.001 (spec 000 §9). */
export const CREDITS_PER_CENT = 10;

/** Stripe's smallest card charge in US dollars is $0.50. */
export const MIN_PURCHASE_CREDITS = 500;

/** Whether credits can be charged as whole cents at or above Stripe's minimum. */
export const isPurchasableCredits = (credits: number) => Number.isInteger(credits) && credits >= MIN_PURCHASE_CREDITS && credits % CREDITS_PER_CENT === 0;

/** The organization's Stripe customer, made on first need (one per organization, whatever process asks first). */
export async function ensureCustomer(deps: { db: Database; gateway: PaymentGateway }, organizationId: string): Promise<string> {
  await BillingAccount.query(deps.db).insert({ organizationId } as BillingAccount).onConflict('organizationId').ignore();
  const account = (await BillingAccount.query(deps.db).forOrg(organizationId).first()) as BillingAccount;
  if (account.stripeCustomerId) return account.stripeCustomerId;
  const organization = await Organization.query(deps.db).findById(organizationId).select('name');
  // The key makes concurrent first asks (or a retry after a crash) one customer at Stripe.
  const customerId = await deps.gateway.createCustomer({ organizationId, name: organization?.name ?? organizationId, idempotencyKey: `customer:${organizationId}` });
  await BillingAccount.query(deps.db).forOrg(organizationId).whereNull('stripeCustomerId').patch({ stripeCustomerId: customerId });
  return ((await BillingAccount.query(deps.db).forOrg(organizationId).first()) as BillingAccount).stripeCustomerId ?? customerId;
}

export type CreditPurchase = {
  organizationId: string;
  kind: Extract<PaymentKind, 'credit_purchase' | 'auto_top_up'>;
  credits: number;
  paymentMethodId: string;
  description: string;
  /** What the purchase is: the same key is the same purchase, charged once however often it is attempted. */
  idempotencyKey: string;
};

export type CompletedPurchase = { payment: Payment; balance: number | null };

/**
 * Buys credits with a saved card. The payment is recorded `pending` before the charge is sent, so a crash mid-charge
 * leaves a row whose retry sends the same idempotency key (Stripe then performs one charge); once Stripe has taken the
 * money, the payment becomes `succeeded` and the credits are booked in one transaction, both keyed by the purchase. A
 * declined or refused charge removes the pending row: nothing changes. A transient failure keeps it for the retry.
 */
export async function purchaseCredits(deps: { db: Database; gateway: PaymentGateway }, purchase: CreditPurchase): Promise<CompletedPurchase> {
  const { db, gateway } = deps;
  const amountCents = purchase.credits / CREDITS_PER_CENT;
  await Payment.query(db)
    .insert({
      id: newPaymentId(),
      organizationId: purchase.organizationId,
      kind: purchase.kind,
      status: 'pending',
      amountCents,
      credits: purchase.credits,
      description: purchase.description,
      paymentMethodId: purchase.paymentMethodId,
      idempotencyKey: purchase.idempotencyKey,
    } as Payment)
    .onConflict(['organizationId', 'idempotencyKey'])
    .ignore();
  const payment = (await Payment.query(db).forOrg(purchase.organizationId).where('idempotencyKey', purchase.idempotencyKey).first()) as Payment;
  if (payment.status === 'succeeded') return { payment, balance: null };

  const customerId = await ensureCustomer(deps, purchase.organizationId);
  let charged;
  try {
    charged = await gateway.charge(customerId, payment.paymentMethodId ?? purchase.paymentMethodId, {
      amountCents: payment.amountCents,
      description: payment.description,
      metadata: { organizationId: purchase.organizationId, paymentId: payment.id, kind: payment.kind, credits: String(payment.credits) },
      idempotencyKey: `engram:${purchase.organizationId}:${purchase.idempotencyKey}`,
    });
  } catch (error) {
    if (!(error instanceof PaymentError && error.kind === 'transient')) {
      await Payment.query(db).forOrg(purchase.organizationId).where({ id: payment.id, status: 'pending' }).delete();
    }
    throw error;
  }

  return db.transaction(async (trx) => {
    await Payment.query(trx)
      .forOrg(purchase.organizationId)
      .where({ id: payment.id, status: 'pending' })
      .patch({ status: 'succeeded', stripePaymentIntentId: charged.paymentIntentId, receiptUrl: charged.receiptUrl });
    const booked = await bookTransaction(trx, {
      organizationId: purchase.organizationId,
      type: 'addition',
      amount: payment.credits,
      source: payment.kind === 'auto_top_up' ? 'auto_top_up' : 'purchase',
      note: payment.description,
      metadata: { paymentId: payment.id, paymentIntentId: charged.paymentIntentId },
      idempotencyKey: `payment:${payment.id}`,
      trueCost: payment.amountCents / 100,
    });
    const settled = (await Payment.query(trx).forOrg(purchase.organizationId).findById(payment.id)) as Payment;
    return { payment: settled, balance: booked?.balance ?? null };
  });
}
