import { afterAll, describe, expect, it } from 'vitest';
import { startTestStack } from '@engram/testing';
import { signUp } from '../routes/console/console-test-support.js';
import { CONSOLE_REQUEST_HEADER, SESSION_COOKIE } from './auth.js';

const stack = await startTestStack({ inProcessWorker: false });
afterAll(() => stack.stop());

describe('the console reaching /v1 with its session', () => {
  it('accepts the session cookie on /v1 only together with the console header', async () => {
    const user = await signUp(stack);
    const cookie = `${SESSION_COOKIE}=${user.client.jar.get(SESSION_COOKIE)?.value}`;

    const fromConsole = await fetch(`${stack.baseUrl}/v1/agents/`, { headers: { cookie, [CONSOLE_REQUEST_HEADER]: '1' } });
    expect(fromConsole.status).toBe(200);
    expect(await fromConsole.json()).toEqual([]);

    // A cross-site form can make the browser send the cookie, but never the custom header.
    const crossSite = await fetch(`${stack.baseUrl}/v1/agents/`, { headers: { cookie } });
    expect(crossSite.status).toBe(401);

    const created = await fetch(`${stack.baseUrl}/v1/agents/`, {
      method: 'POST',
      headers: { cookie, [CONSOLE_REQUEST_HEADER]: '1', 'content-type': 'application/json' },
      body: JSON.stringify({ llm_config: { model: 'm', model_endpoint_type: 'openai', context_window: 8000 } }),
    });
    expect(created.status).toBe(200);
    const agent = (await created.json()) as { id: string; project_id: string };
    const otherOrg = await fetch(`${stack.baseUrl}/v1/agents/${agent.id}`, { headers: { authorization: `Bearer ${stack.apiKey}` } });
    expect(otherOrg.status).toBe(404);
  });

  it('refuses a dead session', async () => {
    const response = await fetch(`${stack.baseUrl}/v1/agents/`, {
      headers: { cookie: `${SESSION_COOKIE}=not-a-session`, [CONSOLE_REQUEST_HEADER]: '1' },
    });
    expect(response.status).toBe(401);
  });
});
