import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '@engram/testing';
import { ConsoleClient } from '@engram/testing/cookie-jar';
import { buildApp } from '../app.js';
import { parseApiConfig } from '../config.js';

/**
 * The API logs everything at trace level while a user signs up and in, creates an API key, stores a
 * provider key and sandbox variable, and makes requests that fail: neither the log nor any response
 * body (besides the one answer that shows a new key once) holds a credential or the secret key.
 */

let stack: TestStack;
let app: FastifyInstance;
let baseUrl: string;
let logged = '';
const errorBodies: string[] = [];

const PROVIDER_KEY = `sk-provider-${'p'.repeat(24)}`;
const SANDBOX_SECRET = `sandbox-secret-${'s'.repeat(16)}`;

async function call(method: string, route: string, key: string, body?: unknown): Promise<{ status: number; text: string }> {
  const response = await fetch(`${baseUrl}${route}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status >= 400) errorBodies.push(text);
  return { status: response.status, text };
}

beforeAll(async () => {
  stack = await startTestStack({ inProcessWorker: false });
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      logged += chunk.toString('utf8');
      callback();
    },
  });
  app = await buildApp({ config: { ...parseApiConfig({}), logLevel: 'trace' }, services: stack.services, logger: { level: 'trace', stream: sink } });
  baseUrl = await app.listen({ port: 0, host: '127.0.0.1' });
});

afterAll(async () => {
  await app?.close();
  await stack?.stop();
});

describe('secrets in logs and error bodies', () => {
  it('never shows an API key, a session token, a provider key, a sandbox secret or the secret key', async () => {
    const browser = new ConsoleClient(baseUrl);
    const password = `pw-${'w'.repeat(20)}`;
    expect((await browser.post('/user/new', { email: `logs-${Date.now()}@example.com`, name: 'Logs', password })).status).toBe(201);
    const sessionToken = browser.jar.get('engram_session')?.value ?? '';
    expect(sessionToken.length).toBeGreaterThan(10);
    const apiKey = (await browser.post('/api-keys', { name: 'logs key' })).body.apiKey as string;

    expect((await call('GET', '/v1/health/', apiKey)).status).toBe(200);
    expect((await call('POST', '/v1/providers/', apiKey, { name: 'logs-provider', provider_type: 'openai', api_key: PROVIDER_KEY })).status).toBe(200);
    const sandbox = JSON.parse((await call('POST', '/v1/sandbox-config/local/default', apiKey)).text) as { id: string };
    expect((await call('POST', `/v1/sandbox-config/${sandbox.id}/environment-variable`, apiKey, { key: 'SECRET', value: SANDBOX_SECRET })).status).toBe(200);
    // Requests that fail, carrying the secrets where a careless handler would echo them.
    await call('GET', '/v1/agents/', `${apiKey}x`);
    await call('POST', '/v1/providers/check', apiKey, { provider_type: 'openai', api_key: PROVIDER_KEY, base_url: 'http://127.0.0.1:9/v1' });
    await call('POST', '/v1/providers/', apiKey, { name: 'logs-provider', provider_type: 'openai', api_key: PROVIDER_KEY });
    await call('POST', '/v1/agents/', apiKey, { name: 'x', model: 'openai/none', secrets: { TOKEN: SANDBOX_SECRET }, bogus: PROVIDER_KEY });
    await browser.post('/user/login', { email: 'nobody@example.com', password });

    expect(logged.length).toBeGreaterThan(1000);
    expect(errorBodies.length).toBeGreaterThan(3);
    const secrets = { apiKey, sessionToken, password, PROVIDER_KEY, SANDBOX_SECRET, secretKey: String(stack.workerEnv.ENGRAM_SECRET_KEY) };
    for (const [name, secret] of Object.entries(secrets)) {
      expect(logged.includes(secret), `${name} in the log`).toBe(false);
      expect(errorBodies.some((body) => body.includes(secret)), `${name} in an error body`).toBe(false);
    }
  });
});
