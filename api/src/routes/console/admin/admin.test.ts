import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BillingAccount, ContentViolation, newReferralId, Referral, Run, User } from '@engram/db';
import { startApiProcess, type ChatRequest, type ApiProcess, until } from '@engram/testing';
import { startAgentTestContext, type AgentTestContext } from '@engram/testing/agent-test-context';
import { createAgent } from '@engram/testing/factories/index';
import { callRoute, fillPath, walkableRoutes } from '../../../http/route-walk-test-support.js';
import { BANNED_ORGANIZATION_MESSAGE } from '../../../http/auth.js';
import { createAdminBillingService, NO_PAYMENT_PROVIDER_MESSAGE } from '../../../services/admin/admin-billing.js';
import { createQuotaService } from '../../../services/billing/quotas.js';
import { signUp, type ConsoleUser } from '../console-test-support.js';
import { connectThroughDevice, createTestOAuthApp, postForm } from '../oauth-test-support.js';

let context: AgentTestContext;
let platformAdmin: ConsoleUser;
let secondApi: ApiProcess | undefined;
let secondApiUrl: string;

const APP_ORIGIN = 'https://chat.example.com';
/** A model of this file alone: the registry is platform-wide, and other test files run beside this one. */
const MODEL = `gpt-admin-${randomBytes(4).toString('hex')}`;
const TEST_MODEL = `openai/${MODEL}`;

