import { afterAll, describe, expect, it } from 'vitest';
import type Letta from '@letta-ai/letta-client';
import { startAgentTestContext } from '@engram/testing/agent-test-context';

const { stack, clientFor, api, stop } = await startAgentTestContext({ inProcessWorker: false });
afterAll(stop);

/** Each test gets an organization of its own, so the tag list holds only the tags it put there. */
async function tenantWithAgentsTagged(tagSets: string[][]): Promise<{ client: Letta; key: string }> {
  const tenant = await stack.createTenant();
  const client = clientFor(tenant.apiKey.key);
  for (const tags of tagSets) await client.agents.create({ model: 'openai/gpt-4o-mini', include_base_tools: false, tags });
  return { client, key: tenant.apiKey.key };
}

async function tags(key: string, query = ''): Promise<string[]> {
  const response = await api(`/tags/${query}`, { key });
  expect(response.status).toBe(200);
  return (await response.json()) as string[];
}

describe('GET /v1/tags', () => {
  it("lists each of the organization's agent tags once, by name", async () => {
    const { client, key } = await tenantWithAgentsTagged([['support', 'billing'], ['billing', 'vip'], ['alpha']]);
    await tenantWithAgentsTagged([['foreign-tag']]);

    expect(await client.tags.list()).toEqual(['alpha', 'billing', 'support', 'vip']);
    expect(await tags(key, '?order=desc')).toEqual(['vip', 'support', 'billing', 'alpha']);
    // Without the trailing slash too.
    const bare = await fetch(`${stack.baseUrl}/v1/tags`, { headers: { authorization: `Bearer ${key}` } });
    expect(await bare.json()).toEqual(['alpha', 'billing', 'support', 'vip']);
  });

  it('filters by a part of the tag, case-insensitively, with name or the older query_text', async () => {
    const { client, key } = await tenantWithAgentsTagged([['Billing-EU', 'billing-us', 'support'], ['50%_off']]);

    expect(await client.tags.list({ name: 'BILL' })).toEqual(['Billing-EU', 'billing-us']);
    expect(await tags(key, '?query_text=port')).toEqual(['support']);
    expect(await tags(key, `?name=${encodeURIComponent('%_')}`)).toEqual(['50%_off']);
    expect(await tags(key, '?name=nothing')).toEqual([]);
  });

  it('pages with after and before (tags as cursors) and limit', async () => {
    const { key } = await tenantWithAgentsTagged([['a', 'b', 'c'], ['d', 'e']]);

    expect(await tags(key, '?limit=2')).toEqual(['a', 'b']);
    expect(await tags(key, '?after=b&limit=2')).toEqual(['c', 'd']);
    expect(await tags(key, '?before=d&limit=2')).toEqual(['b', 'c']);
    expect(await tags(key, '?order=desc&after=c')).toEqual(['b', 'a']);
    const invalid = await fetch(`${stack.baseUrl}/v1/tags/?limit=0`, { headers: { authorization: `Bearer ${key}` } });
    expect(invalid.status).toBe(422);
  });
});
