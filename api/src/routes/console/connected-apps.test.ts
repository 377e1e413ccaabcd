import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '@engram/testing';
import { requestV1 } from '@engram/testing/agent-test-context';
import { signUp, type ConsoleUser } from './console-test-support.js';
import { connectThroughDevice, createTestOAuthApp, postForm } from './oauth-test-support.js';

let stack: TestStack;
let user: ConsoleUser;

beforeAll(async () => {
  stack = await startTestStack({ inProcessWorker: false });
  user = await signUp(stack, { name: 'Connected User' });
});

afterAll(async () => {
  await stack?.stop();
});

const deviceApp = (name: string) => createTestOAuthApp(stack, { grantTypes: ['device_code', 'refresh_token'], isPublicClient: true, name });

describe('GET /api/user/self/connected-apps', () => {
  it('lists the apps connected in this organization, active by default, by client id with a cursor', async () => {
    const member = await signUp(stack, { name: 'Lister' });
    const [first, second, revoked] = await Promise.all([deviceApp('First app'), deviceApp('Second app'), deviceApp('Revoked app')]);
    await connectThroughDevice(stack, member, first);
    await connectThroughDevice(stack, member, first, 'read_agent read_messages');
    await connectThroughDevice(stack, member, second);
    await connectThroughDevice(stack, member, revoked);
    await member.client.delete(`/user/self/connected-apps/${revoked.clientId}`);

    const active = await member.client.get('/user/self/connected-apps');
    expect(active.status).toBe(200);
    const byClient = [first, second].sort((a, b) => (a.clientId < b.clientId ? -1 : 1));
    expect(active.body.connectedApps.map((app: { clientId: string }) => app.clientId)).toEqual(byClient.map((app) => app.clientId));
    expect(active.body.nextCursor).toBeNull();
    expect(active.body.connectedApps.find((app: { clientId: string }) => app.clientId === first.clientId)).toEqual({
      appId: expect.stringMatching(/^oauth_app-/),
      appName: 'First app',
      clientId: first.clientId,
      logoUrl: null,
      lastConnectedAt: expect.any(String),
      connectionCount: 2,
      activeConnectionCount: 2,
    });

    const onlyRevoked = await member.client.get('/user/self/connected-apps?status=revoked');
    expect(onlyRevoked.body.connectedApps).toEqual([expect.objectContaining({ clientId: revoked.clientId, connectionCount: 1, activeConnectionCount: 0 })]);
    expect((await member.client.get('/user/self/connected-apps?status=all')).body.connectedApps).toHaveLength(3);

    const page = await member.client.get('/user/self/connected-apps?limit=1');
    expect(page.body.connectedApps).toHaveLength(1);
    expect(page.body.nextCursor).toBe(byClient[0]!.clientId);
    const next = await member.client.get(`/user/self/connected-apps?limit=1&cursor=${encodeURIComponent(page.body.nextCursor)}`);
    expect(next.body.connectedApps.map((app: { clientId: string }) => app.clientId)).toEqual([byClient[1]!.clientId]);
    expect(next.body.nextCursor).toBeNull();

    for (const query of ['limit=0', 'limit=101', 'status=expired']) {
      expect((await member.client.get(`/user/self/connected-apps?${query}`)).status, query).toBe(400);
    }
  });
});

describe('connections of an app', () => {
  it('lists them (all by default), and revoking one stops its token on the next request while the others keep working', async () => {
    const app = await deviceApp('Two devices');
    const kept = await connectThroughDevice(stack, user, app);
    const ended = await connectThroughDevice(stack, user, app, 'read_agent read_messages');
    const probe = (token: string) => requestV1(stack.baseUrl, token, 'GET', '/agents/');
    expect((await probe(kept.accessToken)).status).toBe(200);
    expect((await probe(ended.accessToken)).status).toBe(200);

    const listed = await user.client.get(`/user/self/connected-apps/${app.clientId}/connections`);
    expect(listed.body.connections).toHaveLength(2);
    expect(listed.body.connections.find((connection: { id: string }) => connection.id === ended.connectionId)).toEqual({
      id: ended.connectionId,
      scopes: ['read_messages', 'read_agent'],
      connectedAt: expect.any(String),
      lastUsedAt: expect.any(String),
      isActive: true,
      revokedAt: null,
      expiresAt: expect.any(String),
    });

    expect((await user.client.delete(`/user/self/connected-apps/${app.clientId}/connections/${ended.connectionId}`)).body).toEqual({ success: true });
    expect((await probe(ended.accessToken)).status).toBe(401);
    expect((await probe(kept.accessToken)).status).toBe(200);
    const refresh = await postForm(stack, '/oauth/token', app, { grant_type: 'refresh_token', refresh_token: ended.refreshToken });
    expect(refresh.body.error).toBe('invalid_grant');

    const revoked = await user.client.get(`/user/self/connected-apps/${app.clientId}/connections?status=revoked`);
    expect(revoked.body.connections).toEqual([expect.objectContaining({ id: ended.connectionId, isActive: false, revokedAt: expect.any(String) })]);
    expect((await user.client.get(`/user/self/connected-apps/${app.clientId}/connections?status=active`)).body.connections.map((connection: { id: string }) => connection.id)).toEqual([kept.connectionId]);

    // Revoking the app ends the rest.
    expect((await user.client.delete(`/user/self/connected-apps/${app.clientId}`)).status).toBe(200);
    expect((await probe(kept.accessToken)).status).toBe(401);
  });

  it("keeps every other member's and organization's connections out of reach (404)", async () => {
    const app = await deviceApp('Private');
    const mine = await connectThroughDevice(stack, user, app);
    const stranger = await signUp(stack, { name: 'Stranger' });

    expect((await stranger.client.get(`/user/self/connected-apps/${app.clientId}/connections`)).status).toBe(404);
    expect((await stranger.client.delete(`/user/self/connected-apps/${app.clientId}`)).status).toBe(404);
    expect((await stranger.client.delete(`/user/self/connected-apps/${app.clientId}/connections/${mine.connectionId}`)).status).toBe(404);
    expect((await stranger.client.get('/user/self/connected-apps?status=all')).body.connectedApps).toEqual([]);

    // The same member acting in another organization sees only that organization's connections.
    const other = await user.client.post('/organizations', { name: 'Elsewhere' });
    await user.client.put('/user/self/active-organization', { activeOrganizationId: other.body.id });
    expect((await user.client.get(`/user/self/connected-apps/${app.clientId}/connections`)).status).toBe(404);
    await user.client.put('/user/self/active-organization', { activeOrganizationId: user.organizationId });

    expect((await requestV1(stack.baseUrl, mine.accessToken, 'GET', '/agents/')).status).toBe(200);
  });
});
