import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { startAgentTestContext, type JsonResponse } from '@engram/testing/agent-test-context';

const { stack, client, api, send, stop } = await startAgentTestContext({ inProcessWorker: false });
afterAll(stop);

/** An identifier_key of one test's own, so lists only see the identities that test made. */
const uniqueKey = () => `k${randomUUID().slice(0, 8)}`;

async function createIdentity(body: Record<string, unknown>, key?: string) {
  const response = await send('POST', '/identities/', { name: 'Ada Lovelace', identity_type: 'user', ...body }, key);
  expect(response.status).toBe(200);
  return response.json();
}

function createAgent(name?: string) {
  return client.agents.create({ model: 'openai/gpt-4o-mini', include_base_tools: false, ...(name ? { name } : {}) });
}

describe('creating identities', () => {
  it('creates an identity with its links and properties, and counts it', async () => {
    const before = await (await api('/identities/count')).json();
    const agent = await createAgent();
    const block = await client.blocks.create({ label: 'profile', value: 'Prefers tea.' });
    const key = uniqueKey();

    const identity = await createIdentity({
      identifier_key: key,
      agent_ids: [agent.id],
      block_ids: [block.id],
      properties: [
        { key: 'plan', value: 'pro', type: 'string' },
        { key: 'seats', value: 3, type: 'number' },
        { key: 'beta', value: true, type: 'boolean' },
        { key: 'prefs', value: { theme: 'dark' }, type: 'json' },
      ],
    });
    expect(identity).toEqual({
      id: expect.stringMatching(/^identity-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      identifier_key: key,
      name: 'Ada Lovelace',
      identity_type: 'user',
      project_id: stack.tenant.projectId,
      organization_id: stack.tenant.organizationId,
      agent_ids: [agent.id],
      block_ids: [block.id],
      properties: [
        { key: 'plan', value: 'pro', type: 'string' },
        { key: 'seats', value: 3, type: 'number' },
        { key: 'beta', value: true, type: 'boolean' },
        { key: 'prefs', value: { theme: 'dark' }, type: 'json' },
      ],
    });
    expect(await (await api(`/identities/${identity.id}`)).json()).toEqual(identity);
    expect(await (await api('/identities/count')).json()).toBe(before + 1);
  });

  it('refuses a second identity with the same identifier_key with 409', async () => {
    const key = uniqueKey();
    await createIdentity({ identifier_key: key });
    const duplicate = await send('POST', '/identities', { identifier_key: key, name: 'Someone else', identity_type: 'user' });
    expect(duplicate.status).toBe(409);
    expect((await duplicate.json()).detail).toContain(key);
  });

  it('answers 422 for malformed bodies and 404 for unknown linked ids', async () => {
    const cases: Array<[unknown, Array<string | number>]> = [
      [{ identifier_key: uniqueKey(), name: 'A', identity_type: 'robot' }, ['body', 'identity_type']],
      [{ identifier_key: uniqueKey(), identity_type: 'user' }, ['body', 'name']],
      [{ name: 'A', identity_type: 'user' }, ['body', 'identifier_key']],
      [{ identifier_key: uniqueKey(), name: 'A', identity_type: 'user', properties: [{ key: 'n', value: 'three', type: 'number' }] }, ['body', 'properties', 0, 'value']],
      [{ identifier_key: uniqueKey(), name: 'A', identity_type: 'user', unknown_field: 1 }, ['body']],
    ];
    for (const [body, loc] of cases) {
      const response = await send('POST', '/identities', body);
      expect(response.status, JSON.stringify(body)).toBe(422);
      expect((await response.json()).detail[0].loc).toEqual(loc);
    }

    const missingAgent = `agent-${randomUUID()}`;
    const unknown = await send('POST', '/identities', {
      identifier_key: uniqueKey(),
      name: 'A',
      identity_type: 'user',
      agent_ids: [missingAgent],
    });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ detail: `Agent '${missingAgent}' not found` });
  });
});