async function v1(baseUrl: string, key: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${baseUrl}/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

/** A member's organization with an API key and an agent on the test model. */
async function customer(label: string) {
  const owner = await signUp(context.stack, { name: `${label} owner` });
  const apiKey = (await owner.client.post('/api-keys', { name: `${label} key` })).body.apiKey as string;
  const agent = await createAgent({ baseUrl: context.stack.baseUrl, apiKey }, { name: `${label}-agent`, model: TEST_MODEL, include_base_tools: false });
  return { owner, apiKey, agent };
}

const send = (baseUrl: string, key: string, agentId: string, text = 'hello') =>
  v1(baseUrl, key, 'POST', `/agents/${agentId}/messages/async`, { messages: [{ role: 'user', content: text }] });

beforeAll(async () => {
  context = await startAgentTestContext({ models: [MODEL] });
  platformAdmin = await signUp(context.stack, { name: 'Platform admin' });
  // ENGRAM_ADMIN_EMAILS makes an existing account a platform admin when an API process starts.
  // A loaded CI machine compiles the API's sources slowly on a cold start.
  secondApi = await startApiProcess({ ...context.stack.workerEnv, ENGRAM_ADMIN_EMAILS: `someone@example.com, ${platformAdmin.email.toUpperCase()}` }, 0, 240_000);
  secondApiUrl = secondApi.baseUrl;
}, 300_000);

afterAll(async () => {
  await secondApi?.stop();
  await context?.stop();
});

describe('platform admin permission', () => {
  it('comes from ENGRAM_ADMIN_EMAILS and opens the admin area', async () => {
    const user = await User.query(context.stack.db).findById(platformAdmin.userId);
    expect(user?.permissions).toContain('platform_admin');
    const listed = await platformAdmin.client.get(`/admin/organizations?search=${encodeURIComponent('Platform admin')}`);
    expect(listed.status).toBe(200);
    const self = await platformAdmin.client.get(`/admin/organizations/${platformAdmin.organizationId}`);
    expect(self.body).toMatchObject({ id: platformAdmin.organizationId, lettaAgentsId: platformAdmin.organizationId, bannedAt: null });
  });

  it('is refused to everyone else: an organization admin gets 403 on every admin route, console and /v1', async () => {
    const orgAdmin = await signUp(context.stack, { name: 'Org admin' });
    const apiKey = (await orgAdmin.client.post('/api-keys', { name: 'k' })).body.apiKey as string;
    const adminRoutes = walkableRoutes(context.stack.app).filter((route) => route.rule.kind === 'platform_admin');
    expect(adminRoutes.map((route) => `${route.method} ${route.url}`)).toEqual(
      expect.arrayContaining([
        'POST /api/admin/organizations/:organizationId/ban',
        'PATCH /api/admin/models/inference/:modelId',
        'PUT /api/admin/organizations/:organizationId/billing-settings',
        'PUT /api/admin/organizations/:organizationId/billing-method',
        'POST /api/admin/organizations/:organizationId/billing-method/refresh',
        'GET /api/admin/referral-stats',
        'GET /v1/admin/users/',
        'GET /v1/admin/orgs/',
      ]),
    );
    const answers = await Promise.all(
      adminRoutes.map((route) => callRoute(context.stack.baseUrl, route, fillPath(route.url, { organizationId: orgAdmin.organizationId }), { apiKey, jar: orgAdmin.client.jar })),
    );
    expect(answers.filter((answer) => answer.status !== 403).map((answer) => `${answer.route.method} ${answer.path} → ${answer.status}`)).toEqual([]);
  });
});

describe('organizations and users', () => {
  it('finds an organization, its members and statistics; adds and removes a user; renames a user', async () => {
    const { owner } = await customer('Findable');
    const found = await platformAdmin.client.get('/admin/organizations?search=findable');
    expect(found.body.organizations.map((organization: { id: string }) => organization.id)).toContain(owner.organizationId);
    const members = await platformAdmin.client.get(`/admin/organizations/${owner.organizationId}/users`);
    expect(members.body.users).toEqual([expect.objectContaining({ id: owner.userId, email: owner.email, role: 'admin' })]);
    const statistics = await platformAdmin.client.get(`/admin/organizations/${owner.organizationId}/statistics`);
    expect(statistics.body).toMatchObject({ members: 1, agents: 1, apiKeys: 1, activeRuns: 0 });

    expect((await platformAdmin.client.post(`/admin/organizations/${owner.organizationId}/add-user`, { userId: platformAdmin.userId, role: 'analyst' })).status).toBe(200);
    const again = await platformAdmin.client.post(`/admin/organizations/${owner.organizationId}/add-user`, { userId: platformAdmin.userId });
    expect(again.body.errorCode).toBe('userAlreadyInOrganization');
    expect((await platformAdmin.client.get(`/admin/users/${platformAdmin.userId}/organizations`)).body.organizations.map((o: { id: string }) => o.id)).toContain(owner.organizationId);
    expect((await platformAdmin.client.post(`/admin/organizations/${owner.organizationId}/remove-user`, { userId: platformAdmin.userId })).status).toBe(200);

    const renamed = await platformAdmin.client.put(`/admin/users/${owner.userId}/name`, { name: 'Renamed by admin' });
    expect(renamed.body).toMatchObject({ id: owner.userId, name: 'Renamed by admin' });
    const users = await platformAdmin.client.get(`/admin/users?search=${encodeURIComponent(owner.email)}`);
    expect(users.body.users).toEqual([expect.objectContaining({ id: owner.userId })]);
    const hubspot = await platformAdmin.client.post(`/admin/users/${owner.userId}/sync-hubspot`);
    expect(hubspot.status).toBe(503);
    expect(hubspot.body.message).toMatch(/No CRM \(HubSpot\) is configured/);

    const orgs = await v1(context.stack.baseUrl, context.stack.apiKey, 'GET', '/admin/orgs/');
    expect(orgs.status).toBe(403);
  });
});

describe('ban', () => {
  it("refuses the organization's API keys, sessions, OAuth and client-side tokens on every route, cancels its runs, and unban restores it", async () => {
    const { owner, apiKey, agent } = await customer('Banned');
    const oauthApp = await createTestOAuthApp(context.stack, { grantTypes: ['device_code', 'refresh_token'] });
    const oauth = await connectThroughDevice(context.stack, owner, oauthApp, 'read_agent');
    const clientToken = await v1(context.stack.baseUrl, apiKey, 'POST', '/client-side-access-tokens', {
      hostname: APP_ORIGIN,
      policy: [{ id: agent.id, type: 'agent', access: ['read_agent'] }],
    });
    expect(clientToken.status).toBe(200);
    context.model.enqueue({ type: 'hang' });
    const inFlight = await send(context.stack.baseUrl, apiKey, agent.id, 'think forever');
    expect(inFlight.status).toBe(200);
    await until(() => context.model.requests.length > 0);

    const banned = await platformAdmin.client.post(`/admin/organizations/${owner.organizationId}/ban`);
    expect(banned.status).toBe(200);
    expect(banned.body.bannedAt).not.toBeNull();
    expect(banned.body.cancelledRuns).toBe(1);

    const refusals = [
      await v1(context.stack.baseUrl, apiKey, 'GET', `/agents/${agent.id}`),
      await v1(context.stack.baseUrl, apiKey, 'GET', '/health/'),
      await send(context.stack.baseUrl, apiKey, agent.id),
      await v1(secondApiUrl, apiKey, 'GET', '/agents/'),
      await v1(context.stack.baseUrl, oauth.accessToken, 'GET', `/agents/${agent.id}`),
      await v1(context.stack.baseUrl, clientToken.body.token, 'GET', `/agents/${agent.id}`, undefined, { origin: APP_ORIGIN }),
    ];
    for (const refusal of refusals) expect(refusal).toMatchObject({ status: 403, body: { detail: BANNED_ORGANIZATION_MESSAGE } });
    for (const path of ['/user/self', '/organizations/self', '/projects', '/api-keys']) {
      const answer = await owner.client.get(path);
      expect(answer.status, path).toBe(403);
      expect(answer.body.message).toBe(BANNED_ORGANIZATION_MESSAGE);
    }
    const consoleOnV1 = await fetch(`${context.stack.baseUrl}/v1/agents/`, { headers: { cookie: owner.client.jar.header()!, 'x-engram-console': '1' } });
    expect(consoleOnV1.status).toBe(403);

    const run = await until(() => Run.query(context.stack.db).findById(inFlight.body.id), (read) => read?.status === 'cancelled');
    expect(run).toMatchObject({ status: 'cancelled', stopReason: 'cancelled' });

    const unbanned = await platformAdmin.client.post(`/admin/organizations/${owner.organizationId}/unban`);
    expect(unbanned.body.bannedAt).toBeNull();
    expect((await v1(context.stack.baseUrl, apiKey, 'GET', `/agents/${agent.id}`)).status).toBe(200);
    expect((await v1(context.stack.baseUrl, oauth.accessToken, 'GET', `/agents/${agent.id}`)).status).toBe(200);
    expect((await v1(context.stack.baseUrl, clientToken.body.token, 'GET', `/agents/${agent.id}`, undefined, { origin: APP_ORIGIN })).status).toBe(200);
    expect((await owner.client.get('/user/self')).status).toBe(200);
  });
});

describe('models', () => {
  it('refuses new runs on a disabled model with a clear message, and takes them again once enabled', async () => {
    const { apiKey, agent } = await customer('Disabled model');
    const registered = await platformAdmin.client.post('/admin/models/inference', { modelName: TEST_MODEL, modelEndpoint: 'https://api.openai.com/v1' });
    expect(registered.status).toBe(201);
    expect(registered.body).toMatchObject({ name: TEST_MODEL, brand: 'openai', disabledAt: null });
    const duplicate = await platformAdmin.client.post('/admin/models/inference', { modelName: TEST_MODEL, modelEndpoint: 'x' });
    expect(duplicate.status).toBe(409);
    try {
      const disabled = await platformAdmin.client.patch(`/admin/models/inference/${registered.body.id}`, { disabled: true });
      expect(disabled.body.disabledAt).not.toBeNull();
      const refused = await send(context.stack.baseUrl, apiKey, agent.id);
      expect(refused.status).toBe(400);
      expect(refused.body.detail).toBe(`The model ${TEST_MODEL} has been disabled by the platform administrators; choose another model for this agent.`);

      await platformAdmin.client.patch(`/admin/models/inference/${registered.body.id}`, { disabled: false });
      context.model.enqueue({ type: 'text', text: 'back' });
      expect((await send(context.stack.baseUrl, apiKey, agent.id)).status).toBe(200);

      const costs = await platformAdmin.client.patch(`/admin/models/inference/${registered.body.id}/step-costs`, {
        version: '1',
        data: [{ maxContextWindowSize: 128000, cost: 4 }, { maxContextWindowSize: 8000, cost: 1 }],
      });
      expect(costs.body.data).toEqual([{ maxContextWindowSize: 8000, cost: 1 }, { maxContextWindowSize: 128000, cost: 4 }]);
      expect((await platformAdmin.client.get(`/admin/models/inference/${registered.body.id}/step-costs`)).body).toEqual(costs.body);
    } finally {
      await platformAdmin.client.delete(`/admin/models/inference/${registered.body.id}`);
    }
  });

  it('answers 429 with Retry-After once an organization spends its per-model rate limit, counted across two API processes', { timeout: 120_000 }, async () => {
    const { owner, apiKey, agent } = await customer('Rate limited');
    const registered = await platformAdmin.client.post('/admin/models/inference', { modelName: TEST_MODEL, modelEndpoint: 'https://api.openai.com/v1' });
    try {
      const limit = await platformAdmin.client.put(`/admin/organizations/${owner.organizationId}/rate-limits/${encodeURIComponent(TEST_MODEL)}`, {
        requestsPerMinute: 3,
        tokensPerMinute: 1_000_000,
      });
      expect(limit.body).toEqual({ model: TEST_MODEL, requestsPerMinute: 3, tokensPerMinute: 1_000_000 });
      const listed = await platformAdmin.client.get(`/admin/organizations/${owner.organizationId}/rate-limits`);
      expect(listed.body.rateLimits).toContainEqual({ model: TEST_MODEL, requestsPerMinute: 3, tokensPerMinute: 1_000_000, isOverride: true });

      context.model.onRequest(() => ({ type: 'text', text: 'ok' }));
      const admitted = [
        await send(context.stack.baseUrl, apiKey, agent.id, 'one'),
        await send(secondApiUrl, apiKey, agent.id, 'two'),
        await send(context.stack.baseUrl, apiKey, agent.id, 'three'),
      ];
      expect(admitted.map((answer) => answer.status)).toEqual([200, 200, 200]);
      for (const baseUrl of [secondApiUrl, context.stack.baseUrl]) {
        const limited = await send(baseUrl, apiKey, agent.id, 'four');
        expect(limited.status).toBe(429);
        expect(limited.body.detail).toMatch(new RegExp(`^Rate limit reached for ${TEST_MODEL}: 3 requests per minute`));
        const retryAfter = Number(limited.headers.get('retry-after'));
        expect(retryAfter).toBeGreaterThan(0);
        expect(retryAfter).toBeLessThanOrEqual(60);
      }
      // Another organization keeps the model's default budget.
      const other = await customer('Unlimited');
      expect((await send(context.stack.baseUrl, other.apiKey, other.agent.id)).status).toBe(200);

      expect((await platformAdmin.client.delete(`/admin/organizations/${owner.organizationId}/rate-limits/${encodeURIComponent(TEST_MODEL)}`)).status).toBe(200);
      expect((await send(secondApiUrl, apiKey, agent.id, 'after reset')).status).toBe(200);
    } finally {
      await platformAdmin.client.delete(`/admin/models/inference/${registered.body.id}`);
    }
  });
});

describe('model calls of a run', () => {
  it('counts each model call, not each send: a call past the limit is held back until the window has room, never sent to the provider', { timeout: 120_000 }, async () => {
    const { owner, apiKey } = await customer('Many calls');
    const agent = await createAgent({ baseUrl: context.stack.baseUrl, apiKey }, { name: 'many-calls-agent', model: TEST_MODEL });
    const registered = await platformAdmin.client.post('/admin/models/inference', { modelName: TEST_MODEL, modelEndpoint: 'https://api.openai.com/v1' });
    try {
      await platformAdmin.client.put(`/admin/organizations/${owner.organizationId}/rate-limits/${encodeURIComponent(TEST_MODEL)}`, {
        requestsPerMinute: 2,
        tokensPerMinute: 1_000_000,
      });
      // Runs of the tests before may still be calling the model server: these replies are for this agent's run alone.
      const marker = `search twice ${randomBytes(4).toString('hex')}`;
      const ofThisRun = (request: ChatRequest) => JSON.stringify(request.messages).includes(marker);
      const callsOfThisRun = () => context.model.requests.filter(ofThisRun).length;
      context.model.enqueue(
        { type: 'tool_calls', calls: [{ name: 'conversation_search', arguments: { query: 'first' } }], match: ofThisRun },
        { type: 'tool_calls', calls: [{ name: 'conversation_search', arguments: { query: 'second' } }], match: ofThisRun },
        { type: 'text', text: 'never reached', match: ofThisRun },
      );
      // The send reserves the first call; the second step's call takes the last of the two.
      const sent = await send(context.stack.baseUrl, apiKey, agent.id, marker);
      expect(sent.status).toBe(200);

      const workflow = context.stack.temporal.workflow.getHandle(sent.body.id);
      const heldCall = async () => {
        const { raw } = await workflow.describe();
        return raw.pendingActivities?.find((activity) => activity.activityType?.name === 'runStep' && activity.lastFailure)?.lastFailure?.message ?? '';
      };
      const limitReached = new RegExp(`^Rate limit reached for ${TEST_MODEL}: 2 requests per minute\\. Retry in \\d+ s\\.$`);
      await expect.poll(heldCall, { timeout: 60_000, interval: 200 }).toMatch(limitReached);
      expect(callsOfThisRun()).toBe(2);
      expect((await Run.query(context.stack.db).findById(sent.body.id))?.status).toBe('running');

      // The budget is spent for new sends too, and the run can still be stopped while it waits.
      const refused = await send(context.stack.baseUrl, apiKey, agent.id, 'and again');
      expect(refused.status).toBe(429);
      expect(refused.body.detail).toMatch(limitReached);
      expect((await v1(context.stack.baseUrl, apiKey, 'POST', `/agents/${agent.id}/messages/cancel`, {})).status).toBe(200);
      await expect
        .poll(async () => (await Run.query(context.stack.db).findById(sent.body.id))?.status, { timeout: 30_000, interval: 100 })
        .toBe('cancelled');
      expect(callsOfThisRun()).toBe(2);
    } finally {
      await platformAdmin.client.delete(`/admin/models/inference/${registered.body.id}`);
    }
  });
});

describe('OAuth apps', () => {
  it('answers clientIdAlreadyExists for a taken client id, and a regenerated secret makes the old one fail', async () => {
    const body = { name: 'Admin app', grantTypes: ['device_code'], clientId: `admin-app-${Date.now()}` };
    const created = await platformAdmin.client.post('/admin/oauth-apps', body);
    expect(created.status).toBe(201);
    expect(created.body.clientSecret).toEqual(expect.any(String));
    const taken = await platformAdmin.client.post('/admin/oauth-apps', body);
    expect(taken).toMatchObject({ status: 400, body: { errorCode: 'clientIdAlreadyExists' } });

    const old = { clientId: created.body.clientId, clientSecret: created.body.clientSecret };
    expect((await postForm(context.stack, '/oauth/device/code', old, { scope: 'read_agent' })).status).toBe(200);
    const regenerated = await platformAdmin.client.post(`/admin/oauth-apps/${created.body.id}/regenerate-secret`);
    expect(regenerated.body.clientSecret).not.toBe(old.clientSecret);
    const refused = await postForm(context.stack, '/oauth/device/code', old, { scope: 'read_agent' });
    expect(refused).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
    const renewed = { clientId: created.body.clientId, clientSecret: regenerated.body.clientSecret };
    expect((await postForm(context.stack, '/oauth/device/code', renewed, { scope: 'read_agent' })).status).toBe(200);

    const updated = await platformAdmin.client.put(`/admin/oauth-apps/${created.body.id}`, { ...body, name: 'Renamed app', clientId: undefined });
    expect(updated.body).toMatchObject({ name: 'Renamed app', clientSecret: regenerated.body.clientSecret });
    expect((await platformAdmin.client.delete(`/admin/oauth-apps/${created.body.id}`)).status).toBe(200);
    expect((await postForm(context.stack, '/oauth/device/code', renewed, { scope: 'read_agent' })).status).toBe(401);
  });
});

describe('platform lists', () => {
  it('keeps whitelisted emails, pages content violations 20 at a time, and routes SSO emails', async () => {
    const email = `white-${Date.now()}@example.com`;
    const added = await platformAdmin.client.post('/admin/whitelisted-emails', { email });
    expect(added.status).toBe(201);
    expect((await platformAdmin.client.get(`/admin/whitelisted-emails?search=${email}`)).body.emails).toEqual([expect.objectContaining({ email })]);
    expect((await platformAdmin.client.delete(`/admin/whitelisted-emails/${added.body.id}`)).status).toBe(200);
    await platformAdmin.client.post('/admin/whitelisted-emails', { email });
    expect((await platformAdmin.client.post('/admin/flush-whitelists')).body.removed).toBeGreaterThanOrEqual(1);
    expect((await platformAdmin.client.get('/admin/whitelisted-emails')).body.emails).toEqual([]);

    const { owner } = await customer('Flagged');
    for (let index = 0; index < 21; index++) {
      await context.stack.services.contentViolations.flag(owner.organizationId, { reasons: ['spam'], content: `flagged ${index}` });
    }
    const first = await platformAdmin.client.get('/admin/content-violations');
    expect(first.body.violations).toHaveLength(20);
    expect(first.body.hasNextPage).toBe(true);
    expect(first.body.violations[0]).toMatchObject({ organizationId: owner.organizationId, reasons: ['spam'], content: 'flagged 20' });
    expect((await ContentViolation.query(context.stack.db).where({ organizationId: owner.organizationId })).length).toBe(21);

    const domain = `sso-${Date.now()}.example.com`;
    const sso = await platformAdmin.client.post(`/admin/organizations/${owner.organizationId}/sso-configurations`, { domain, workOSOrganizationId: 'org_workos_1' });
    expect(sso.status).toBe(201);
    const anonymous = await fetch(`${context.stack.baseUrl}/api/verify-sso-email`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: `someone@${domain}` }),
    });
    expect(await anonymous.json()).toEqual({ domain, workOSOrganizationId: 'org_workos_1' });
    const unknown = await owner.client.post('/verify-sso-email', { email: 'someone@nowhere.example.com' });
    expect(unknown).toMatchObject({ status: 400, body: { errorCode: 'invalidSSO' } });
  });
});

