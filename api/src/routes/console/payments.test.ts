import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BillingAccount, CreditTransaction, Organization, Payment, PaymentCard } from '@engram/db';
import { startTestStack, type TestStack } from '@engram/testing';
import { DECLINED_TEST_CARD, startStripeTestServer, type RecordedStripeRequest, type StripeTestServer } from '@engram/testing/stripe-recorder';
import { signUp, type ConsoleUser } from './console-test-support.js';

/**
 * Cards, purchases and plans through Stripe's API (stripe-mock behind a recording proxy). stripe-mock keeps no state,
 * so what was bought is read from Engram's tables and what was asked of Stripe from the recorded requests.
 */
let stripe: StripeTestServer;
let stack: TestStack;

beforeAll(async () => {
  stripe = await startStripeTestServer();
  stack = await startTestStack({ inProcessWorker: false, apiEnv: stripe.env });
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await stripe?.stop();
});

const sent = (method: string, path: string | RegExp) =>
  stripe.recorder.requests.filter((request) => request.method === method && (typeof path === 'string' ? request.path === path : path.test(request.path)));

/** Requests sent while `action` ran. */
async function sentDuring(action: () => Promise<unknown>): Promise<RecordedStripeRequest[]> {
  const before = stripe.recorder.requests.length;
  await action();
  return stripe.recorder.requests.slice(before);
}

async function balance(organizationId: string): Promise<number> {
  return Number((await BillingAccount.query(stack.db).forOrg(organizationId).first())?.creditBalance ?? 0);
}

async function ledgerSum(organizationId: string): Promise<number> {
  const rows = await CreditTransaction.query(stack.db).forOrg(organizationId).select('type', 'amount');
  return rows.reduce((sum, row) => sum + (row.type === 'addition' ? Number(row.amount) : -Number(row.amount)), 0);
}

/** Saves a card through a setup intent confirmed with one of Stripe's test payment methods. */
async function addCard(user: ConsoleUser, paymentMethodId: string) {
  const intent = await user.client.get('/organizations/self/setup-intent');
  expect(intent.status, JSON.stringify(intent.body)).toBe(200);
  const card = await user.client.post('/organizations/self/billing-info/methods', { setupIntentId: intent.body.setupIntentId, paymentMethodId });
  expect(card.status, JSON.stringify(card.body)).toBe(201);
  return card.body;
}

describe('cards', () => {
  let user: ConsoleUser;

  beforeAll(async () => {
    user = await signUp(stack, { name: 'Card Holder' });
  });

  it('makes one Stripe customer per organization and saves cards through setup intents, the first as default', async () => {
    const first = await addCard(user, 'pm_card_visa');
    expect(first).toMatchObject({ id: 'pm_card_visa', brand: 'visa', last4: '4242', isDefault: true, isExpired: false });
    const second = await addCard(user, 'pm_card_mastercard');
    expect(second).toMatchObject({ id: 'pm_card_mastercard', isDefault: false });

    const customers = sent('POST', '/v1/customers').filter((request) => request.params.get('metadata[organizationId]') === user.organizationId);
    expect(customers.map((request) => request.idempotencyKey)).toEqual([`customer:${user.organizationId}`]);
    const customerId = (await BillingAccount.query(stack.db).forOrg(user.organizationId).first())?.stripeCustomerId;
    expect(customerId).toMatch(/^cus_/);
    const intents = sent('POST', '/v1/setup_intents').filter((request) => request.params.get('customer') === customerId);
    expect(intents).toHaveLength(2);
    expect(intents.every((request) => request.params.get('usage') === 'off_session')).toBe(true);
    expect(sent('POST', /^\/v1\/setup_intents\/seti_\w+\/confirm$/).map((request) => request.params.get('payment_method'))).toEqual(
      expect.arrayContaining(['pm_card_visa', 'pm_card_mastercard']),
    );
  });

  it('flags expired cards and the default one, and moves the default', async () => {
    await PaymentCard.query(stack.db).forOrg(user.organizationId).where('id', 'pm_card_mastercard').patch({ expMonth: 1, expYear: 2024 });
    const listed = await user.client.get('/organizations/self/billing-info/methods');
    expect(listed.body.methods.map((card: { id: string; isDefault: boolean; isExpired: boolean }) => [card.id, card.isDefault, card.isExpired])).toEqual([
      ['pm_card_mastercard', false, true],
      ['pm_card_visa', true, false],
    ]);

    const requests = await sentDuring(async () => {
      expect((await user.client.post('/organizations/self/billing-info/methods/pm_card_mastercard/default')).body).toEqual({ success: true });
    });
    expect(requests.map((request) => [request.path, request.params.get('invoice_settings[default_payment_method]')])).toEqual([
      [expect.stringMatching(/^\/v1\/customers\/cus_/), 'pm_card_mastercard'],
    ]);
    const after = await user.client.get('/organizations/self/billing-info/methods');
    expect(after.body.methods.find((card: { isDefault: boolean }) => card.isDefault).id).toBe('pm_card_mastercard');
  });

  it('detaches a removed card at Stripe, and the newest remaining card becomes the default', async () => {
    const requests = await sentDuring(async () => {
      expect((await user.client.delete('/organizations/self/billing-info/methods/pm_card_mastercard')).status).toBe(200);
    });
    expect(requests.map((request) => `${request.method} ${request.path}`)).toEqual(['POST /v1/payment_methods/pm_card_mastercard/detach']);
    const after = await user.client.get('/organizations/self/billing-info/methods');
    expect(after.body.methods).toEqual([expect.objectContaining({ id: 'pm_card_visa', isDefault: true })]);
    expect((await user.client.delete('/organizations/self/billing-info/methods/pm_card_unknown')).status).toBe(404);
  });
});

