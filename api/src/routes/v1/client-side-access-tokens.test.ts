import { afterAll, describe, expect, it } from 'vitest';
import Letta from '@letta-ai/letta-client';
import { startAgentTestContext, type JsonResponse } from '@engram/testing/agent-test-context';

const { stack, model, client, clientFor, api, post, stop } = await startAgentTestContext();
afterAll(stop);

const APP = 'https://chat.example.com';

const newAgent = async (name: string) => client.agents.create({ name, model: 'openai/gpt-4o-mini', include_base_tools: false });

/** A call from the browser app: its token as bearer and the page's origin. */
const fromApp = (token: string, path: string, init: { method?: string; body?: unknown; origin?: string | null } = {}): Promise<JsonResponse> =>
  fetch(`${stack.baseUrl}/v1${path}`, {
    method: init.method ?? 'GET',
    headers: {
      authorization: `Bearer ${token}`,
      ...(init.origin === null ? {} : { origin: init.origin ?? APP }),
      ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });

describe('client.accessTokens (POST, GET, DELETE /v1/client-side-access-tokens)', () => {
  it('creates a token with the exact client shape, expiring in five minutes unless told otherwise', async () => {
    const agent = await newAgent('token-shape');
    const before = Date.now();
    const created = await client.accessTokens.create({ hostname: APP, policy: [{ id: agent.id, type: 'agent', access: ['read_messages', 'write_messages'] }] });

    expect(created).toEqual({
      token: expect.stringMatching(/^client_token-[0-9a-f-]{36}\.[A-Za-z0-9_-]{43}$/),
      expiresAt: expect.any(String),
      hostname: APP,
      policy: { version: '1', data: [{ id: agent.id, type: 'agent', access: ['read_messages', 'write_messages'] }] },
    });
    const lifetime = Date.parse(created.expiresAt) - before;
    expect(lifetime).toBeGreaterThan(4.9 * 60_000);
    expect(lifetime).toBeLessThanOrEqual(5 * 60_000 + 5_000);

    const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
    const hourLong = await client.accessTokens.create({ hostname: APP, expires_at: expiresAt, policy: [{ id: agent.id, type: 'agent', access: ['read_agent'] }] });
    expect(hourLong.expiresAt).toBe(expiresAt);
  });

  it('refuses a hostname that is not a full http(s) URL or ends with a slash, unknown agents and past expiry dates', async () => {
    const agent = await newAgent('token-validation');
    const policy = [{ id: agent.id, type: 'agent', access: ['read_messages'] }];

    const slash = await post('/client-side-access-tokens', { hostname: `${APP}/`, policy });
    expect(slash.status).toBe(422);
    expect((await slash.json()).detail).toEqual([expect.objectContaining({ loc: ['body', 'hostname'], msg: 'The hostname should not end with a slash' })]);
    for (const hostname of ['chat.example.com', 'ftp://chat.example.com']) {
      const refused = await post('/client-side-access-tokens', { hostname, policy });
      expect(refused.status, hostname).toBe(422);
      expect((await refused.json()).detail[0].loc).toEqual(['body', 'hostname']);
    }
    expect((await post('/client-side-access-tokens', { hostname: APP, policy: [{ ...policy[0], access: ['delete_everything'] }] })).status).toBe(422);
    expect((await post('/client-side-access-tokens', { hostname: APP, policy: [] })).status).toBe(422);

    const past = await post('/client-side-access-tokens', { hostname: APP, policy, expires_at: new Date(Date.now() - 1000).toISOString() });
    expect(past.status).toBe(422);
    expect((await past.json()).detail[0].loc).toEqual(['body', 'expires_at']);

    const unknown = await post('/client-side-access-tokens', { hostname: APP, policy: [{ ...policy[0], id: 'agent-00000000-0000-4000-8000-000000000000' }] });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ detail: 'Agent not found' });
  });

  it('lists live tokens by id, ten at a time from offset 0, filtered by agent', async () => {
    const tenant = await stack.createTenant();
    const owner = clientFor(tenant.apiKey.key);
    const agent = await owner.agents.create({ name: 'listed', model: 'openai/gpt-4o-mini', include_base_tools: false });
    const other = await owner.agents.create({ name: 'other', model: 'openai/gpt-4o-mini', include_base_tools: false });
    const issued: string[] = [];
    for (let index = 0; index < 11; index += 1) {
      const created = await owner.accessTokens.create({ hostname: APP, policy: [{ id: agent.id, type: 'agent', access: ['read_agent'] }] });
      issued.push(created.token);
    }
    const forOther = await owner.accessTokens.create({ hostname: APP, policy: [{ id: other.id, type: 'agent', access: ['read_agent'] }] });

    const first = await owner.accessTokens.list();
    expect(first.tokens).toHaveLength(10);
    expect(first.hasNextPage).toBe(true);
    expect(first.tokens[0]).toEqual({ token: forOther.token.split('.')[0], expiresAt: forOther.expiresAt, hostname: APP, policy: forOther.policy });
    const rest = await owner.accessTokens.list({ offset: 10 });
    expect(rest.tokens).toHaveLength(2);
    expect(rest.hasNextPage).toBe(false);

    const ofAgent = await owner.accessTokens.list({ agentId: agent.id, limit: 100 });
    expect(ofAgent.tokens.map((token) => token.token).sort()).toEqual(issued.map((token) => token.split('.')[0]).sort());
    expect((await owner.accessTokens.list({ agentId: other.id })).tokens.map((token) => token.token)).toEqual([forOther.token.split('.')[0]]);

    // Another organization sees none of them and cannot delete them.
    expect((await client.accessTokens.list({ agentId: agent.id })).tokens).toEqual([]);
    const foreignDelete = await api(`/client-side-access-tokens/${encodeURIComponent(forOther.token)}`, { method: 'DELETE' });
    expect(foreignDelete.status).toBe(404);
    expect((await fromApp(forOther.token, `/agents/${other.id}`)).status).toBe(200);
  });
});

