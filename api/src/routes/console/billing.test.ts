import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BillingAccount, CreditTransaction, Step } from '@engram/db';
import { startAgentTestContext, type AgentTestContext } from '@engram/testing/agent-test-context';
import { signUp, type ConsoleUser } from './console-test-support.js';

// 200 steps sent at once across 20 agents (each agent's runs take turns in its queue, the agents run side by side).
const AGENTS = 20;
const MESSAGES_PER_AGENT = 10;
const USAGE = { prompt_tokens: 300, completion_tokens: 20, total_tokens: 320 };
/** The seeded step cost of gpt-4o-mini at its 128k context window (the 200 000-token row of the free table). */
const FREE_STEP_COST = 4;

let ctx: AgentTestContext;
let user: ConsoleUser;
let apiKey: string;

beforeAll(async () => {
  ctx = await startAgentTestContext();
  ctx.model.onRequest(() => ({ type: 'text', text: 'Noted.', usage: USAGE }));
  user = await signUp(ctx.stack, { name: 'Billing Admin' });
  const key = await user.client.post('/api-keys', { name: 'billing test' });
  expect(key.status).toBe(201);
  apiKey = key.body.apiKey;
}, 120_000);

afterAll(async () => {
  await ctx?.stop();
});

/** The reconciliation every write of the ledger keeps: the maintained balance equals the ledger's sum. */
async function ledgerSum(organizationId: string): Promise<number> {
  const rows = await CreditTransaction.query(ctx.stack.db).forOrg(organizationId).select('type', 'amount');
  return rows.reduce((sum, row) => sum + (row.type === 'addition' ? Number(row.amount) : -Number(row.amount)), 0);
}

async function balance(organizationId: string): Promise<number> {
  return Number((await BillingAccount.query(ctx.stack.db).forOrg(organizationId).first())?.creditBalance);
}

