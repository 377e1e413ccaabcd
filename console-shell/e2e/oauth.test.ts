import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { OAuthConnection, Organization } from '@engram/db';
import { startScriptedModelServer, startTestStack, type ScriptedModelServer, type TestStack } from '@engram/testing';
import { requestV1 } from '@engram/testing/agent-test-context';
import { ensureConsoleBuilt } from '../../scripts/console-build.js';
import { signUp, type ConsoleUser } from '@engram/api/routes/console/console-test-support';
import { createTestOAuthApp, pkcePair, postForm, type TestOAuthApp } from '@engram/api/routes/console/oauth-test-support';
import { artifactsDir, DESKTOP, launchChromium, screenshots } from './browser.js';

/*
 * Engram as an OAuth provider, driven in Chromium: a third-party app sends the user to /oauth/authorize,
 * the user signs in to the console, reads the consent screen and allows; the app gets a code on its
 * redirect URI, exchanges it with its PKCE verifier, calls /v1, refreshes, and a replayed refresh token
 * ends the connection. A device (a polling client) is approved on the console's verification page.
 */

let stack: TestStack;
let model: ScriptedModelServer;
let browser: Browser;
let owner: ConsoleUser;
let agentId: string;
let callbackServer: Server;
let redirectUri: string;
/** What the app's redirect URI received, one entry per visit (the browser's favicon requests left out). */
const callbacks: URLSearchParams[] = [];

/** The app's logo; the console's Content-Security-Policy allows images from data: URLs. */
const LOGO = `data:image/svg+xml;base64,${Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><rect width="8" height="8" fill="#7048e8"/></svg>').toString('base64')}`;

beforeAll(async () => {
  await ensureConsoleBuilt({ log: () => undefined });
  model = await startScriptedModelServer({ models: ['gpt-4o-mini'] });
  stack = await startTestStack({ baseProviders: [{ name: 'openai', providerType: 'openai', apiKey: 'test', baseUrl: model.url }], inProcessWorker: false });
  browser = await launchChromium();
  owner = await signUp(stack, { name: 'Grace Hopper' });
  await Organization.query(stack.db).findById(owner.organizationId).patch({ name: 'Hopper Labs' });
  const key = (await owner.client.post('/api-keys', { name: 'setup' })).body.apiKey as string;
  agentId = (await requestV1(stack.baseUrl, key, 'POST', '/agents/', { name: 'compiler', model: 'openai/gpt-4o-mini', include_base_tools: false })).body.id;

  callbackServer = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://app.local');
    if (url.pathname === '/callback') callbacks.push(url.searchParams);
    response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Agent Dashboard</title><h1>Signed in to Agent Dashboard</h1>');
  });
  await new Promise<void>((resolve) => callbackServer.listen(0, '127.0.0.1', () => resolve()));
  redirectUri = `http://127.0.0.1:${(callbackServer.address() as AddressInfo).port}/callback`;
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => (callbackServer ? callbackServer.close(() => resolve()) : resolve()));
  await stack?.stop();
  await model?.close();
});

function poll<T>(read: () => Promise<T> | T, timeout = 20_000) {
  return expect.poll(read, { timeout, interval: 50 });
}

async function newPage(failureName: string): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await browser.newContext({ viewport: DESKTOP, baseURL: stack.baseUrl });
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  onTestFailed(async () => {
    mkdirSync(artifactsDir, { recursive: true });
    await page.screenshot({ path: path.join(artifactsDir, `${failureName}-failure.png`) }).catch(() => undefined);
  });
  return { context, page, errors };
}

async function signIn(page: Page): Promise<void> {
  await page.getByLabel('Email', { exact: true }).fill(owner.email);
  await page.getByLabel('Password', { exact: true }).fill(owner.password);
  await page.getByRole('button', { name: 'Log in' }).click();
}