describe('credits and gift codes', () => {
  it('adds and removes credits with a ledger entry each, and answers giftCodeAlreadyExists; a redemption is listed with its organization', async () => {
    const { owner } = await customer('Credited');
    const before = (await platformAdmin.client.get(`/admin/organizations/${owner.organizationId}/credits`)).body.credits as number;
    expect((await platformAdmin.client.post(`/admin/organizations/${owner.organizationId}/add-credits`, { amount: 500, note: 'goodwill' })).body.credits).toBe(before + 500);
    expect((await platformAdmin.client.post(`/admin/organizations/${owner.organizationId}/remove-credits`, { amount: 200 })).body.credits).toBe(before + 300);
    expect((await platformAdmin.client.post(`/admin/organizations/${owner.organizationId}/add-credits`, { amount: 0 })).status).toBe(400);
    const ledger = await platformAdmin.client.get(`/admin/organizations/${owner.organizationId}/credit-transactions`);
    expect(ledger.body.transactions.slice(0, 2)).toEqual([
      expect.objectContaining({ type: 'subtraction', amount: 200, source: 'admin' }),
      expect.objectContaining({ type: 'addition', amount: 500, note: 'goodwill', source: 'admin' }),
    ]);

    const code = `ADMIN${randomBytes(3).toString('hex').toUpperCase()}`;
    const giftCode = { name: 'Launch', code, description: 'Launch week credits', redemptionAmount: 1000, maxUses: 10 };
    const created = await platformAdmin.client.post('/admin/gift-codes', giftCode);
    expect(created.status).toBe(201);
    expect((await platformAdmin.client.post('/admin/gift-codes', { ...giftCode, code: code.toLowerCase() })).body.errorCode).toBe('giftCodeAlreadyExists');
    expect((await owner.client.post('/gift-codes/redeem', { code })).status).toBe(200);
    const redemptions = await platformAdmin.client.get(`/admin/gift-codes/${created.body.id}/redemptions`);
    expect(redemptions.body.redemptions).toEqual([expect.objectContaining({ organizationId: owner.organizationId, organizationName: expect.any(String), code, amount: 1000 })]);
    expect((await platformAdmin.client.post(`/admin/gift-codes/${created.body.id}/disable`)).body.disabledAt).not.toBeNull();
    expect((await platformAdmin.client.put(`/admin/gift-codes/${created.body.id}`, { ...giftCode, name: 'Launch (edited)' })).body.name).toBe('Launch (edited)');
    expect((await platformAdmin.client.delete(`/admin/gift-codes/${created.body.id}`)).status).toBe(200);
  });
});

