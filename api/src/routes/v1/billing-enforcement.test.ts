import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, CreditTransaction, SharedChatConversation } from '@engram/db';
import { startAgentTestContext, type AgentTestContext } from '@engram/testing/agent-test-context';
import { signUp } from '../console/console-test-support.js';

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

describe('shared chats under the agent limit', () => {
  it('leave their visitors\' hidden copies out of the limit, the agent lists and the counts', async () => {
    const owner = await signUp(ctx.stack, { name: 'Sharer' });
    const apiKey = (await owner.client.post('/api-keys', { name: 'sharer key' })).body.apiKey as string;
    const shared = await ctx.call(apiKey, 'POST', '/agents/', { name: 'shared', model: 'openai/gpt-4o-mini' });
    expect(shared.status).toBe(200);
    const projectId = (await Agent.query(ctx.stack.db).findById(shared.body.id))!.projectId!;
    await ctx.stack.db.raw(
      `insert into agents
       select (jsonb_populate_record(null::agents, to_jsonb(a) || jsonb_build_object('id', 'agent-' || gen_random_uuid(), 'name', 'copy-' || n))).*
         from agents a, generate_series(1, 99) n where a.id = ?`,
      [shared.body.id],
    );
    const configuration = await owner.client.put(`/projects/${projectId}/agents/${shared.body.id}/shared-chat/configuration`, { accessLevel: 'everyone' });
    expect(configuration.status).toBe(200);

    // The organization is at its 100 agents, and a visitor still gets a conversation (a copy of the agent) of their own.
    const visit = await fetch(`${ctx.stack.baseUrl}/api/chat/${configuration.body.chatId}/messages/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'hello' }),
    });
    expect(visit.status).toBe(200);
    await visit.text();
    const [conversation] = await SharedChatConversation.query(ctx.stack.db).where({ chatId: configuration.body.chatId });
    expect(conversation).toBeDefined();
    expect(await Agent.query(ctx.stack.db).forOrg(owner.organizationId).resultSize()).toBe(101);

    const refused = await ctx.call(apiKey, 'POST', '/agents/', { name: 'one too many', model: 'openai/gpt-4o-mini' });
    expect(refused).toEqual({ status: 402, body: { message: 'Your plan allows 100 agents', limit: 100 } });
    expect((await ctx.call(apiKey, 'GET', '/agents/count')).body).toBe(100);
    const listed = await ctx.call(apiKey, 'GET', '/agents/?limit=1000');
    expect(listed.body).toHaveLength(100);
    expect(listed.body.map((agent: { id: string }) => agent.id)).not.toContain(conversation!.agentId);
    const inProject = await owner.client.get(`/projects/${projectId}/source-agents?limit=100`);
    expect(inProject.body).toMatchObject({ hasNextPage: false });
    expect(inProject.body.agents).toHaveLength(100);
    expect(inProject.body.agents.map((agent: { id: string }) => agent.id)).not.toContain(conversation!.agentId);

    // Deleting an agent makes room for one, and the copy took none of it.
    expect((await ctx.call(apiKey, 'DELETE', `/agents/${listed.body.find((agent: { name: string }) => agent.name === 'copy-1').id}`)).status).toBe(200);
    expect((await ctx.call(apiKey, 'POST', '/agents/', { name: 'room again', model: 'openai/gpt-4o-mini' })).status).toBe(200);
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

describe("the plan overview Letta's clients read", () => {
  it('splits the balance into the monthly grant and the rest, and counts the month’s requests against the tier’s allowance', async () => {
    const tenant = await ctx.stack.createTenant();
    await ctx.stack.services.billing.addCredits(tenant.organizationId, { amount: 300, note: 'purchased' });
    const agent = await ctx.call(tenant.apiKey.key, 'POST', '/agents/', { name: 'standard', model: 'openai/gpt-4o-mini' });
    expect((await send(agent.body.id, tenant.apiKey.key)).status).toBe(200);

    const total = await ctx.stack.services.billing.balance(tenant.organizationId);
    const balance = await ctx.call(tenant.apiKey.key, 'GET', '/metadata/balance');
    expect(balance.body).toMatchObject({ total_balance: total, monthly_credit_balance: 5000, purchased_credit_balance: total - 5000, billing_tier: 'free', unlimited: false });

    const quotas = await ctx.call(tenant.apiKey.key, 'GET', '/organizations/self/quotas');
    expect(quotas.status).toBe(200);
    const standard = (await ctx.stack.services.quotas.quotas(tenant.organizationId)).freeModelRequests;
    expect(standard.used).toBe(1);
    expect(quotas.body).toMatchObject({ lettaTier: { bucket: 'full', used: 1, limit: standard.limit }, unlimited: false, dailyQuotaWindowEnd: null });
  }, 60_000);
});
