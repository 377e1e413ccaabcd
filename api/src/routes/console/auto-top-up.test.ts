import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BillingAccount, CreditTransaction, OutboxMessage, Payment } from '@engram/db';
import { startAgentTestContext, type AgentTestContext } from '@engram/testing/agent-test-context';
import { DECLINED_TEST_CARD, startStripeTestServer, type StripeTestServer } from '@engram/testing/stripe-recorder';
import { signUp, type ConsoleUser } from './console-test-support.js';

/**
 * Auto top-up as a Temporal workflow: a metered step that takes the balance below the threshold signals the
 * organization's top-up workflow, which charges the default card through Stripe (stripe-mock behind a recording proxy).
 */
let stripe: StripeTestServer;
let ctx: AgentTestContext;

beforeAll(async () => {
  stripe = await startStripeTestServer();
  ctx = await startAgentTestContext({ apiEnv: stripe.env });
  ctx.model.onRequest(() => ({ type: 'text', text: 'Noted.', usage: { prompt_tokens: 40, completion_tokens: 4, total_tokens: 44 } }));
}, 120_000);

afterAll(async () => {
  await ctx?.stop();
  await stripe?.stop();
});

type Org = { user: ConsoleUser; apiKey: string; agentId: string };

/** An organization with a saved card (its default) and an agent, its balance at the free tier's 5000 credits. */
async function organizationWithCard(paymentMethodId: string): Promise<Org> {
  const user = await signUp(ctx.stack, { name: 'Top-up Admin' });
  const intent = await user.client.get('/organizations/self/setup-intent');
  const card = await user.client.post('/organizations/self/billing-info/methods', { setupIntentId: intent.body.setupIntentId, paymentMethodId });
  expect(card.status, JSON.stringify(card.body)).toBe(201);
  expect((await user.client.get('/organizations/self/billing-info')).body.totalCredits).toBe(5000);
  const apiKey = (await user.client.post('/api-keys', { name: 'top-up' })).body.apiKey as string;
  const agent = await ctx.call(apiKey, 'POST', '/agents/', { name: 'spender', model: 'openai/gpt-4o-mini' });
  expect(agent.status).toBe(200);
  return { user, apiKey, agentId: agent.body.id };
}

const step = async (org: Org) => {
  const sent = await ctx.call(org.apiKey, 'POST', `/agents/${org.agentId}/messages`, { messages: [{ role: 'user', content: 'spend' }] });
  expect(sent.status, JSON.stringify(sent.body)).toBe(200);
};

/**
 * The top-up workflow's own outcome, once it has ended. A step asks for the top-up after its transaction commits, so
 * the send's answer can arrive before the workflow has started.
 */
async function topUpResult(org: Org): Promise<{ topUps: number }> {
  const handle = ctx.stack.temporal.workflow.getHandle(`auto-top-up-${org.user.organizationId}`);
  await expect.poll(() => handle.describe().then(() => true, () => false), { timeout: 30_000, interval: 50 }).toBe(true);
  return (await handle.result()) as { topUps: number };
}

const chargesOf = (org: Org) =>
  stripe.recorder.requests.filter((request) => request.path === '/v1/payment_intents' && request.params.get('metadata[organizationId]') === org.user.organizationId);

async function ledger(org: Org) {
  const rows = await CreditTransaction.query(ctx.stack.db).forOrg(org.user.organizationId);
  const balance = Number((await BillingAccount.query(ctx.stack.db).forOrg(org.user.organizationId).first())?.creditBalance);
  const sum = rows.reduce((total, row) => total + (row.type === 'addition' ? Number(row.amount) : -Number(row.amount)), 0);
  return { balance, sum, topUps: rows.filter((row) => row.source === 'auto_top_up').map((row) => Number(row.amount)) };
}

