import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, CreditTransaction } from '@engram/db';
import { startAgentTestContext, type AgentTestContext } from '@engram/testing/agent-test-context';

/** ENGRAM_BILLING=on: the hosted product, where tier limits and the credit balance refuse work. */
let ctx: AgentTestContext;

beforeAll(async () => {
  ctx = await startAgentTestContext({ apiEnv: { ENGRAM_BILLING: 'on' }, models: ['gpt-4o-mini', 'gpt-4o'] });
  ctx.model.onRequest(() => ({ type: 'text', text: 'Done.', usage: { prompt_tokens: 50, completion_tokens: 5, total_tokens: 55 } }));
}, 120_000);

afterAll(async () => {
  await ctx?.stop();
});

const send = (agentId: string, apiKey = ctx.stack.apiKey) =>
  ctx.call(apiKey, 'POST', `/agents/${agentId}/messages`, { messages: [{ role: 'user', content: 'hello' }] });

describe('tier limits on /v1', () => {
  it('creates the free tier’s 100th agent and refuses the 101st with 402 {message, limit}', async () => {
    const tenant = await ctx.stack.createTenant();
    const first = await ctx.call(tenant.apiKey.key, 'POST', '/agents/', { name: 'seed', model: 'openai/gpt-4o-mini' });
    expect(first.status).toBe(200);
    // Copies of the first agent bring the organization to 99 without 98 round trips.
    await ctx.stack.db.raw(
      `insert into agents
       select (jsonb_populate_record(null::agents, to_jsonb(a) || jsonb_build_object('id', 'agent-' || gen_random_uuid(), 'name', 'copy-' || n))).*
         from agents a, generate_series(1, 98) n where a.id = ?`,
      [first.body.id],
    );
    expect(await Agent.query(ctx.stack.db).forOrg(tenant.organizationId).resultSize()).toBe(99);

    const last = await ctx.call(tenant.apiKey.key, 'POST', '/agents/', { name: 'hundredth', model: 'openai/gpt-4o-mini' });
    expect(last.status).toBe(200);
    const refused = await ctx.call(tenant.apiKey.key, 'POST', '/agents/', { name: 'one too many', model: 'openai/gpt-4o-mini' });
    expect(refused).toEqual({ status: 402, body: { message: 'Your plan allows 100 agents', limit: 100 } });
    expect(await Agent.query(ctx.stack.db).forOrg(tenant.organizationId).resultSize()).toBe(100);
  }, 60_000);
});

describe('credits on /v1', () => {
  it('refuses a premium run the balance cannot pay for before the model is called, and admits it once credits arrive', async () => {
    const tenant = await ctx.stack.createTenant();
    // The month's free grant, spent elsewhere.
    await ctx.stack.services.billing.removeCredits(tenant.organizationId, { amount: 5000, note: 'spent' });
    const agent = await ctx.call(tenant.apiKey.key, 'POST', '/agents/', { name: 'premium', model: 'openai/gpt-4o', context_window_limit: 16_000 });
    expect(agent.status).toBe(200);
    const requestsBefore = ctx.model.requests.length;

    const refused = await send(agent.body.id, tenant.apiKey.key);
    expect(refused.status).toBe(402);
    expect(refused.body).toEqual({ message: 'Not enough credits: a step of openai/gpt-4o costs 10, 0 left', limit: 0 });
    expect(ctx.model.requests.length).toBe(requestsBefore);
    expect(await CreditTransaction.query(ctx.stack.db).forOrg(tenant.organizationId).where('source', 'inference').resultSize()).toBe(0);

    await ctx.stack.services.billing.addCredits(tenant.organizationId, { amount: 15, note: 'test top-up' });
    const admitted = await send(agent.body.id, tenant.apiKey.key);
    expect(admitted.status).toBe(200);
    expect(await ctx.stack.services.billing.balance(tenant.organizationId)).toBe(5);
    // 5 credits left cannot pay for a 10-credit step.
    expect((await send(agent.body.id, tenant.apiKey.key)).status).toBe(402);
  }, 60_000);
});
