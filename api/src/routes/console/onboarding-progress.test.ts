import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedModelServer, startTestStack, type ScriptedModelServer, type TestStack } from '@engram/testing';
import { signUp } from './console-test-support.js';

/*
 * The getting-started checklist checks a step once the organization's data shows it done: an API key,
 * an agent, a message sent to one. GET /api/user/self carries that progress for the active organization.
 */

let stack: TestStack;
let model: ScriptedModelServer;

beforeAll(async () => {
  model = await startScriptedModelServer({ models: ['gpt-4o-mini'] });
  stack = await startTestStack({ baseProviders: [{ name: 'openai', providerType: 'openai', apiKey: 'test', baseUrl: model.url }], inProcessWorker: false });
});

afterAll(async () => {
  await stack?.stop();
  await model?.close();
});

async function v1(key: string, method: string, path: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${stack.baseUrl}/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const json = (await response.json()) as { id: string };
  expect(response.status, JSON.stringify(json)).toBe(200);
  return json;
}

describe('onboarding progress', () => {
  it('checks the API key, agent, first-message and saved-version steps from the organization’s data, and points at the newest agent', async () => {
    const user = await signUp(stack);
    const progress = async () => (await user.client.get('/user/self')).body.onboardingProgress;
    expect(await progress()).toEqual({ doneSteps: [], projectSlug: 'default-project', agentId: null });

    const key = (await user.client.post('/api-keys', { name: 'checklist' })).body.apiKey as string;
    expect(await progress()).toEqual({ doneSteps: ['deploy_agent'], projectSlug: 'default-project', agentId: null });

    const first = await v1(key, 'POST', '/agents/', { name: 'first', model: 'openai/gpt-4o-mini' });
    expect(await progress()).toEqual({ doneSteps: ['create_template', 'deploy_agent'], projectSlug: 'default-project', agentId: first.id });

    // The newest agent is the one to talk to, in its own project.
    const project = (await user.client.post('/projects', { name: 'Support' })).body as { slug: string };
    const second = await v1(key, 'POST', '/agents/', { name: 'second', model: 'openai/gpt-4o-mini' }, { 'x-project': project.slug });
    expect(await progress()).toEqual({ doneSteps: ['create_template', 'deploy_agent'], projectSlug: project.slug, agentId: second.id });

    // A template's simulated agent talking is not the user's first message; one of their agents talking is.
    const template = await user.client.post('/agent-templates', { name: `first-template-${Date.now().toString(36)}`, agentId: first.id });
    const simulated = await user.client.get(`/agent-templates/${template.body.id}/simulated-agents/default`);
    await v1(key, 'POST', `/agents/${simulated.body.agentId}/messages/async`, { messages: [{ role: 'user', content: 'trying' }] });
    expect((await progress()).doneSteps).toEqual(['create_template', 'deploy_agent']);
    await v1(key, 'POST', `/agents/${first.id}/messages/async`, { messages: [{ role: 'user', content: 'hello' }] });
    expect((await progress()).doneSteps).toEqual(['create_template', 'explore_ade', 'deploy_agent']);

    // A saved version of a template.
    expect((await user.client.post(`/agent-templates/${template.body.id}/versions`, { message: 'first' })).status).toBe(201);
    expect((await progress()).doneSteps).toEqual(['create_template', 'explore_ade', 'save_version', 'deploy_agent']);

    // What the user clicked is kept apart: the stored status did not move.
    expect((await user.client.get('/user/self')).body.onboardingStatus).toBeNull();
  });

  it('reads only the active organization', async () => {
    const user = await signUp(stack);
    const key = (await user.client.post('/api-keys', { name: 'first organization' })).body.apiKey as string;
    await v1(key, 'POST', '/agents/', { name: 'elsewhere', model: 'openai/gpt-4o-mini' });
    expect((await user.client.post('/organizations', { name: 'Second' })).status).toBe(201);
    expect((await user.client.get('/user/self')).body.onboardingProgress).toEqual({ doneSteps: [], projectSlug: 'default-project', agentId: null });
  });
});
