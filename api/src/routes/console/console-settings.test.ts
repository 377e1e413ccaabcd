import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '@engram/testing';
import { ConsoleClient } from '@engram/testing/cookie-jar';
import { parseApiConfig } from '../../config.js';
import { ROLE_PERMISSIONS } from '../../http/permissions.js';
import { inviteMember, signUp } from './console-test-support.js';

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack({ inProcessWorker: false, apiEnv: { TEMPORAL_UI_URL: 'http://temporal-ui.internal:8233/', TEMPORAL_NAMESPACE: 'engram-runs' } });
});

afterAll(() => stack?.stop());

describe('TEMPORAL_UI_URL', () => {
  it('is unset by default, loses a trailing slash, comes with the Temporal namespace, and must be an http(s) URL', () => {
    expect(parseApiConfig({}).temporalUi).toBeNull();
    expect(parseApiConfig({ TEMPORAL_UI_URL: 'https://temporal.example.com/ui/' }).temporalUi).toEqual({
      url: 'https://temporal.example.com/ui',
      namespace: 'default',
    });
    expect(parseApiConfig({ TEMPORAL_UI_URL: 'http://127.0.0.1:8233', TEMPORAL_NAMESPACE: 'prod' }).temporalUi).toEqual({
      url: 'http://127.0.0.1:8233',
      namespace: 'prod',
    });
    expect(() => parseApiConfig({ TEMPORAL_UI_URL: 'temporal-ui:8233' })).toThrow(/^TEMPORAL_UI_URL: /);
  });
});

describe('the web_search provider', () => {
  it('is none by default, the first configured one otherwise, and a bad one stops the start naming its variable', () => {
    expect(parseApiConfig({}).webSearch).toBeNull();
    expect(parseApiConfig({ BRAVE_SEARCH_API_KEY: 'b', SEARXNG_URL: 'http://searxng:8080' }).webSearch).toEqual({ kind: 'brave', baseUrl: 'https://api.search.brave.com', apiKey: 'b' });
    expect(() => parseApiConfig({ ENGRAM_WEB_SEARCH_PROVIDER: 'tavily' })).toThrow(/^ENGRAM_WEB_SEARCH_PROVIDER is tavily, but TAVILY_API_KEY is not set$/);
  });
});

describe('GET /api/console-settings', () => {
  it("answers the Temporal UI, the member's role with exactly the permissions it holds, and how the server bills", async () => {
    const admin = await signUp(stack, { name: 'Admin' });
    const analyst = await inviteMember(stack, admin, 'analyst');

    const forAdmin = await admin.client.get('/console-settings');
    expect(forAdmin.status).toBe(200);
    expect(forAdmin.body).toEqual({
      temporalUi: { url: 'http://temporal-ui.internal:8233', namespace: 'engram-runs' },
      member: { role: 'admin', permissions: [...ROLE_PERMISSIONS.admin].sort() },
      // The test stack runs with billing off and no Stripe key: nothing is enforced and no card can pay.
      billing: { enforced: false, cardPayments: false },
      // Nor any search provider.
      webSearch: { provider: null },
    });

    const forAnalyst = await analyst.client.get('/console-settings');
    expect(forAnalyst.body.member.role).toBe('analyst');
    expect(forAnalyst.body.member.permissions).toContain('read_agents');
    expect(forAnalyst.body.member.permissions).toContain('message_agents');
    expect(forAnalyst.body.member.permissions).not.toContain('update_agents');
    expect(forAnalyst.body.member.permissions).not.toContain('delete_agents');

    expect((await new ConsoleClient(stack.baseUrl).get('/console-settings')).status).toBe(401);
  });
});