describe('changing identities', () => {
  it('upserts by identifier_key: creates once, then replaces name, type, properties and links', async () => {
    const key = uniqueKey();
    const [first, second] = [await createAgent(), await createAgent()];
    const created = await (
      await send('PUT', '/identities/', {
        identifier_key: key,
        name: 'Acme',
        identity_type: 'org',
        agent_ids: [first.id],
        properties: [{ key: 'tier', value: 'gold', type: 'string' }],
      })
    ).json();
    expect(created).toMatchObject({ identifier_key: key, name: 'Acme', identity_type: 'org', agent_ids: [first.id] });

    const replaced = await (
      await send('PUT', '/identities', {
        identifier_key: key,
        name: 'Acme Inc.',
        identity_type: 'other',
        agent_ids: [second.id],
        properties: [{ key: 'region', value: 'eu', type: 'string' }],
      })
    ).json();
    expect(replaced).toMatchObject({
      id: created.id,
      name: 'Acme Inc.',
      identity_type: 'other',
      agent_ids: [second.id],
      properties: [{ key: 'region', value: 'eu', type: 'string' }],
    });
    expect(await (await api(`/identities?identifier_key=${key}`)).json()).toHaveLength(1);
  });

  it('PATCH merges properties by key and adds agents; PUT properties replaces them', async () => {
    const [first, second] = [await createAgent(), await createAgent()];
    const identity = await createIdentity({
      identifier_key: uniqueKey(),
      agent_ids: [first.id],
      properties: [
        { key: 'plan', value: 'free', type: 'string' },
        { key: 'seats', value: 1, type: 'number' },
      ],
    });

    const patched = await (
      await send('PATCH', `/identities/${identity.id}`, {
        name: 'Ada King',
        agent_ids: [second.id],
        properties: [
          { key: 'plan', value: 'pro', type: 'string' },
          { key: 'beta', value: false, type: 'boolean' },
        ],
      })
    ).json();
    expect(patched.name).toBe('Ada King');
    expect([...patched.agent_ids].sort()).toEqual([first.id, second.id].sort());
    expect(patched.properties).toEqual([
      { key: 'plan', value: 'pro', type: 'string' },
      { key: 'seats', value: 1, type: 'number' },
      { key: 'beta', value: false, type: 'boolean' },
    ]);

    const replaced = await send('PUT', `/identities/${identity.id}/properties`, [{ key: 'only', value: { a: 1 }, type: 'json' }]);
    expect(replaced.status).toBe(200);
    expect((await replaced.json()).properties).toEqual([{ key: 'only', value: { a: 1 }, type: 'json' }]);

    const mismatched = await send('PUT', `/identities/${identity.id}/properties`, [{ key: 'flag', value: 'yes', type: 'boolean' }]);
    expect(mismatched.status).toBe(422);
    expect((await (await api(`/identities/${identity.id}`)).json()).properties).toEqual([{ key: 'only', value: { a: 1 }, type: 'json' }]);
  });

  it('refuses to rename an identifier_key onto one already in use', async () => {
    const taken = uniqueKey();
    await createIdentity({ identifier_key: taken });
    const identity = await createIdentity({ identifier_key: uniqueKey() });
    const conflict = await send('PATCH', `/identities/${identity.id}`, { identifier_key: taken });
    expect(conflict.status).toBe(409);
    expect((await (await api(`/identities/${identity.id}`)).json()).identifier_key).toBe(identity.identifier_key);
  });

  it('deleting an identity keeps its agents and blocks', async () => {
    const agent = await createAgent();
    const block = await client.blocks.create({ label: 'profile', value: 'v' });
    const identity = await createIdentity({ identifier_key: uniqueKey(), agent_ids: [agent.id], block_ids: [block.id] });

    const deleted = await send('DELETE', `/identities/${identity.id}`);
    expect(deleted.status).toBe(200);
    expect(await deleted.json()).toBeNull();
    expect((await api(`/identities/${identity.id}`)).status).toBe(404);
    expect((await client.agents.retrieve(agent.id)).id).toBe(agent.id);
    expect((await client.blocks.retrieve(block.id)).id).toBe(block.id);
  });
});

describe('listing identities and what they link to', () => {
  it('filters by name, identifier_key, type and project, newest first, paged', async () => {
    const marker = uniqueKey();
    const older = await createIdentity({ identifier_key: `${marker}-1`, name: `Grace ${marker}`, identity_type: 'user' });
    const newer = await createIdentity({ identifier_key: `${marker}-2`, name: `Hopper ${marker} Labs`, identity_type: 'org' });

    const ids = async (query: string) => ((await (await api(`/identities?${query}`)).json()) as Array<{ id: string }>).map((identity) => identity.id);
    expect(await ids(`name=${marker}`)).toEqual([newer.id, older.id]);
    expect(await ids(`name=${marker}&order=asc`)).toEqual([older.id, newer.id]);
    expect(await ids(`name=HOPPER ${marker}`)).toEqual([newer.id]);
    expect(await ids(`identifier_key=${marker}-1`)).toEqual([older.id]);
    expect(await ids(`name=${marker}&identity_type=org`)).toEqual([newer.id]);
    expect(await ids(`name=${marker}&project_id=${stack.tenant.projectId}`)).toEqual([newer.id, older.id]);
    expect(await ids(`name=${marker}&limit=1`)).toEqual([newer.id]);
    expect(await ids(`name=${marker}&after=${newer.id}`)).toEqual([older.id]);
    expect((await api('/identities?identity_type=robot')).status).toBe(422);
  });

  it('lists the agents and blocks of an identity', async () => {
    const [first, second] = [await createAgent(), await createAgent()];
    const block = await client.blocks.create({ label: 'profile', value: 'v' });
    const identity = await createIdentity({ identifier_key: uniqueKey(), agent_ids: [first.id, second.id], block_ids: [block.id] });

    const agents = await (await api(`/identities/${identity.id}/agents?include=agent.tags`)).json();
    expect(agents.map((agent: { id: string }) => agent.id)).toEqual([second.id, first.id]);
    expect(agents[0]).toMatchObject({ id: second.id, name: second.name, agent_type: 'letta_v1_agent' });
    expect(await (await api(`/identities/${identity.id}/agents?order=asc&limit=1`)).json()).toMatchObject([{ id: first.id }]);

    const blocks = await (await api(`/identities/${identity.id}/blocks`)).json();
    expect(blocks).toEqual([expect.objectContaining({ id: block.id, label: 'profile', value: 'v' })]);
  });
});