describe('OAuth in the browser', () => {
  it('signs in, consents, redirects with a code, and the app exchanges it, calls /v1, refreshes, and a replayed refresh token revokes the connection', { timeout: 180_000 }, async () => {
    const app: TestOAuthApp = await stack.services.oauthApps
      .create({
        name: 'Agent Dashboard',
        description: 'Charts of your agents and their conversations.',
        logoUrl: LOGO,
        isPublicClient: true,
        grantTypes: ['authorization_code', 'refresh_token'],
        redirectUris: [redirectUri],
        allowedScopes: ['read_agent', 'read_messages', 'write_messages'],
      })
      .then((created) => ({ clientId: created.app.clientId, clientSecret: created.clientSecret }));
    const { verifier, challenge } = pkcePair();
    const { page, errors } = await newPage('oauth-consent');

    const authorizeUrl = `/oauth/authorize?${new URLSearchParams({
      response_type: 'code',
      client_id: app.clientId,
      redirect_uri: redirectUri,
      scope: 'read_agent read_messages',
      state: 'state-123',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    }).toString()}`;
    await page.goto(authorizeUrl);
    // Not signed in: the console asks for a login first, then comes back to the request.
    await page.waitForURL('**/login');
    await signIn(page);
    await page.waitForURL('**/authorize/**');

    const consent = page.getByTestId('oauth-consent');
    await poll(() => consent.isVisible()).toBe(true);
    await expect.poll(() => consent.getByRole('heading', { name: 'Agent Dashboard' }).isVisible()).toBe(true);
    expect(await consent.textContent()).toContain('Charts of your agents and their conversations.');
    expect(await consent.getByRole('img', { name: 'Agent Dashboard logo' }).getAttribute('src')).toBe(LOGO);
    expect(await consent.getByTestId('oauth-scope-read_agent').textContent()).toContain('See your agents');
    expect(await consent.getByTestId('oauth-scope-read_messages').textContent()).toContain('Read the conversations');
    expect(await consent.getByTestId('oauth-scope-write_messages').count()).toBe(0);
    expect(await consent.getByLabel('Organization').inputValue()).toBe(owner.organizationId);
    expect(await consent.getByLabel('Organization').textContent()).toContain('Hopper Labs');
    await screenshots(page, 'oauth-consent');

    await consent.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL(`${redirectUri}**`);
    expect(await page.getByRole('heading').textContent()).toBe('Signed in to Agent Dashboard');
    const received = callbacks.at(-1)!;
    expect(received.get('state')).toBe('state-123');
    expect(received.get('iss')).toMatch(/\/oauth$/);
    expect(errors).toEqual([]);

    // The app's back end: the code and the verifier make tokens; the access token works on /v1 within its scopes.
    const tokens = await postForm(stack, '/oauth/token', app, { grant_type: 'authorization_code', code: received.get('code')!, redirect_uri: redirectUri, code_verifier: verifier });
    expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
    expect(tokens.body.scope).toBe('read_messages read_agent');
    expect((await requestV1(stack.baseUrl, tokens.body.access_token, 'GET', `/agents/${agentId}`)).body.name).toBe('compiler');
    expect((await requestV1(stack.baseUrl, tokens.body.access_token, 'POST', `/agents/${agentId}/messages`, { messages: [{ role: 'user', content: 'hi' }] })).status).toBe(403);

    const refreshed = await postForm(stack, '/oauth/token', app, { grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token });
    expect(refreshed.status).toBe(200);
    expect((await requestV1(stack.baseUrl, refreshed.body.access_token, 'GET', `/agents/${agentId}/messages`)).status).toBe(200);

    const replayed = await postForm(stack, '/oauth/token', app, { grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token });
    expect(replayed.status).toBe(400);
    expect(replayed.body.error).toBe('invalid_grant');
    expect((await requestV1(stack.baseUrl, refreshed.body.access_token, 'GET', `/agents/${agentId}`)).status).toBe(401);
    const connection = await OAuthConnection.query(stack.db).findOne({ clientId: app.clientId });
    expect(connection?.revokedAt).toBeInstanceOf(Date);
    const listed = await owner.client.get(`/user/self/connected-apps/${app.clientId}/connections`);
    expect(listed.body.connections).toEqual([expect.objectContaining({ isActive: false, revokedAt: expect.any(String) })]);
  });

  it('approves a polling device on the verification page: pending, slow_down, approval, tokens', { timeout: 180_000 }, async () => {
    const tv = await createTestOAuthApp(stack, { grantTypes: ['device_code', 'refresh_token'], isPublicClient: true, allowedScopes: ['read_agent'], name: 'Living-room TV' });
    const started = await postForm(stack, '/oauth/device/code', tv, { scope: 'read_agent' });
    expect(started.status).toBe(200);
    const pollOnce = () => postForm(stack, '/oauth/token', tv, { grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: started.body.device_code });

    // A device that polls at once, and once more too soon.
    expect((await pollOnce()).body.error).toBe('authorization_pending');
    expect((await pollOnce()).body.error).toBe('slow_down');

    const { page, errors } = await newPage('oauth-device');
    await page.goto(started.body.verification_uri_complete);
    await page.waitForURL('**/login');
    await signIn(page);
    await page.waitForURL('**/device?user_code=*');
    expect(await page.getByLabel('Code').inputValue()).toBe(started.body.user_code);
    await page.getByRole('button', { name: 'Continue' }).click();
    const consent = page.getByTestId('oauth-consent');
    await poll(() => consent.isVisible()).toBe(true);
    expect(await consent.getByRole('heading', { name: 'Living-room TV' }).isVisible()).toBe(true);
    await screenshots(page, 'oauth-device');
    await consent.getByRole('button', { name: 'Allow' }).click();
    await poll(() => page.getByTestId('oauth-device-done').isVisible()).toBe(true);
    expect(await page.getByTestId('oauth-device-done').textContent()).toContain('Device connected');
    expect(errors).toEqual([]);

    // The device waits out the interval slow_down gave it (5 + 5 seconds), then gets its tokens.
    await new Promise((resolve) => setTimeout(resolve, 10_000));
    const tokens = await pollOnce();
    expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
    expect((await requestV1(stack.baseUrl, tokens.body.access_token, 'GET', `/agents/${agentId}`)).status).toBe(200);
  });
});