describe('metering', () => {
  let stepIds: string[];

  beforeAll(async () => {
    // A new organization gets this period's grant of the free tier when it is created.
    const info = await user.client.get('/organizations/self/billing-info');
    expect(info.body).toMatchObject({ billingTier: 'free', totalCredits: 5000, recurrentCredits: 5000, isCancelled: false });

    const agents = await Promise.all(
      Array.from({ length: AGENTS }, (_, index) => ctx.clientFor(apiKey).agents.create({ name: `metered-${index}`, model: 'openai/gpt-4o-mini' })),
    );
    const sends = agents.flatMap((agent) =>
      Array.from({ length: MESSAGES_PER_AGENT }, (_, index) =>
        ctx.call(apiKey, 'POST', `/agents/${agent.id}/messages`, { messages: [{ role: 'user', content: `note ${index}` }] }),
      ),
    );
    const answers = await Promise.all(sends);
    expect(answers.filter((answer) => answer.status !== 200).map((answer) => answer.body)).toEqual([]);
    stepIds = (await Step.query(ctx.stack.db).forOrg(user.organizationId).select('id')).map((step) => step.id);
  }, 240_000);

  it('charges every step once, in the ledger and the maintained balance, which reconciles with the ledger', async () => {
    expect(stepIds).toHaveLength(AGENTS * MESSAGES_PER_AGENT);
    const charges = await CreditTransaction.query(ctx.stack.db).forOrg(user.organizationId).where('source', 'inference');
    expect(charges).toHaveLength(stepIds.length);
    expect(new Set(charges.map((charge) => charge.stepId))).toEqual(new Set(stepIds));
    expect(charges.every((charge) => charge.type === 'subtraction' && Number(charge.amount) === FREE_STEP_COST && charge.modelTier === 'free')).toBe(true);

    const steps = await Step.query(ctx.stack.db).forOrg(user.organizationId);
    const chargeByStep = new Map(charges.map((charge) => [charge.stepId, charge.id]));
    expect(steps.every((step) => step.tid === chargeByStep.get(step.id))).toBe(true);

    const expected = 5000 - stepIds.length * FREE_STEP_COST;
    expect(await balance(user.organizationId)).toBe(expected);
    expect(await ledgerSum(user.organizationId)).toBe(expected);
    const info = await user.client.get('/organizations/self/billing-info');
    expect(info.body.totalCredits).toBe(expected);
  });

  it('lists the ledger newest first, by type and date', async () => {
    const additions = await user.client.get('/transactions?type=addition');
    expect(additions.status).toBe(200);
    expect(additions.body.transactions).toEqual([
      expect.objectContaining({ type: 'addition', amount: 5000, source: 'monthly_grant', stepId: null }),
    ]);

    const firstPage = await user.client.get('/transactions?type=subtraction&limit=5');
    expect(firstPage.body.transactions).toHaveLength(5);
    expect(firstPage.body.hasNextPage).toBe(true);
    const createdAt = firstPage.body.transactions.map((transaction: { createdAt: string }) => transaction.createdAt);
    expect(createdAt).toEqual([...createdAt].sort().reverse());
    expect(firstPage.body.transactions[0]).toMatchObject({ modelTier: 'free', trueCost: FREE_STEP_COST * 0.001 });
    expect(firstPage.body.transactions[0].metadata).toMatchObject({ promptTokens: USAGE.prompt_tokens, contextWindowSize: expect.any(Number) });

    const future = new Date(Date.now() + 60_000).toISOString();
    const none = await user.client.get(`/transactions?startDate=${encodeURIComponent(future)}`);
    expect(none.body).toEqual({ transactions: [], hasNextPage: false });
  });

  it('aggregates usage per day and model', async () => {
    const usage = await user.client.get('/transactions/usage-aggregation');
    expect(usage.status).toBe(200);
    expect(usage.body.usage).toEqual([
      {
        date: new Date().toISOString().slice(0, 10),
        model: 'openai/gpt-4o-mini',
        credits: stepIds.length * FREE_STEP_COST,
        requests: stepIds.length,
        promptTokens: stepIds.length * USAGE.prompt_tokens,
        completionTokens: stepIds.length * USAGE.completion_tokens,
      },
    ]);
  });

  it('reports the month’s inferences and agents as quotas', async () => {
    const quotas = await user.client.get('/organizations/self/quotas');
    expect(quotas.body).toEqual({
      freeModelRequests: { used: stepIds.length, limit: 500 },
      premiumModelRequests: { used: 0, limit: 50 },
      agents: { used: AGENTS, limit: 100 },
    });
    const full = await user.client.get('/organizations/self/quotas/full');
    expect(full.body).toMatchObject({ projects: { used: 1, limit: 25 }, storage: { used: 0, limit: 1024 ** 3 } });
  });

  it('links a step to a transaction of its organization only', async () => {
    const [step] = stepIds as [string];
    const grant = (await CreditTransaction.query(ctx.stack.db).forOrg(user.organizationId).where('source', 'monthly_grant').first())!;
    const linked = await ctx.call(apiKey, 'PATCH', `/steps/${step}/transaction/${grant.id}`);
    expect(linked.status).toBe(200);
    expect(linked.body).toMatchObject({ id: step, tid: grant.id });

    const unknown = await ctx.call(apiKey, 'PATCH', `/steps/${step}/transaction/transaction-00000000-0000-4000-8000-000000000000`);
    expect(unknown.status).toBe(404);
    const stranger = await ctx.stack.createTenant();
    const foreign = await ctx.call(stranger.apiKey.key, 'PATCH', `/steps/${step}/transaction/${grant.id}`);
    expect(foreign.status).toBe(404);
  });
});

