import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OAuthConnection, Organization } from '@engram/db';
import { requestV1 } from '@engram/testing/agent-test-context';
import { startScriptedModelServer, startTestStack, type ScriptedModelServer, type TestStack } from '@engram/testing';
import { inviteMember, signUp, type ConsoleUser } from './console-test-support.js';
import { browse, createTestOAuthApp, pkcePair, postForm, type TestOAuthApp } from './oauth-test-support.js';

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
const REDIRECT_URI = 'https://app.example.com/callback';

let stack: TestStack;
let model: ScriptedModelServer;
let user: ConsoleUser;
let userKey: string;
let agentId: string;
let webApp: TestOAuthApp;

beforeAll(async () => {
  model = await startScriptedModelServer({ models: ['gpt-4o-mini'] });
  stack = await startTestStack({ baseProviders: [{ name: 'openai', providerType: 'openai', apiKey: 'test', baseUrl: model.url }], inProcessWorker: false });
  user = await signUp(stack, { name: 'Oauth User' });
  await Organization.query(stack.db).findById(user.organizationId).patch({ billingTier: 'scale' });
  userKey = (await user.client.post('/api-keys', { name: 'setup' })).body.apiKey;
  agentId = (await requestV1(stack.baseUrl, userKey, 'POST', '/agents/', { name: 'oauth-agent', model: 'openai/gpt-4o-mini', include_base_tools: false })).body.id;
  webApp = await createTestOAuthApp(stack, { grantTypes: ['authorization_code', 'refresh_token'], redirectUris: [REDIRECT_URI], name: 'Agent Dashboard' });
});

afterAll(async () => {
  await stack?.stop();
  await model?.close();
});

type Authorized = { code: string; state: string | null; iss: string | null };

/**
 * The authorization code flow as a browser goes through it, one redirect at a time: the provider
 * sends the user to the console's consent screen, the user answers there, and the browser goes back
 * to the provider, which redirects to the app with a code.
 */
async function authorize(
  member: ConsoleUser,
  app: TestOAuthApp,
  options: { scope: string; challenge?: string; method?: string; organizationId?: string; approve?: boolean },
): Promise<Authorized> {
  const params = new URLSearchParams({ response_type: 'code', client_id: app.clientId, redirect_uri: REDIRECT_URI, scope: options.scope, state: 'xyz' });
  if (options.challenge) {
    params.set('code_challenge', options.challenge);
    params.set('code_challenge_method', options.method ?? 'S256');
  }
  const start = await browse(stack, member.client.jar, `/oauth/authorize?${params.toString()}`);
  expect(start.status, String(start.location)).toBe(303);
  const interactionId = /^\/authorize\/([^/?]+)$/.exec(start.location ?? '')?.[1];
  expect(interactionId, String(start.location)).toBeDefined();

  const request = await member.client.get(`/oauth/interactions/${interactionId}`);
  expect(request.status).toBe(200);
  const decision = options.approve === false ? { approve: false } : { approve: true, organizationId: options.organizationId ?? member.organizationId };
  const answer = await member.client.post(`/oauth/interactions/${interactionId}`, decision);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);

  const back = await browse(stack, member.client.jar, answer.body.redirectTo);
  expect(back.status).toBe(303);
  const redirected = new URL(back.location ?? '', stack.baseUrl);
  expect(`${redirected.origin}${redirected.pathname}`).toBe(REDIRECT_URI);
  return { code: redirected.searchParams.get('code') ?? '', state: redirected.searchParams.get('state'), iss: redirected.searchParams.get('error') ?? redirected.searchParams.get('iss') };
}

async function exchange(app: TestOAuthApp, code: string, verifier?: string) {
  return postForm(stack, '/oauth/token', app, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, ...(verifier ? { code_verifier: verifier } : {}) });
}

const v1 = (token: string, method: string, path: string, body?: unknown) => requestV1(stack.baseUrl, token, method, path, body);

