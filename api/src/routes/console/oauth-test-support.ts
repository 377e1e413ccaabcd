import { createHash, randomBytes } from 'node:crypto';
import type { OAuthGrantType } from '@engram/db';
import type { TestStack } from '@engram/testing';
import type { CookieJar } from '@engram/testing/cookie-jar';

/** A registered app as a test client holds it. */
export type TestOAuthApp = { clientId: string; clientSecret: string | null };

/** Seeds an OAuth app the way platform admins will create them (through the service). */
export async function createTestOAuthApp(
  stack: TestStack,
  options: { grantTypes: OAuthGrantType[]; isPublicClient?: boolean; redirectUris?: string[]; allowedScopes?: string[]; name?: string },
): Promise<TestOAuthApp> {
  const created = await stack.services.oauthApps.create({
    name: options.name ?? `Test app ${randomBytes(3).toString('hex')}`,
    description: 'Reads and talks to your agents.',
    logoUrl: null,
    isPublicClient: options.isPublicClient ?? false,
    grantTypes: options.grantTypes,
    redirectUris: options.redirectUris ?? [],
    allowedScopes: options.allowedScopes ?? ['read_agent', 'write_agent', 'read_messages', 'write_messages'],
  });
  return { clientId: created.app.clientId, clientSecret: created.clientSecret };
}

/** A PKCE verifier and its S256 challenge. */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export type TokenAnswer = { status: number; body: Record<string, any> };

/** `POST /oauth/token` (or another form endpoint) as a client sends it: form-encoded, a confidential client with basic auth. */
export async function postForm(stack: TestStack, path: string, app: TestOAuthApp, form: Record<string, string>): Promise<TokenAnswer> {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  const body = new URLSearchParams(form);
  if (app.clientSecret) headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(app.clientId)}:${encodeURIComponent(app.clientSecret)}`).toString('base64')}`;
  else body.set('client_id', app.clientId);
  const response = await fetch(`${stack.baseUrl}${path}`, { method: 'POST', headers, body });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : {} };
}

/** A GET that follows nothing and carries the browser's cookies, as a user agent would one hop at a time. */
export async function browse(stack: TestStack, jar: CookieJar, url: string): Promise<{ status: number; location: string | null }> {
  const cookie = jar.header();
  const response = await fetch(url.startsWith('http') ? url : `${stack.baseUrl}${url}`, { redirect: 'manual', headers: cookie ? { cookie } : {} });
  jar.store(response);
  await response.arrayBuffer();
  return { status: response.status, location: response.headers.get('location') };
}

/**
 * Connects an app to a member's account through the device flow, approved in the console API, and
 * returns the connection and the tokens the device got.
 */
export async function connectThroughDevice(
  stack: TestStack,
  member: { client: { post(path: string, body?: unknown): Promise<{ status: number; body: any }>; get(path: string): Promise<{ body: any }> }; organizationId: string },
  app: TestOAuthApp,
  scope = 'read_agent',
): Promise<{ connectionId: string; accessToken: string; refreshToken: string }> {
  const started = await postForm(stack, '/oauth/device/code', app, { scope });
  const approved = await member.client.post('/oauth/device/verify', { userCode: started.body.user_code, approve: true, organizationId: member.organizationId });
  if (approved.status !== 200) throw new Error(`device not approved: ${JSON.stringify(approved.body)}`);
  const tokens = await postForm(stack, '/oauth/token', app, { grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: started.body.device_code });
  if (tokens.status !== 200) throw new Error(`no tokens: ${JSON.stringify(tokens.body)}`);
  const connections = await member.client.get(`/user/self/connected-apps/${encodeURIComponent(app.clientId)}/connections`);
  return { connectionId: connections.body.connections[0].id, accessToken: tokens.body.access_token, refreshToken: tokens.body.refresh_token };
}