describe('billing settings and method', () => {
  it("sets an organization's tier and pricing model: cpm lets its runs go on below a zero balance while billing is on", async () => {
    const { owner } = await customer('Enterprise deal');
    const settings = `/admin/organizations/${owner.organizationId}/billing-settings`;
    expect((await platformAdmin.client.get(settings)).body).toEqual({ billingTier: 'free', pricingModel: 'prepay' });
    expect((await platformAdmin.client.put(settings, { billingTier: 'gold', pricingModel: 'prepay' })).status).toBe(400);
    expect((await platformAdmin.client.put(settings, { billingTier: 'enterprise' })).status).toBe(400);
    expect((await platformAdmin.client.get(settings)).body).toEqual({ billingTier: 'free', pricingModel: 'prepay' });

    // Billing on, as the hosted product runs: with no credits left a prepaid organization's run is refused before any model call.
    const billingOn = { quotas: createQuotaService({ db: context.stack.db, mode: 'on' }) };
    const balance = (await platformAdmin.client.get(`/admin/organizations/${owner.organizationId}/credits`)).body.credits as number;
    if (balance > 0) await platformAdmin.client.post(`/admin/organizations/${owner.organizationId}/remove-credits`, { amount: balance });
    expect((await platformAdmin.client.get(`/admin/organizations/${owner.organizationId}/credits`)).body.credits).toBe(0);
    const llmConfig = { model: MODEL, model_endpoint_type: 'openai', handle: TEST_MODEL, context_window: 8000 };
    await expect(billingOn.quotas.admitRun(owner.organizationId, llmConfig)).rejects.toThrow(/^Not enough credits/);

    const updated = await platformAdmin.client.put(settings, { billingTier: 'enterprise', pricingModel: 'cpm' });
    expect(updated.body).toEqual({ billingTier: 'enterprise', pricingModel: 'cpm' });
    expect((await owner.client.get('/organizations/self/billing-info')).body.billingTier).toBe('enterprise');
    await expect(billingOn.quotas.admitRun(owner.organizationId, llmConfig)).resolves.toBeUndefined();
  });

  it('switches the billing method, and refreshes it from the payment provider when one is configured (503 while none is)', async () => {
    const { owner } = await customer('Invoiced');
    const method = `/admin/organizations/${owner.organizationId}/billing-method`;
    expect((await platformAdmin.client.get(method)).body).toEqual({ billingMethod: 'stripe_managed', stripeCustomerId: null, defaultPaymentMethodId: null, refreshedAt: null });
    const unconfigured = await platformAdmin.client.post(`${method}/refresh`);
    expect(unconfigured).toMatchObject({ status: 503, body: { message: NO_PAYMENT_PROVIDER_MESSAGE } });

    expect((await platformAdmin.client.put(method, { billingMethod: 'invoice' })).status).toBe(400);
    expect((await platformAdmin.client.put(method, { billingMethod: 'enterprise' })).body.billingMethod).toBe('enterprise');
    const refreshed = await platformAdmin.client.post(`${method}/refresh`);
    expect(refreshed.status).toBe(200);
    expect(refreshed.body).toMatchObject({ billingMethod: 'enterprise', refreshedAt: expect.any(String) });
    expect((await platformAdmin.client.put(method, { billingMethod: 'stripe_managed' })).body.billingMethod).toBe('stripe_managed');

    // With a provider: the organization's default card is read from it and kept.
    const asked: string[] = [];
    const withProvider = createAdminBillingService({
      db: context.stack.db,
      paymentAccounts: {
        async describeCustomer(customerId) {
          asked.push(customerId);
          return { defaultPaymentMethodId: 'pm_card_visa' };
        },
      },
    });
    await expect(withProvider.refreshBillingMethod(owner.organizationId)).rejects.toThrow(/never saved a card/);
    await BillingAccount.query(context.stack.db).forOrg(owner.organizationId).patch({ stripeCustomerId: `cus_${randomBytes(6).toString('hex')}` });
    const fromProvider = await withProvider.refreshBillingMethod(owner.organizationId);
    expect(fromProvider).toMatchObject({ billingMethod: 'stripe_managed', defaultPaymentMethodId: 'pm_card_visa', refreshedAt: expect.any(Date) });
    expect(asked).toEqual([fromProvider.stripeCustomerId]);
    expect((await platformAdmin.client.get(method)).body.defaultPaymentMethodId).toBe('pm_card_visa');
  });

  it("lists the referral programme's totals and the organizations whose codes brought the most", async () => {
    const referrer = await customer('Referrer');
    const referred = [await customer('Referred one'), await customer('Referred two')];
    const code = await context.stack.services.referrals.referralCode(referrer.owner.organizationId);
    for (const { owner } of referred) {
      await Referral.query(context.stack.db).insert({
        id: newReferralId(),
        referrerOrganizationId: referrer.owner.organizationId,
        referredOrganizationId: owner.organizationId,
        code,
        referrerReward: 250,
        referredReward: 100,
      } as Referral);
    }
    const stats = await platformAdmin.client.get('/admin/referral-stats?top=100');
    expect(stats.status).toBe(200);
    expect(stats.body.totalReferrals).toBeGreaterThanOrEqual(2);
    expect(stats.body.totalReferrerRewards).toBeGreaterThanOrEqual(500);
    expect(stats.body.topReferrers).toContainEqual({
      organizationId: referrer.owner.organizationId,
      organizationName: expect.any(String),
      code,
      usageCount: 2,
      totalRewardsEarned: 500,
    });
    expect((await platformAdmin.client.get('/admin/referral-stats?top=0')).status).toBe(400);
  });
});