describe('authorization server metadata', () => {
  it('describes the endpoints under /oauth, the agent access scopes and the grants', async () => {
    const response = await fetch(`${stack.baseUrl}/oauth/.well-known/oauth-authorization-server`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      issuer: 'http://127.0.0.1:8283/oauth',
      authorization_endpoint: `${stack.baseUrl}/oauth/authorize`,
      token_endpoint: `${stack.baseUrl}/oauth/token`,
      device_authorization_endpoint: `${stack.baseUrl}/oauth/device/code`,
      revocation_endpoint: `${stack.baseUrl}/oauth/revoke`,
      scopes_supported: ['read_messages', 'write_messages', 'read_agent', 'write_agent'],
      grant_types_supported: expect.arrayContaining(['authorization_code', 'refresh_token', DEVICE_GRANT]),
      code_challenge_methods_supported: ['S256', 'plain'],
    });
  });
});

describe('authorization code flow with PKCE', () => {
  it('shows the consent screen, redirects with a code, and exchanges it (S256) for tokens that act within their scopes', async () => {
    const { verifier, challenge } = pkcePair();
    const start = await browse(stack, user.client.jar, `/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: webApp.clientId, redirect_uri: REDIRECT_URI, scope: 'read_agent read_messages', state: 's1', code_challenge: challenge, code_challenge_method: 'S256' })}`);
    const interactionId = start.location!.split('/').at(-1)!;
    const consent = await user.client.get(`/oauth/interactions/${interactionId}`);
    expect(consent.body).toEqual({
      app: { name: 'Agent Dashboard', description: 'Reads and talks to your agents.', logoUrl: null, clientId: webApp.clientId },
      scopes: ['read_messages', 'read_agent'],
      organizations: [{ id: user.organizationId, name: expect.any(String) }],
    });
    const answer = await user.client.post(`/oauth/interactions/${interactionId}`, { approve: true, organizationId: user.organizationId });
    const back = await browse(stack, user.client.jar, answer.body.redirectTo);
    const redirected = new URL(back.location!);
    expect(redirected.searchParams.get('state')).toBe('s1');

    const tokens = await exchange(webApp, redirected.searchParams.get('code')!, verifier);
    expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
    expect(tokens.body).toEqual({
      access_token: expect.any(String),
      refresh_token: expect.any(String),
      expires_in: 3600,
      token_type: 'Bearer',
      scope: 'read_messages read_agent',
    });

    const accessToken = tokens.body.access_token as string;
    expect((await v1(accessToken, 'GET', `/agents/${agentId}`)).status).toBe(200);
    expect((await v1(accessToken, 'GET', `/agents/${agentId}/messages`)).status).toBe(200);
    expect((await v1(accessToken, 'GET', '/agents/')).body.map((agent: { id: string }) => agent.id)).toContain(agentId);
    const write = await v1(accessToken, 'PATCH', `/agents/${agentId}`, { name: 'renamed by app' });
    expect(write.status).toBe(403);
    expect(write.body).toEqual({ detail: 'This token was not granted the write_agent scope' });
    expect((await v1(accessToken, 'POST', `/agents/${agentId}/messages`, { messages: [{ role: 'user', content: 'hi' }] })).status).toBe(403);
    expect((await v1(accessToken, 'GET', '/tools/')).status).toBe(403);
    expect((await v1(accessToken, 'GET', '/client-side-access-tokens')).status).toBe(403);

    // The code is single-use; a second exchange is an invalid grant.
    expect((await exchange(webApp, redirected.searchParams.get('code')!, verifier)).body.error).toBe('invalid_grant');
  });

  it('accepts a plain code challenge (its verifier is the challenge) and refuses a wrong verifier', async () => {
    const plain = pkcePair().verifier;
    const first = await authorize(user, webApp, { scope: 'read_agent', challenge: plain, method: 'plain' });
    expect((await exchange(webApp, first.code, plain)).status).toBe(200);

    const second = await authorize(user, webApp, { scope: 'read_agent', challenge: plain, method: 'plain' });
    const wrong = await exchange(webApp, second.code, pkcePair().verifier);
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toBe('invalid_grant');
  });

  it('requires PKCE of public clients', async () => {
    const spa = await createTestOAuthApp(stack, { grantTypes: ['authorization_code'], isPublicClient: true, redirectUris: [REDIRECT_URI] });
    const params = new URLSearchParams({ response_type: 'code', client_id: spa.clientId, redirect_uri: REDIRECT_URI, scope: 'read_agent', state: 'x' });
    const refused = await browse(stack, user.client.jar, `/oauth/authorize?${params.toString()}`);
    const location = new URL(refused.location ?? '', stack.baseUrl);
    expect(location.searchParams.get('error')).toBe('invalid_request');
    expect(location.searchParams.get('error_description')).toMatch(/PKCE/);
  });

  it('rotates refresh tokens, and reusing a rotated one revokes the whole connection', async () => {
    const { verifier, challenge } = pkcePair();
    const { code } = await authorize(user, webApp, { scope: 'read_agent', challenge });
    const first = (await exchange(webApp, code, verifier)).body;

    const refreshed = await postForm(stack, '/oauth/token', webApp, { grant_type: 'refresh_token', refresh_token: first.refresh_token });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.refresh_token).not.toBe(first.refresh_token);
    expect((await v1(refreshed.body.access_token, 'GET', `/agents/${agentId}`)).status).toBe(200);

    const narrower = await postForm(stack, '/oauth/token', webApp, { grant_type: 'refresh_token', refresh_token: refreshed.body.refresh_token, scope: 'read_agent write_agent' });
    expect(narrower.status).toBe(400);
    expect(narrower.body.error).toBe('invalid_scope');

    const reused = await postForm(stack, '/oauth/token', webApp, { grant_type: 'refresh_token', refresh_token: first.refresh_token });
    expect(reused.status).toBe(400);
    expect(reused.body.error).toBe('invalid_grant');

    expect((await v1(refreshed.body.access_token, 'GET', `/agents/${agentId}`)).status).toBe(401);
    expect((await v1(first.access_token, 'GET', `/agents/${agentId}`)).status).toBe(401);
    const latest = await postForm(stack, '/oauth/token', webApp, { grant_type: 'refresh_token', refresh_token: refreshed.body.refresh_token });
    expect(latest.body.error).toBe('invalid_grant');
    const connections = await OAuthConnection.query(stack.db).where({ userId: user.userId, clientId: webApp.clientId }).orderBy('createdAt', 'desc');
    expect(connections[0]?.revokedAt).toBeInstanceOf(Date);
  });

  it('redirects a denial to the app as access_denied', async () => {
    const { challenge } = pkcePair();
    const denied = await authorize(user, webApp, { scope: 'read_agent', challenge, approve: false });
    expect(denied.code).toBe('');
    expect(denied.iss).toBe('access_denied');
  });
});

