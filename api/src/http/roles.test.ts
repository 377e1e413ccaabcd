import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Organization } from '@engram/db';
import { startScriptedModelServer, startTestStack, type ScriptedModelServer, type TestStack } from '@engram/testing';
import { inviteMember, signUp, type ConsoleUser } from '../routes/console/console-test-support.js';
import { callRoute, fillPath, walkableRoutes } from './route-walk-test-support.js';

let stack: TestStack;
let model: ScriptedModelServer;
let admin: ConsoleUser;
let adminKey: string;

beforeAll(async () => {
  model = await startScriptedModelServer({ models: ['gpt-4o-mini'] });
  stack = await startTestStack({
    baseProviders: [{ name: 'openai', providerType: 'openai', apiKey: 'test', baseUrl: model.url }],
    inProcessWorker: false,
  });
  admin = await signUp(stack, { name: 'Admin' });
  // Room for the members these tests invite (the free tier seats four).
  await Organization.query(stack.db).findById(admin.organizationId).patch({ billingTier: 'scale' });
  adminKey = (await admin.client.post('/api-keys', { name: 'admin key' })).body.apiKey;
});

afterAll(async () => {
  await stack?.stop();
  await model?.close();
});

type JsonResponse = { status: number; body: any };

async function v1(key: string, method: string, path: string, body?: unknown): Promise<JsonResponse> {
  const response = await fetch(`${stack.baseUrl}/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

const createAgent = async (key: string) => v1(key, 'POST', '/agents/', { model: 'openai/gpt-4o-mini' });

/** A key acting as the member: issued directly, since some roles may not create keys themselves. */
const keyFor = async (member: ConsoleUser) =>
  (await stack.services.apiKeys.issue({ organizationId: member.organizationId, userId: member.userId, name: 'member key' })).key;

describe('analyst', () => {
  it('reads and messages agents, but cannot create, change or delete them', async () => {
    const agent = (await createAgent(adminKey)).body;
    const analyst = await inviteMember(stack, admin, 'analyst');
    const key = await keyFor(analyst);

    expect((await v1(key, 'GET', '/agents/')).status).toBe(200);
    expect((await v1(key, 'GET', `/agents/${agent.id}`)).body.id).toBe(agent.id);
    expect((await v1(key, 'GET', `/agents/${agent.id}/messages`)).status).toBe(200);
    expect((await v1(key, 'GET', `/agents/${agent.id}/core-memory`)).status).toBe(200);

    const sent = await v1(key, 'POST', `/agents/${agent.id}/messages/async`, { messages: [{ role: 'user', content: 'hello' }] });
    expect(sent.status).toBe(200);
    expect(sent.body.id).toMatch(/^run-/);

    const created = await createAgent(key);
    expect(created.status).toBe(403);
    expect(created.body).toEqual({ detail: 'You do not have permission to do this (needs create_agents)' });
    expect((await v1(key, 'PATCH', `/agents/${agent.id}`, { name: 'renamed' })).status).toBe(403);
    expect((await v1(key, 'DELETE', `/agents/${agent.id}`)).status).toBe(403);
    expect((await v1(key, 'PATCH', `/agents/${agent.id}/tools/detach/${agent.tools[0].id}`)).status).toBe(403);
    expect((await v1(adminKey, 'GET', `/agents/${agent.id}`)).body.name).toBe(agent.name);
  });

  it('reads groups, but cannot create, change, delete them or share blocks through them', async () => {
    const agent = (await createAgent(adminKey)).body;
    const group = (await v1(adminKey, 'POST', '/groups/', { agent_ids: [agent.id], description: 'the desk' })).body;
    const block = (await v1(adminKey, 'POST', '/blocks/', { label: 'desk', value: 'shared' })).body;
    const key = await keyFor(await inviteMember(stack, admin, 'analyst'));

    expect((await v1(key, 'GET', '/groups/')).status).toBe(200);
    expect((await v1(key, 'GET', `/groups/${group.id}`)).body.id).toBe(group.id);
    expect((await v1(key, 'GET', `/groups/${group.id}/messages`)).status).toBe(200);
    expect((await v1(key, 'GET', `/agents/${agent.id}/groups`)).body.map((found: { id: string }) => found.id)).toEqual([group.id]);
    expect((await v1(key, 'POST', '/groups/', { agent_ids: [agent.id], description: 'mine' })).status).toBe(403);
    expect((await v1(key, 'PATCH', `/groups/${group.id}`, { description: 'renamed' })).status).toBe(403);
    expect((await v1(key, 'PATCH', `/groups/${group.id}/blocks/attach/${block.id}`)).status).toBe(403);
    expect((await v1(key, 'PATCH', `/groups/${group.id}/reset-messages`)).status).toBe(403);
    expect((await v1(key, 'DELETE', `/groups/${group.id}`)).status).toBe(403);
    expect((await v1(adminKey, 'GET', `/groups/${group.id}`)).body).toMatchObject({ description: 'the desk', shared_block_ids: [] });
  });

  it('reads projects in the console but cannot create them, see API keys or invite', async () => {
    const analyst = await inviteMember(stack, admin, 'analyst');
    expect((await analyst.client.get('/projects')).status).toBe(200);
    expect((await analyst.client.get('/organizations/self/members')).status).toBe(200);
    for (const [method, path, body] of [
      ['POST', '/projects', { name: 'nope' }],
      ['GET', '/api-keys', undefined],
      ['POST', '/api-keys', { name: 'nope' }],
      ['POST', '/organizations/self/invited-members', { email: 'someone@example.com' }],
      ['GET', '/environment-variables', undefined],
    ] as const) {
      const response = await analyst.client.request(method, path, body);
      expect(response.status, `${method} ${path}`).toBe(403);
      expect(response.body).toEqual({ message: expect.stringMatching(/^You do not have permission/), errorCode: 'noPermission' });
    }
  });
});

describe('editor', () => {
  it('creates and deletes agents and API keys of its own, but cannot delete API keys or manage billing', async () => {
    const editor = await inviteMember(stack, admin, 'editor');
    const created = await editor.client.post('/api-keys', { name: 'editor key' });
    expect(created.status).toBe(201);
    expect((await editor.client.get('/api-keys')).status).toBe(200);

    const agent = await createAgent(created.body.apiKey);
    expect(agent.status).toBe(200);
    expect((await v1(created.body.apiKey, 'DELETE', `/agents/${agent.body.id}`)).status).toBe(200);

    const deleteKey = await editor.client.delete(`/api-keys/${created.body.id}`);
    expect(deleteKey.status).toBe(403);
    expect(deleteKey.body.errorCode).toBe('noPermission');
    const billing = await editor.client.get('/organizations/self/billing-info');
    expect(billing.status).toBe(403);
    expect(billing.body.errorCode).toBe('noPermission');
    expect((await editor.client.patch('/organizations/self', { name: 'taken over' })).status).toBe(403);
    expect((await editor.client.patch(`/organizations/self/members/${editor.userId}/role`, { role: 'admin' })).status).toBe(403);
    expect((await v1(created.body.apiKey, 'POST', '/providers/', { name: 'mine', provider_type: 'openai', api_key: 'sk-x' })).status).toBe(403);

    expect((await admin.client.get('/organizations/self/billing-info')).status).toBe(200);
    expect((await admin.client.delete(`/api-keys/${created.body.id}`)).status).toBe(200);
  });
});

describe('custom role', () => {
  it('can do nothing that needs a permission when it has none: every such route of the app answers 403', async () => {
    const agent = (await createAgent(adminKey)).body;
    const custom = await inviteMember(stack, admin, 'custom');
    const caller = { apiKey: await keyFor(custom), jar: custom.client.jar };
    const known = { agent_id: agent.id, agentId: agent.id, memberId: admin.userId };

    const guarded = walkableRoutes(stack.app).filter((route) => route.rule.kind === 'permission' || route.rule.kind === 'platform_admin');
    expect(guarded.length).toBeGreaterThan(50);
    const answers = await Promise.all(guarded.map((route) => callRoute(stack.baseUrl, route, fillPath(route.url, known), caller)));
    const allowed = answers.filter((answer) => answer.status !== 403).map((answer) => `${answer.route.method} ${answer.path} → ${answer.status}`);
    expect(allowed).toEqual([]);

    // What is left to a member without permissions: their own account and who is in the organization.
    const open = walkableRoutes(stack.app).filter((route) => route.rule.kind === 'member').map((route) => `${route.method} ${route.url}`);
    expect(open.sort()).toEqual([
      'DELETE /api/user/self/connected-apps/:clientId',
      'DELETE /api/user/self/connected-apps/:clientId/connections/:connectionId',
      'GET /api/console-settings',
      'GET /api/feature-flags',
      'GET /api/organizations/self',
      'GET /api/organizations/self/members',
      'GET /api/organizations/self/preferences',
      // Limits and use, so any member can see why a create was refused.
      'GET /api/organizations/self/quotas',
      'GET /api/organizations/self/quotas/full',
      'GET /api/user/self/connected-apps',
      'GET /api/user/self/connected-apps/:clientId/connections',
      // What Letta's clients read of the caller and the plan (Letta Code's `letta usage`), as the console's quotas above.
      'GET /v1/metadata/balance',
      'GET /v1/metadata/user',
      'GET /v1/organizations/self/quotas',
      // Anyone may leave (the last admin is refused by the service).
      'POST /api/organizations/self/leave',
    ]);
  });

  it('gets exactly the permissions granted, and API keys follow role changes at once', async () => {
    const agent = (await createAgent(adminKey)).body;
    const custom = await inviteMember(stack, admin, 'custom');
    const key = await keyFor(custom);
    expect((await v1(key, 'GET', `/agents/${agent.id}`)).status).toBe(403);

    await admin.client.patch(`/organizations/self/members/${custom.userId}/role`, { role: 'custom', customPermissions: ['read_agents'] });
    expect((await v1(key, 'GET', `/agents/${agent.id}`)).status).toBe(200);
    expect((await v1(key, 'DELETE', `/agents/${agent.id}`)).status).toBe(403);
    expect((await v1(key, 'POST', `/agents/${agent.id}/messages/async`, { messages: [{ role: 'user', content: 'hi' }] })).status).toBe(403);

    await admin.client.patch(`/organizations/self/members/${custom.userId}/role`, { role: 'editor' });
    const created = await createAgent(key);
    expect(created.status).toBe(200);
    expect((await v1(key, 'DELETE', `/agents/${created.body.id}`)).status).toBe(200);
  });
});