describe('buying credits', () => {
  let user: ConsoleUser;

  beforeAll(async () => {
    user = await signUp(stack, { name: 'Buyer' });
    await addCard(user, 'pm_card_visa');
    await addCard(user, DECLINED_TEST_CARD);
  });

  it('charges the card once per purchase: a resent request with the same Idempotency-Key is the same purchase', async () => {
    const before = await balance(user.organizationId);
    const buy = () => user.client.post('/organizations/self/credits', { credits: 12_340, cardId: 'pm_card_visa' }, { 'idempotency-key': 'order-1' });
    const requests = await sentDuring(async () => {
      const bought = await buy();
      expect(bought.status, JSON.stringify(bought.body)).toBe(200);
      expect(bought.body).toMatchObject({ totalCredits: before + 12_340, payment: { amount: 12.34, description: '12,340 credits', receiptLink: expect.stringMatching(/^https:/) } });
    });
    const charges = requests.filter((request) => request.path === '/v1/payment_intents');
    expect(charges).toHaveLength(1);
    expect(Object.fromEntries(['amount', 'currency', 'payment_method', 'confirm', 'off_session'].map((name) => [name, charges[0]!.params.get(name)]))).toEqual({
      amount: '1234',
      currency: 'usd',
      payment_method: 'pm_card_visa',
      confirm: 'true',
      off_session: 'true',
    });
    expect(charges[0]!.idempotencyKey).toBe(`engram:${user.organizationId}:credit_purchase:order-1`);

    const again = await sentDuring(async () => expect((await buy()).body.totalCredits).toBe(before + 12_340));
    expect(again.filter((request) => request.path === '/v1/payment_intents')).toEqual([]);
    const purchases = await CreditTransaction.query(stack.db).forOrg(user.organizationId).where('source', 'purchase');
    expect(purchases.map((purchase) => Number(purchase.amount))).toEqual([12_340]);
    expect(await balance(user.organizationId)).toBe(await ledgerSum(user.organizationId));
  });

  it("answers a declined card with paymentError and Stripe's message, and changes nothing", async () => {
    const [before, payments] = [await balance(user.organizationId), await Payment.query(stack.db).forOrg(user.organizationId).resultSize()];
    const refused = await user.client.post('/organizations/self/credits', { credits: 5000, cardId: DECLINED_TEST_CARD });
    expect(refused).toMatchObject({ status: 400, body: { errorCode: 'paymentError', message: 'Your card was declined.' } });
    expect(await balance(user.organizationId)).toBe(before);
    expect(await Payment.query(stack.db).forOrg(user.organizationId).resultSize()).toBe(payments);
  });

  it('refuses amounts Stripe cannot charge as whole cents, and cards of no one', async () => {
    for (const credits of [499, 1005]) {
      expect((await user.client.post('/organizations/self/credits', { credits, cardId: 'pm_card_visa' })).body.errorCode).toBe('validation');
    }
    expect((await user.client.post('/organizations/self/credits', { credits: 1000, cardId: 'pm_card_nobody' })).status).toBe(404);
  });

  it('lists the charges newest first, a page at a time', async () => {
    await user.client.post('/organizations/self/credits', { credits: 1000, cardId: 'pm_card_visa' });
    const first = await user.client.get('/organizations/self/billing-history?limit=1');
    expect(first.body.history).toEqual([expect.objectContaining({ amount: 1, description: '1,000 credits' })]);
    expect(first.body.nextCursor).toBe(first.body.history[0].id);
    const second = await user.client.get(`/organizations/self/billing-history?limit=1&cursor=${first.body.nextCursor}`);
    expect(second.body).toEqual({ history: [expect.objectContaining({ amount: 12.34 })], nextCursor: null });
  });
});

