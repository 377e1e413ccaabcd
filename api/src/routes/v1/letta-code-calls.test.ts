import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startAgentTestContext } from '@engram/testing/agent-test-context';
import { FIXTURE_STDIO_COMMAND } from '@engram/testing/mcp-fixture/index';
import { bucketOf } from '../../services/billing/plan-overview.js';

/** The calls Letta Code makes besides its turns, with billing off (the self-hosted default). */
const { stack, model, clientFor, call, stop } = await startAgentTestContext();
afterEach(() => model.reset());
afterAll(stop);

async function tenant() {
  const created = await stack.createTenant();
  return { apiKey: created.apiKey.key, organizationId: created.organizationId, client: clientFor(created.apiKey.key) };
}

describe('plan and caller metadata', () => {
  it('reports the ledger balance, unlimited and said so, with billing off', async () => {
    const { apiKey, organizationId } = await tenant();
    await stack.services.billing.addCredits(organizationId, { amount: 1234, note: 'test top-up' });
    const balance = await call(apiKey, 'GET', '/metadata/balance');
    expect(balance.status).toBe(200);
    const total = await stack.services.billing.balance(organizationId);
    expect(balance.body).toEqual({
      total_balance: total,
      monthly_credit_balance: expect.any(Number),
      purchased_credit_balance: expect.any(Number),
      billing_tier: 'self-hosted',
      unlimited: true,
      billing_period_end: expect.any(String),
    });
    expect(balance.body.monthly_credit_balance + balance.body.purchased_credit_balance).toBe(total);

    const quotas = await call(apiKey, 'GET', '/organizations/self/quotas');
    expect(quotas).toEqual({
      status: 200,
      body: {
        lettaTier: { bucket: 'full', dailyBucket: null, used: 0, limit: null },
        premiumTier: { bucket: 'full', dailyBucket: null, used: 0, limit: null },
        quotaWindowEnd: balance.body.billing_period_end,
        dailyQuotaWindowEnd: null,
        unlimited: true,
      },
    });
  });

  it('names the calling user in their organization', async () => {
    const { apiKey, organizationId } = await tenant();
    const user = await call(apiKey, 'GET', '/metadata/user');
    expect(user.status).toBe(200);
    expect(user.body).toEqual({ id: expect.stringMatching(/^user-/), name: 'test admin', email: null, organization_id: organizationId });
  });

  it('answers the search cache warm-up as a no-op', async () => {
    const { apiKey } = await tenant();
    expect(await call(apiKey, 'POST', '/_internal_search/cache-warm', { agent_id: 'agent-anything', query: 'x' })).toEqual({ status: 200, body: { warmed: false } });
    expect(await call(apiKey, 'POST', '/_internal_search/cache-warm')).toEqual({ status: 200, body: { warmed: false } });
  });

  it('puts what is left of an allowance into five buckets', () => {
    expect([0, 25, 26, 50, 51, 75, 76, 99, 100, 140].map((used) => bucketOf({ used, limit: 100 }))).toEqual([
      'full',
      'full',
      'high',
      'high',
      'medium',
      'medium',
      'low',
      'low',
      'empty',
      'empty',
    ]);
    expect(bucketOf({ used: 7, limit: null })).toBe('full');
    expect(bucketOf({ used: 7, limit: 0 })).toBe('full');
  });
});

describe("an agent's MCP servers and secrets", () => {
  it("lists the MCP servers whose tools the agent has, and its secrets' names without their values", async () => {
    const { apiKey, client } = await tenant();
    const server = await client.mcpServers.create({ server_name: 'fixture-stdio', config: { mcp_server_type: 'stdio', ...FIXTURE_STDIO_COMMAND } });
    await client.mcpServers.create({ server_name: 'unused-stdio', config: { mcp_server_type: 'stdio', ...FIXTURE_STDIO_COMMAND } });
    const add = (await client.mcpServers.tools.list(server.id!)).find((tool) => tool.name === 'add')!;
    const secretValue = 'sk-very-secret-value-1234567890';
    const agent = await client.agents.create({ model: 'openai/gpt-4o-mini', secrets: { SEARCH_API_KEY: secretValue, OTHER: 'another-secret' } });
    expect(await call(apiKey, 'GET', `/agents/${agent.id}/mcp-servers`)).toEqual({ status: 200, body: [] });

    await client.agents.tools.attach(add.id!, { agent_id: agent.id });
    const servers = await call(apiKey, 'GET', `/agents/${agent.id}/mcp-servers`);
    expect(servers.status).toBe(200);
    expect(servers.body).toEqual([expect.objectContaining({ id: server.id, server_name: 'fixture-stdio', mcp_server_type: 'stdio', command: FIXTURE_STDIO_COMMAND.command })]);

    const secrets = await call(apiKey, 'GET', `/agents/${agent.id}/secrets`);
    expect(secrets.status).toBe(200);
    expect(secrets.body).toEqual(
      expect.arrayContaining([
        { agent_id: agent.id, key: 'SEARCH_API_KEY', value: null, description: null },
        { agent_id: agent.id, key: 'OTHER', value: null, description: null },
      ]),
    );
    expect(secrets.body).toHaveLength(2);
    expect(JSON.stringify(secrets.body)).not.toContain('secret-value');
  });

  it("answers 404 for another organization's agent, and for an agent that does not exist", async () => {
    const owner = await tenant();
    const other = await tenant();
    const agent = await owner.client.agents.create({ model: 'openai/gpt-4o-mini', secrets: { TOKEN: 'owner-only-secret' } });
    for (const path of [`/agents/${agent.id}/mcp-servers`, `/agents/${agent.id}/secrets`, '/agents/agent-00000000-0000-4000-8000-000000000000/secrets']) {
      const answer = await call(other.apiKey, 'GET', path);
      expect(answer.status, path).toBe(404);
      expect(JSON.stringify(answer.body)).not.toContain('TOKEN');
    }
    // Each organization sees its own balance and user.
    const [ownerUser, otherUser] = [await call(owner.apiKey, 'GET', '/metadata/user'), await call(other.apiKey, 'GET', '/metadata/user')];
    expect(ownerUser.body.organization_id).toBe(owner.organizationId);
    expect(otherUser.body.organization_id).toBe(other.organizationId);
    expect(ownerUser.body.id).not.toBe(otherUser.body.id);
  });
});