describe('cloud access code', () => {
  it('takes any code while the platform is open (no ENGRAM_CLOUD_ACCESS_CODES), and every account has access', async () => {
    const { owner } = await customer('Open platform');
    expect((await owner.client.get('/user/self')).body.hasCloudAccess).toBe(true);
    expect(await owner.client.post('/cloud-access-code', { code: 'anything' })).toMatchObject({ status: 200, body: { hasCloudAccess: true } });
    expect((await owner.client.post('/cloud-access-code', { code: '' })).status).toBe(400);
  });
});

describe('the rest of the admin list', () => {
  it("keeps an organization's verified domains and SSO configurations", async () => {
    const { owner } = await customer('Domains');
    const domains = `/admin/organizations/${owner.organizationId}/verified-domains`;
    const domain = `verified-${randomBytes(4).toString('hex')}.example.com`;
    const added = await platformAdmin.client.post(domains, { domain: domain.toUpperCase() });
    expect(added).toMatchObject({ status: 201, body: { domain } });
    expect((await platformAdmin.client.post(domains, { domain })).status).toBe(409);
    expect((await platformAdmin.client.post(domains, { domain: 'not a domain' })).status).toBe(400);
    expect((await platformAdmin.client.get(domains)).body.domains).toEqual([{ id: added.body.id, domain }]);
    expect((await platformAdmin.client.delete(`${domains}/${added.body.id}`)).status).toBe(200);
    expect((await platformAdmin.client.delete(`${domains}/${added.body.id}`)).status).toBe(404);
    expect((await platformAdmin.client.get(domains)).body.domains).toEqual([]);

    const configurations = `/admin/organizations/${owner.organizationId}/sso-configurations`;
    const created = await platformAdmin.client.post(configurations, { domain, workOSOrganizationId: 'org_workos_2' });
    expect((await platformAdmin.client.get(configurations)).body.configurations).toEqual([
      { id: created.body.id, domain, workOSOrganizationId: 'org_workos_2', createdAt: expect.any(String) },
    ]);
    expect((await owner.client.post('/verify-sso-email', { email: `someone@${domain}` })).status).toBe(200);
    expect((await platformAdmin.client.delete(`${configurations}/${created.body.id}`)).status).toBe(200);
    expect((await owner.client.post('/verify-sso-email', { email: `someone@${domain}` })).body.errorCode).toBe('invalidSSO');
  });

  it('ranks organizations by usage, and deletes a user and an organization', async () => {
    const { owner, apiKey, agent } = await customer('Heavy user');
    const marker = `heavy ${randomBytes(4).toString('hex')}`;
    context.model.enqueue({ type: 'text', text: 'done', usage: { prompt_tokens: 40_000_000, completion_tokens: 10_000_000 }, match: (request) => JSON.stringify(request.messages).includes(marker) });
    const sent = await send(context.stack.baseUrl, apiKey, agent.id, marker);
    await expect.poll(async () => (await Run.query(context.stack.db).findById(sent.body.id))?.status, { timeout: 30_000, interval: 100 }).toBe('completed');
    const leaderboard = await platformAdmin.client.get('/admin/usage-leaderboard?days=1&limit=100');
    expect(leaderboard.body.leaderboard).toContainEqual({ organizationId: owner.organizationId, organizationName: expect.any(String), runs: 1, steps: 1, totalTokens: 50_000_000 });

    expect((await platformAdmin.client.get(`/admin/users/${owner.userId}`)).body).toMatchObject({ id: owner.userId, email: owner.email });
    const leaving = await signUp(context.stack, { name: 'Leaving' });
    expect((await platformAdmin.client.delete(`/admin/users/${leaving.userId}`)).status).toBe(200);
    expect((await platformAdmin.client.get(`/admin/users/${leaving.userId}`)).status).toBe(404);
    expect((await leaving.client.get('/user/self')).status).toBe(401);

    expect((await platformAdmin.client.delete(`/admin/organizations/${owner.organizationId}`)).status).toBe(200);
    expect((await platformAdmin.client.get(`/admin/organizations/${owner.organizationId}`)).status).toBe(404);
    expect((await v1(context.stack.baseUrl, apiKey, 'GET', `/agents/${agent.id}`)).status).toBe(401);
  });

  it('keeps the embedding model registry, and lists, reads, disables and enables gift codes', async () => {
    const name = `openai/text-embedding-admin-${randomBytes(3).toString('hex')}`;
    const created = await platformAdmin.client.post('/admin/models/embedding', { modelName: name, modelEndpoint: 'https://api.openai.com/v1' });
    expect(created).toMatchObject({ status: 201, body: { name, brand: 'openai', disabledAt: null } });
    expect((await platformAdmin.client.get('/admin/models/embedding?limit=100')).body.models.map((model: { name: string }) => model.name)).toContain(name);
    const patched = await platformAdmin.client.patch(`/admin/models/embedding/${created.body.id}`, { isRecommended: true, defaultContextWindow: 8191 });
    expect(patched.body).toMatchObject({ isRecommended: true, defaultContextWindow: 8191 });
    expect((await platformAdmin.client.get(`/admin/models/embedding/${created.body.id}`)).body).toEqual(patched.body);
    expect((await platformAdmin.client.get(`/admin/models/inference/${created.body.id}`)).status).toBe(404);
    expect((await platformAdmin.client.delete(`/admin/models/embedding/${created.body.id}`)).status).toBe(200);
    expect((await platformAdmin.client.get(`/admin/models/embedding/${created.body.id}`)).status).toBe(404);

    const code = `LIST${randomBytes(3).toString('hex').toUpperCase()}`;
    const giftCode = await platformAdmin.client.post('/admin/gift-codes', { name: 'Listed', code, description: 'Listed code', redemptionAmount: 10 });
    expect((await platformAdmin.client.get('/admin/gift-codes')).body.giftCodes.map((listed: { code: string }) => listed.code)).toContain(code);
    expect((await platformAdmin.client.get(`/admin/gift-codes/${giftCode.body.id}`)).body).toEqual(giftCode.body);
    expect((await platformAdmin.client.post(`/admin/gift-codes/${giftCode.body.id}/disable`)).body.disabledAt).toEqual(expect.any(String));
    const { owner } = await customer('Late redeemer');
    expect((await owner.client.post('/gift-codes/redeem', { code })).body.errorCode).toBe('giftCodeDisabled');
    expect((await platformAdmin.client.post(`/admin/gift-codes/${giftCode.body.id}/enable`)).body.disabledAt).toBeNull();
    expect((await owner.client.post('/gift-codes/redeem', { code })).status).toBe(200);
    await platformAdmin.client.delete(`/admin/gift-codes/${giftCode.body.id}`);
  });
});