describe('auto top-up', () => {
  it('keeps its settings, refuses refills Stripe cannot charge, and needs a card to be on', async () => {
    const user = await signUp(ctx.stack, { name: 'Settings' });
    expect((await user.client.get('/organizations/self/auto-top-up')).body).toEqual({
      threshold: 1000,
      refillAmount: 10_000,
      maxMonthlySpend: null,
      enabled: false,
      disabledReason: null,
    });
    const off = { threshold: 200, refillAmount: 2000, maxMonthlySpend: 6000, enabled: false };
    expect((await user.client.put('/organizations/self/auto-top-up', off)).body).toEqual({ ...off, disabledReason: null });
    expect((await user.client.put('/organizations/self/auto-top-up', { ...off, refillAmount: 2005 })).body.errorCode).toBe('validation');
    expect((await user.client.put('/organizations/self/auto-top-up', { ...off, maxMonthlySpend: 1000 })).body.errorCode).toBe('validation');
    const noCard = await user.client.put('/organizations/self/auto-top-up', { ...off, enabled: true });
    expect(noCard.body).toEqual({ errorCode: 'paymentError', message: 'Add a card before turning on auto top-up' });
  });

  it('charges the default card once when a step takes the balance below the threshold', async () => {
    const org = await organizationWithCard('pm_card_visa');
    const saved = await org.user.client.put('/organizations/self/auto-top-up', { threshold: 4999, refillAmount: 1000, maxMonthlySpend: null, enabled: true });
    expect(saved.status).toBe(200);

    await step(org);
    expect(await topUpResult(org)).toEqual({ topUps: 1 });
    const charges = chargesOf(org);
    expect(charges).toHaveLength(1);
    expect(charges[0]!.params.get('amount')).toBe('100');
    expect(charges[0]!.params.get('payment_method')).toBe('pm_card_visa');
    expect(charges[0]!.idempotencyKey).toMatch(new RegExp(`^engram:${org.user.organizationId}:auto_top_up:[0-9a-f-]+:1$`));
    const after = await ledger(org);
    expect(after.topUps).toEqual([1000]);
    expect(after.balance).toBe(after.sum);
    expect(after.balance).toBe(5000 - 4 + 1000);
    const payment = await Payment.query(ctx.stack.db).forOrg(org.user.organizationId).where('kind', 'auto_top_up').first();
    expect(payment).toMatchObject({ status: 'succeeded', credits: 1000, amountCents: 100 });

    // Steps that stay above the threshold ask for nothing.
    await step(org);
    expect(chargesOf(org)).toHaveLength(1);
  });

  it('stops at maxMonthlySpend', async () => {
    const org = await organizationWithCard('pm_card_visa');
    await org.user.client.put('/organizations/self/auto-top-up', { threshold: 4999, refillAmount: 1000, maxMonthlySpend: 1000, enabled: true });
    await step(org);
    expect(await topUpResult(org)).toEqual({ topUps: 1 });

    // Turned on again below a higher threshold: a top-up is asked for at once, and the month's maximum refuses it.
    const raised = await org.user.client.put('/organizations/self/auto-top-up', { threshold: 9000, refillAmount: 1000, maxMonthlySpend: 1000, enabled: true });
    expect(raised.body.enabled).toBe(true);
    expect(await topUpResult(org)).toEqual({ topUps: 0 });
    expect(chargesOf(org)).toHaveLength(1);
    expect((await ledger(org)).topUps).toEqual([1000]);
  });

  it('turns itself off on a declined card and tells the admins, charging nothing', async () => {
    const org = await organizationWithCard(DECLINED_TEST_CARD);
    await org.user.client.put('/organizations/self/auto-top-up', { threshold: 4999, refillAmount: 1000, maxMonthlySpend: null, enabled: true });
    await step(org);
    expect(await topUpResult(org)).toEqual({ topUps: 0 });

    expect((await org.user.client.get('/organizations/self/auto-top-up')).body).toMatchObject({ enabled: false, disabledReason: 'Your card was declined.' });
    const notice = await OutboxMessage.query(ctx.stack.db).where({ recipient: org.user.email }).where('subject', 'like', 'Auto top-up is off%').first();
    expect(notice?.body).toContain('Your card was declined.');
    const after = await ledger(org);
    expect(after.topUps).toEqual([]);
    expect(after.balance).toBe(after.sum);
    expect(await Payment.query(ctx.stack.db).forOrg(org.user.organizationId).resultSize()).toBe(0);
  });

  it('retries a charge Stripe failed to take, with the same idempotency key, and books it once', async () => {
    const org = await organizationWithCard('pm_card_visa');
    let failures = 3;
    const flaky = stripe.recorder.intercept(
      (request) => request.path === '/v1/payment_intents' && request.params.get('metadata[organizationId]') === org.user.organizationId && failures > 0,
      () => {
        failures -= 1;
        return { status: 503, body: { error: { type: 'api_error', message: 'Stripe is briefly unavailable.' } } };
      },
    );
    try {
      await org.user.client.put('/organizations/self/auto-top-up', { threshold: 4999, refillAmount: 1000, maxMonthlySpend: null, enabled: true });
      await step(org);
      expect(await topUpResult(org)).toEqual({ topUps: 1 });
    } finally {
      flaky();
    }
    const charges = chargesOf(org);
    expect(charges.length).toBe(4);
    expect(new Set(charges.map((charge) => charge.idempotencyKey)).size).toBe(1);
    expect((await ledger(org)).topUps).toEqual([1000]);
  }, 60_000);
});