describe('plans', () => {
  let user: ConsoleUser;

  beforeAll(async () => {
    user = await signUp(stack, { name: 'Upgrader' });
    await addCard(user, 'pm_card_visa');
  });

  it('subscribes to pro with the card, records the plan and its payment, and tops the period grant up to pro', async () => {
    const creditsBefore = await balance(user.organizationId);
    const requests = await sentDuring(async () => {
      const upgraded = await user.client.post('/organizations/self/upgrade', { cardId: 'pm_card_visa', tier: 'pro' });
      expect(upgraded.status, JSON.stringify(upgraded.body)).toBe(200);
      expect(upgraded.body).toMatchObject({ billingTier: 'pro', recurrentCredits: 20_000, isCancelled: false });
    });
    const subscribe = requests.find((request) => request.path === '/v1/subscriptions');
    expect(subscribe?.idempotencyKey).toBe(`subscription:${user.organizationId}:0:pro`);
    expect(subscribe?.params.get('default_payment_method')).toBe('pm_card_visa');
    expect(subscribe?.params.get('payment_behavior')).toBe('error_if_incomplete');
    const nextMonth = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth() + 1, 1));
    expect(subscribe?.params.get('billing_cycle_anchor')).toBe(String(nextMonth.getTime() / 1000));
    expect(requests.some((request) => request.path === '/v1/prices' && request.params.get('lookup_keys[0]') === 'engram_pro_monthly')).toBe(true);

    const grants = await CreditTransaction.query(stack.db).forOrg(user.organizationId).where('source', 'monthly_grant');
    expect(grants.reduce((sum, grant) => sum + Number(grant.amount), 0)).toBe(20_000);
    expect(await balance(user.organizationId)).toBeGreaterThanOrEqual(creditsBefore);
    const history = await user.client.get('/organizations/self/billing-history');
    expect(history.body.history[0]).toMatchObject({ description: 'Engram Pro plan' });

    const twice = await user.client.post('/organizations/self/upgrade', { cardId: 'pm_card_visa', tier: 'pro' });
    expect(twice.body).toMatchObject({ errorCode: 'paymentError', message: 'Your organization is already on the Pro plan' });
  });

  it('cancels at the period end and resumes, asking Stripe each time', async () => {
    const cancelled = await sentDuring(async () => {
      expect((await user.client.delete('/organizations/self/subscription')).body).toMatchObject({ billingTier: 'pro', isCancelled: true });
    });
    expect(cancelled.map((request) => [request.path, request.params.get('cancel_at_period_end')])).toEqual([[expect.stringMatching(/^\/v1\/subscriptions\/sub_/), 'true']]);
    expect((await user.client.delete('/organizations/self/subscription')).body.errorCode).toBe('paymentError');

    const resumed = await sentDuring(async () => {
      expect((await user.client.post('/organizations/self/subscription/resume')).body).toMatchObject({ billingTier: 'pro', isCancelled: false });
    });
    expect(resumed.map((request) => request.params.get('cancel_at_period_end'))).toEqual(['false']);
    expect((await user.client.post('/organizations/self/subscription/resume')).body.errorCode).toBe('paymentError');
  });

  it('leaves the plan as it was when Stripe refuses the subscription', async () => {
    const other = await signUp(stack, { name: 'Declined Upgrader' });
    await addCard(other, DECLINED_TEST_CARD);
    const refused = await other.client.post('/organizations/self/upgrade', { cardId: DECLINED_TEST_CARD, tier: 'scale' });
    expect(refused.body).toEqual({ errorCode: 'paymentError', message: 'Your card was declined.' });
    expect((await Organization.query(stack.db).findById(other.organizationId))?.billingTier).toBe('free');
    expect((await other.client.delete('/organizations/self/subscription')).body.errorCode).toBe('paymentError');

    const unavailable = stripe.recorder.intercept(
      (request) => request.path === '/v1/subscriptions',
      () => ({ status: 500, body: { error: { type: 'api_error', message: 'Stripe is having a moment.' } } }),
    );
    try {
      await addCard(other, 'pm_card_visa');
      const failed = await other.client.post('/organizations/self/upgrade', { cardId: 'pm_card_visa', tier: 'scale' });
      expect(failed.body).toEqual({ errorCode: 'paymentError', message: 'Stripe is having a moment.' });
      expect((await Organization.query(stack.db).findById(other.organizationId))?.billingTier).toBe('free');
    } finally {
      unavailable();
    }
  });
});