describe('a client-side access token in use', () => {
  it('works from its hostname on the agents and scopes of its policy, and nowhere else', async () => {
    const agent = await newAgent('chat-agent');
    const otherAgent = await newAgent('not-in-policy');
    const { token } = await client.accessTokens.create({ hostname: `${APP}/widget`, policy: [{ id: agent.id, type: 'agent', access: ['read_messages', 'write_messages'] }] });

    const history = await fromApp(token, `/agents/${agent.id}/messages`);
    expect(history.status).toBe(200);
    expect(history.headers.get('access-control-allow-origin')).toBe(APP);

    model.enqueue({ type: 'text', text: 'hello from the widget' });
    const sent = await fromApp(token, `/agents/${agent.id}/messages`, { method: 'POST', body: { messages: [{ role: 'user', content: 'hi' }] } });
    expect(sent.status).toBe(200);
    expect((await sent.json()).messages).toEqual([expect.objectContaining({ message_type: 'assistant_message', content: 'hello from the widget' })]);

    const outsideScopes = await fromApp(token, `/agents/${agent.id}`);
    expect(outsideScopes.status).toBe(403);
    expect(await outsideScopes.json()).toEqual({ detail: 'This token does not grant read_agent on this agent' });
    expect((await fromApp(token, `/agents/${agent.id}`, { method: 'PATCH', body: { name: 'renamed' } })).status).toBe(403);
    expect((await fromApp(token, `/agents/${otherAgent.id}/messages`)).status).toBe(403);
    expect((await fromApp(token, '/agents/')).status).toBe(403);
    expect((await fromApp(token, '/tools/')).status).toBe(403);
    expect((await fromApp(token, '/client-side-access-tokens', { method: 'POST', body: { hostname: APP, policy: [{ id: agent.id, type: 'agent', access: ['write_agent'] }] } })).status).toBe(403);

    const elsewhere = await fromApp(token, `/agents/${agent.id}/messages`, { origin: 'https://evil.example.com' });
    expect(elsewhere.status).toBe(403);
    expect(elsewhere.headers.get('access-control-allow-origin')).toBeNull();
    expect(await elsewhere.json()).toEqual({ detail: `This token can only be used from ${APP}` });
    expect((await fromApp(token, `/agents/${agent.id}/messages`, { origin: null })).status).toBe(403);

    expect((await client.agents.retrieve(agent.id)).name).toBe('chat-agent');
  });

  it('reaches the conversations of the agents of its policy, with their messages scopes, and no other agent\'s', async () => {
    const agent = await newAgent('conversation-agent');
    const otherAgent = await newAgent('conversation-outsider');
    const { token } = await client.accessTokens.create({ hostname: APP, policy: [{ id: agent.id, type: 'agent', access: ['read_messages', 'write_messages'] }] });
    const reader = (await client.accessTokens.create({ hostname: APP, policy: [{ id: agent.id, type: 'agent', access: ['read_messages'] }] })).token;

    const made = await fromApp(token, `/conversations/?agent_id=${agent.id}`, { method: 'POST', body: {} });
    expect(made.status).toBe(200);
    const conversation = (await made.json()) as { id: string; agent_id: string };
    expect(conversation.agent_id).toBe(agent.id);
    expect((await fromApp(token, `/conversations/?agent_id=${agent.id}`)).status).toBe(200);
    expect((await fromApp(reader, `/conversations/${conversation.id}`)).status).toBe(200);
    expect((await fromApp(token, `/conversations/${conversation.id}`, { method: 'PATCH', body: { summary: 'Widget chat' } })).status).toBe(200);
    model.enqueue({ type: 'text', text: 'hello in a conversation' });
    const sent = await fromApp(token, `/conversations/${conversation.id}/messages`, { method: 'POST', body: { messages: [{ role: 'user', content: 'hi' }] } });
    expect(sent.status).toBe(200);
    expect(await sent.text()).toContain('hello in a conversation');
    expect((await fromApp(reader, `/conversations/${conversation.id}/messages`)).status).toBe(200);

    const readOnly = await fromApp(reader, `/conversations/?agent_id=${agent.id}`, { method: 'POST', body: {} });
    expect(readOnly.status).toBe(403);
    expect(await readOnly.json()).toEqual({ detail: 'This token does not grant write_messages on this agent' });
    const theirs = await client.conversations.create({ agent_id: otherAgent.id });
    expect((await fromApp(token, `/conversations/${theirs.id}`)).status).toBe(403);
    expect((await fromApp(token, `/conversations/${theirs.id}/messages`, { method: 'POST', body: { messages: [{ role: 'user', content: 'hi' }] } })).status).toBe(403);
    expect((await fromApp(token, `/conversations/?agent_id=${otherAgent.id}`)).status).toBe(403);
    expect((await fromApp(token, '/conversations/')).status).toBe(403);
    expect((await fromApp(token, '/conversations/conv-00000000-0000-4000-8000-000000000000')).status).toBe(404);
  });

  it('answers CORS preflights for the origins of live tokens only', async () => {
    const agent = await newAgent('preflight');
    const origin = 'https://preflight.example.com';
    const preflight = (from: string) =>
      fetch(`${stack.baseUrl}/v1/agents/${agent.id}/messages`, {
        method: 'OPTIONS',
        headers: { origin: from, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type,x-stainless-os' },
      });
    expect((await preflight(origin)).headers.get('access-control-allow-origin')).toBeNull();

    await client.accessTokens.create({ hostname: origin, policy: [{ id: agent.id, type: 'agent', access: ['write_messages'] }] });
    const allowed = await preflight(origin);
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(origin);
    expect(allowed.headers.get('access-control-allow-headers')).toBe('authorization,content-type,x-stainless-os');
    expect(allowed.headers.get('access-control-allow-methods')).toContain('POST');
    expect((await preflight('https://other.example.com')).headers.get('access-control-allow-origin')).toBeNull();
  });

  it('serves the official client used with the token from the app', async () => {
    const agent = await newAgent('official-client');
    const { token } = await client.accessTokens.create({ hostname: APP, policy: [{ id: agent.id, type: 'agent', access: ['read_agent', 'read_messages'] }] });
    const browserClient = new Letta({ apiKey: token, baseURL: stack.baseUrl, maxRetries: 0, defaultHeaders: { origin: APP } });

    expect((await browserClient.agents.retrieve(agent.id)).id).toBe(agent.id);
    expect(Array.isArray((await browserClient.agents.messages.list(agent.id)).items)).toBe(true);
    await expect(browserClient.agents.update(agent.id, { name: 'taken over' })).rejects.toMatchObject({ status: 403 });
    await expect(browserClient.agents.list()).rejects.toMatchObject({ status: 403 });
  });

  it('stops working once deleted (by token or by listed id) and once expired', async () => {
    const agent = await newAgent('short-lived');
    const policy = [{ id: agent.id, type: 'agent' as const, access: ['read_messages' as const] }];

    const deleted = await client.accessTokens.create({ hostname: APP, policy });
    expect((await fromApp(deleted.token, `/agents/${agent.id}/messages`)).status).toBe(200);
    expect(await client.accessTokens.delete(deleted.token)).toEqual({ success: true });
    const afterDelete = await fromApp(deleted.token, `/agents/${agent.id}/messages`);
    expect(afterDelete.status).toBe(401);
    await expect(client.accessTokens.delete(deleted.token)).rejects.toMatchObject({ status: 404 });

    const byId = await client.accessTokens.create({ hostname: APP, policy });
    const listedId = (await client.accessTokens.list({ agentId: agent.id })).tokens[0]!.token;
    expect(byId.token.startsWith(`${listedId}.`)).toBe(true);
    await client.accessTokens.delete(listedId);
    expect((await fromApp(byId.token, `/agents/${agent.id}/messages`)).status).toBe(401);

    const expiring = await client.accessTokens.create({ hostname: APP, policy, expires_at: new Date(Date.now() + 1500).toISOString() });
    expect((await fromApp(expiring.token, `/agents/${agent.id}/messages`)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect((await fromApp(expiring.token, `/agents/${agent.id}/messages`)).status).toBe(401);
    expect((await client.accessTokens.list({ agentId: agent.id })).tokens).toEqual([]);
  });
});