describe('what an access token may do', () => {
  it('acts in the organization it was granted for, and never beyond its user’s role', async () => {
    const other = await user.client.post('/organizations', { name: 'Second org' });
    expect(other.status, JSON.stringify(other.body)).toBe(201);
    const secondOrganizationId = other.body.id as string;
    const { verifier, challenge } = pkcePair();
    const { code } = await authorize(user, webApp, { scope: 'read_agent', challenge, organizationId: secondOrganizationId });
    const token = (await exchange(webApp, code, verifier)).body.access_token as string;
    expect((await v1(token, 'GET', '/agents/')).body).toEqual([]);
    expect((await v1(token, 'GET', `/agents/${agentId}`)).status).toBe(404);
    await user.client.put('/user/self/active-organization', { activeOrganizationId: user.organizationId });

    const analyst = await inviteMember(stack, user, 'analyst');
    const pair = pkcePair();
    const granted = await authorize(analyst, webApp, { scope: 'read_agent write_agent write_messages', challenge: pair.challenge });
    const analystToken = (await exchange(webApp, granted.code, pair.verifier)).body.access_token as string;
    expect((await v1(analystToken, 'GET', `/agents/${agentId}`)).status).toBe(200);
    const refused = await v1(analystToken, 'PATCH', `/agents/${agentId}`, { name: 'not allowed' });
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toMatch(/needs update_agents/);
  });

  it('refuses a consent for an organization the user is not in', async () => {
    const outsider = await signUp(stack, { name: 'Outsider' });
    const params = new URLSearchParams({ response_type: 'code', client_id: webApp.clientId, redirect_uri: REDIRECT_URI, scope: 'read_agent', state: 'x', ...pkceParams() });
    const start = await browse(stack, outsider.client.jar, `/oauth/authorize?${params.toString()}`);
    const answer = await outsider.client.post(`/oauth/interactions/${start.location!.split('/').at(-1)}`, { approve: true, organizationId: user.organizationId });
    expect(answer.status).toBe(404);
    expect((await outsider.client.get('/oauth/interactions/not-a-request')).status).toBe(404);
  });

  it('stops working on the very next request once its connection is revoked', async () => {
    const { verifier, challenge } = pkcePair();
    const { code } = await authorize(user, webApp, { scope: 'read_agent', challenge });
    const tokens = (await exchange(webApp, code, verifier)).body;
    expect((await v1(tokens.access_token, 'GET', `/agents/${agentId}`)).status).toBe(200);

    const connections = await user.client.get(`/user/self/connected-apps/${webApp.clientId}/connections?status=active`);
    const used = connections.body.connections.find((connection: { lastUsedAt: string | null }) => connection.lastUsedAt !== null);
    expect(used).toBeDefined();
    const revoked = await user.client.delete(`/user/self/connected-apps/${webApp.clientId}/connections/${used.id}`);
    expect(revoked.status).toBe(200);

    expect((await v1(tokens.access_token, 'GET', `/agents/${agentId}`)).status).toBe(401);
    expect((await postForm(stack, '/oauth/token', webApp, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token })).body.error).toBe('invalid_grant');
  });
});