describe('gift codes', () => {
  it('admits a code with maxUses 1 once when 20 organizations redeem it at the same moment', async () => {
    const code = await ctx.stack.services.giftCodes.createGiftCode({ name: 'launch', code: `ONCE-${Date.now()}`, redemptionAmount: 700, maxUses: 1 });
    const tenants = await Promise.all(Array.from({ length: 20 }, () => ctx.stack.createTenant()));
    const outcomes = await Promise.allSettled(tenants.map((tenant) => ctx.stack.services.giftCodes.redeem(tenant.organizationId, code.code)));
    const admitted = outcomes.filter((outcome) => outcome.status === 'fulfilled');
    expect(admitted).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome.status === 'rejected').map((outcome) => (outcome.reason as { errorCode: string }).errorCode)).toEqual(
      Array.from({ length: 19 }, () => 'giftCodeMaxUsesReached'),
    );
    const redemptions = await ctx.stack.services.giftCodes.listRedemptions(code.id);
    expect(redemptions).toHaveLength(1);
    const winner = redemptions[0]!.organizationId;
    expect(await balance(winner)).toBe(5000 + 700);
    expect(await ledgerSum(winner)).toBe(5000 + 700);
  }, 120_000);

  it('answers each refusal with its code', async () => {
    const { giftCodes } = ctx.stack.services;
    const stamp = Date.now();
    const twice = await giftCodes.createGiftCode({ name: 'twice', code: `TWICE-${stamp}`, redemptionAmount: 10, maxUses: 10, maxUsesPerOrganization: 2 });
    const disabled = await giftCodes.createGiftCode({ name: 'off', code: `OFF-${stamp}`, redemptionAmount: 10 });
    await giftCodes.setGiftCodeDisabled(disabled.id, true);
    await giftCodes.createGiftCode({ name: 'old', code: `OLD-${stamp}`, redemptionAmount: 10, expiresAt: new Date(Date.now() - 1000) });

    const before = (await user.client.get('/organizations/self/billing-info')).body.totalCredits;
    const redeem = (code: string) => user.client.post('/gift-codes/redeem', { code });
    expect((await redeem(`twice-${stamp}`)).body).toMatchObject({ code: twice.code, amount: 10 });
    expect((await redeem(`TWICE-${stamp}`)).status).toBe(200);
    const outcomes = await Promise.all([redeem(`TWICE-${stamp}`), redeem(`OFF-${stamp}`), redeem(`OLD-${stamp}`), redeem(`NOPE-${stamp}`)]);
    expect(outcomes.map((outcome) => [outcome.status, outcome.body.errorCode])).toEqual([
      [400, 'giftCodeMaxUsesPerOrgReached'],
      [400, 'giftCodeDisabled'],
      [400, 'giftCodeExpired'],
      [400, 'giftCodeNotFound'],
    ]);
    expect((await user.client.get('/organizations/self/billing-info')).body.totalCredits).toBe(before + 20);
  });
});

describe('referrals', () => {
  it('rewards both organizations up to the referrer’s cap', async () => {
    const { referrals } = ctx.stack.services;
    await referrals.setReferralConfiguration({ enabled: true, referrerRewardAmount: 300, referredRewardAmount: 100, maxReferralRewardPerOrg: 500 });
    try {
      const code = (await user.client.get('/referral/code')).body.code as string;
      expect(code).toMatch(/^[A-Z0-9]{8}$/);
      expect((await user.client.post('/referral/validate', { code: code.toLowerCase() })).body).toEqual({ valid: true });
      expect((await user.client.post('/referral/validate', { code: 'NOPE' })).body).toEqual({ valid: false });
      expect((await user.client.post('/referral/validate', { code: 'ELEVEN-CHAR' })).status).toBe(400);

      const before = await balance(user.organizationId);
      const [first, second] = [await ctx.stack.createTenant(), await ctx.stack.createTenant()];
      await referrals.applyReferral(first.organizationId, code);
      await referrals.applyReferral(second.organizationId, code);
      expect(await balance(user.organizationId)).toBe(before + 500);
      expect(await balance(second.organizationId)).toBe(5000 + 100);

      const stats = await user.client.get('/referral/stats');
      expect(stats.body).toMatchObject({ code, usageCount: 2, totalRewardsEarned: 500 });
      expect(stats.body.referredOrganizations.map((org: { id: string }) => org.id).sort()).toEqual([first.organizationId, second.organizationId].sort());
    } finally {
      await referrals.setReferralConfiguration({ enabled: false });
    }
  });
});

describe('cards without Stripe', () => {
  it('answers every card operation with one error naming STRIPE_SECRET_KEY, and lists no cards', async () => {
    const message = 'Card payments are not configured on this server: set STRIPE_SECRET_KEY (and STRIPE_API_BASE for another Stripe endpoint)';
    expect((await user.client.get('/organizations/self/setup-intent')).body).toEqual({ errorCode: 'paymentError', message });
    expect((await user.client.get('/organizations/self/billing-info/methods')).body).toEqual({ methods: [] });
  });
});