describe('attaching identities to agents', () => {
  it('attaches and detaches through the client, answering null', async () => {
    const agent = await createAgent();
    const identity = await createIdentity({ identifier_key: uniqueKey() });

    expect(await client.agents.identities.attach(identity.id, { agent_id: agent.id })).toBeNull();
    // Attaching again changes nothing.
    expect(await client.agents.identities.attach(identity.id, { agent_id: agent.id })).toBeNull();
    expect((await (await api(`/identities/${identity.id}`)).json()).agent_ids).toEqual([agent.id]);
    expect((await (await api(`/identities/${identity.id}/agents`)).json()).map((listed: { id: string }) => listed.id)).toEqual([agent.id]);

    expect(await client.agents.identities.detach(identity.id, { agent_id: agent.id })).toBeNull();
    expect((await (await api(`/identities/${identity.id}`)).json()).agent_ids).toEqual([]);
    expect(await (await api(`/identities/${identity.id}/agents`)).json()).toEqual([]);
  });

  it('shows identity ids on agents and filters the agent list by identity', async () => {
    const [linked, other] = [await createAgent(), await createAgent()];
    const key = uniqueKey();
    const identity = await createIdentity({ identifier_key: key });
    await client.agents.identities.attach(identity.id, { agent_id: linked.id });

    const fetched = await (await api(`/agents/${linked.id}?include=agent.identities`)).json();
    expect(fetched.identity_ids).toEqual([identity.id]);
    expect(fetched.identities).toEqual([expect.objectContaining({ id: identity.id, identifier_key: key })]);
    const plain = await (await api(`/agents/${linked.id}`)).json();
    expect(plain).toMatchObject({ identity_ids: [identity.id], identities: [] });

    const byId = await (await api(`/agents/?identity_id=${identity.id}`)).json();
    expect(byId.map((agent: { id: string }) => agent.id)).toEqual([linked.id]);
    const byKey = await (await api(`/agents/?identifier_keys=${key}`)).json();
    expect(byKey.map((agent: { id: string }) => agent.id)).toEqual([linked.id]);
    expect(byKey.map((agent: { id: string }) => agent.id)).not.toContain(other.id);
  });

  it('answers 404 for unknown or foreign agents and identities', async () => {
    const other = await stack.createTenant();
    const foreign = await createIdentity({ identifier_key: uniqueKey() }, other.apiKey.key);
    const agent = await createAgent();
    const identity = await createIdentity({ identifier_key: uniqueKey() });

    for (const id of [`identity-${randomUUID()}`, foreign.id]) {
      const requests: Array<[string, Promise<JsonResponse>]> = [
        ['GET', api(`/identities/${id}`)],
        ['PATCH', send('PATCH', `/identities/${id}`, { name: 'stolen' })],
        ['PUT properties', send('PUT', `/identities/${id}/properties`, [])],
        ['DELETE', send('DELETE', `/identities/${id}`)],
        ['agents', api(`/identities/${id}/agents`)],
        ['blocks', api(`/identities/${id}/blocks`)],
        ['attach', send('PATCH', `/agents/${agent.id}/identities/attach/${id}`)],
        ['detach', send('PATCH', `/agents/${agent.id}/identities/detach/${id}`)],
      ];
      for (const [what, request] of requests) {
        const response = await request;
        expect(response.status, `${what} ${id}`).toBe(404);
        expect(await response.json()).toEqual({ detail: 'Identity not found' });
      }
    }
    const unknownAgent = await send('PATCH', `/agents/agent-${randomUUID()}/identities/attach/${identity.id}`);
    expect(unknownAgent.status).toBe(404);
    expect(await unknownAgent.json()).toEqual({ detail: 'Agent not found' });
    expect(await (await api(`/identities?identifier_key=${foreign.identifier_key}`)).json()).toEqual([]);
    expect((await api(`/identities/${foreign.id}`, { key: other.apiKey.key })).status).toBe(200);
  });
});