function pkceParams() {
  return { code_challenge: pkcePair().challenge, code_challenge_method: 'S256' };
}

describe('device authorization grant', () => {
  it('serves a polling device: pending, slow_down, approval in the console, then tokens', { timeout: 60_000 }, async () => {
    const tv = await createTestOAuthApp(stack, { grantTypes: ['device_code', 'refresh_token'], isPublicClient: true, allowedScopes: ['read_agent', 'read_messages'], name: 'Living-room TV' });
    const started = await postForm(stack, '/oauth/device/code', tv, { scope: 'read_agent read_messages' });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    expect(started.body).toEqual({
      device_code: expect.any(String),
      user_code: expect.stringMatching(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/),
      verification_uri: `${stack.baseUrl}/oauth/device`,
      verification_uri_complete: `${stack.baseUrl}/oauth/device?user_code=${encodeURIComponent(started.body.user_code)}`,
      expires_in: 600,
    });
    const toPage = await browse(stack, user.client.jar, started.body.verification_uri_complete);
    expect(toPage).toEqual({ status: 303, location: `/device?user_code=${encodeURIComponent(started.body.user_code)}` });

    const poll = () => postForm(stack, '/oauth/token', tv, { grant_type: DEVICE_GRANT, device_code: started.body.device_code });
    const pending = await poll();
    expect(pending.status).toBe(400);
    expect(pending.body.error).toBe('authorization_pending');
    const tooFast = await poll();
    expect(tooFast.status).toBe(400);
    expect(tooFast.body.error).toBe('slow_down');

    const shown = await user.client.post('/oauth/device/verify-code', { userCode: started.body.user_code.toLowerCase() });
    expect(shown.body).toMatchObject({ app: { name: 'Living-room TV' }, scopes: ['read_messages', 'read_agent'] });
    const approved = await user.client.post('/oauth/device/verify', { userCode: started.body.user_code, approve: true, organizationId: user.organizationId });
    expect(approved.body).toEqual({ success: true });

    // The device keeps the interval slow_down gave it (5 + 5 seconds).
    await new Promise((resolve) => setTimeout(resolve, 10_000));
    const tokens = await poll();
    expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
    expect(tokens.body).toMatchObject({ token_type: 'Bearer', scope: 'read_messages read_agent', refresh_token: expect.any(String) });
    expect((await v1(tokens.body.access_token, 'GET', `/agents/${agentId}/messages`)).status).toBe(200);
    expect((await v1(tokens.body.access_token, 'PATCH', `/agents/${agentId}`, { name: 'no' })).status).toBe(403);

    const usedAgain = await user.client.post('/oauth/device/verify-code', { userCode: started.body.user_code });
    expect(usedAgain.status).toBe(400);
    expect(usedAgain.body.errorCode).toBe('userCodeAlreadyUsed');
  });
});

describe('token endpoint errors (spec 000 §8)', () => {
  it('answers each OAuth error with its status', async () => {
    const tv = await createTestOAuthApp(stack, { grantTypes: ['device_code'], isPublicClient: true, allowedScopes: ['read_agent'] });
    const deviceCode = async () => (await postForm(stack, '/oauth/device/code', tv, { scope: 'read_agent' })).body as { device_code: string; user_code: string };
    const pollWith = (code: string) => postForm(stack, '/oauth/token', tv, { grant_type: DEVICE_GRANT, device_code: code });
    const errorOf = async (answer: Promise<{ status: number; body: Record<string, unknown> }>) => {
      const { status, body } = await answer;
      return [body.error, status];
    };

    expect(await errorOf(postForm(stack, '/oauth/token', webApp, { code: 'x' }))).toEqual(['invalid_request', 400]);
    expect(await errorOf(postForm(stack, '/oauth/token', { ...webApp, clientSecret: 'wrong' }, { grant_type: 'authorization_code', code: 'x', redirect_uri: REDIRECT_URI }))).toEqual(['invalid_client', 401]);
    expect(await errorOf(exchange(webApp, 'not-a-code', pkcePair().verifier))).toEqual(['invalid_grant', 400]);
    expect(await errorOf(postForm(stack, '/oauth/token', tv, { grant_type: 'authorization_code', code: 'x', redirect_uri: REDIRECT_URI }))).toEqual(['unauthorized_client', 400]);
    expect(await errorOf(postForm(stack, '/oauth/token', webApp, { grant_type: 'password', username: 'a', password: 'b' }))).toEqual(['unsupported_grant_type', 400]);
    expect(await errorOf(postForm(stack, '/oauth/device/code', tv, { scope: 'read_agent write_agent' }))).toEqual(['invalid_scope', 400]);
    expect(await errorOf(postForm(stack, '/oauth/device/code', tv, { scope: 'openid read_agent' }))).toEqual(['invalid_scope', 400]);

    const pending = await deviceCode();
    expect(await errorOf(pollWith(pending.device_code))).toEqual(['authorization_pending', 400]);
    expect(await errorOf(pollWith(pending.device_code))).toEqual(['slow_down', 400]);

    const denied = await deviceCode();
    await user.client.post('/oauth/device/verify', { userCode: denied.user_code, approve: false });
    expect(await errorOf(pollWith(denied.device_code))).toEqual(['access_denied', 400]);

    const expired = await deviceCode();
    const idHash = createHash('sha256').update(expired.device_code).digest('base64url');
    await stack.db('oauth_provider_records')
      .where({ model: 'DeviceCode', id_hash: idHash })
      .update({ payload: stack.db.raw(`jsonb_set(payload, '{exp}', to_jsonb(extract(epoch from now())::int - 5))`) });
    expect(await errorOf(pollWith(expired.device_code))).toEqual(['expired_token', 400]);
    const late = await user.client.post('/oauth/device/verify-code', { userCode: expired.user_code });
    expect(late.body.errorCode).toBe('userCodeExpired');
  });
});
