import { afterAll, describe, expect, it } from 'vitest';
import { Organization, User } from '@engram/db';
import { startScriptedModelServer, startTestStack } from '@engram/testing';
import { requestV1 } from '@engram/testing/agent-test-context';
import { NO_CLOUD_ACCESS_MESSAGE } from '../../services/admin/cloud-access.js';
import { signUp, uniqueEmail, type ConsoleUser } from './console-test-support.js';

/*
 * A platform that asks for an access code (ENGRAM_CLOUD_ACCESS_CODES): an organization runs agents once a member
 * entered one of the codes; platform admins and whitelisted emails need none.
 */

const CODE = 'early-bird-2026';
const model = await startScriptedModelServer({ models: ['gpt-4o-mini'] });
const stack = await startTestStack({
  baseProviders: [{ name: 'openai', providerType: 'openai', apiKey: 'test', baseUrl: model.url }],
  inProcessWorker: false,
  apiEnv: { ENGRAM_CLOUD_ACCESS_CODES: `${CODE}, second-code-42` },
});
afterAll(async () => {
  await stack.stop();
  await model.close();
});

async function agentOf(user: ConsoleUser): Promise<{ apiKey: string; agentId: string }> {
  const apiKey = (await user.client.post('/api-keys', { name: 'key' })).body.apiKey as string;
  const agent = await requestV1(stack.baseUrl, apiKey, 'POST', '/agents/', { name: 'gated', model: 'openai/gpt-4o-mini', include_base_tools: false });
  expect(agent.status, JSON.stringify(agent.body)).toBe(200);
  return { apiKey, agentId: agent.body.id };
}

const send = (apiKey: string, agentId: string) =>
  requestV1(stack.baseUrl, apiKey, 'POST', `/agents/${agentId}/messages/async`, { messages: [{ role: 'user', content: 'hello' }] });

describe('cloud access codes', () => {
  it("refuses an organization's runs until a member enters a valid code, then lets them run", async () => {
    const member = await signUp(stack, { name: 'Waiting' });
    expect((await member.client.get('/user/self')).body.hasCloudAccess).toBe(false);
    const { apiKey, agentId } = await agentOf(member);
    expect(await send(apiKey, agentId)).toEqual({ status: 403, body: { detail: NO_CLOUD_ACCESS_MESSAGE } });

    const wrong = await member.client.post('/cloud-access-code', { code: 'early-bird-2025' });
    expect(wrong).toMatchObject({ status: 400, body: { errorCode: 'invalidCode' } });
    expect((await Organization.query(stack.db).findById(member.organizationId))?.enabledCloudAt).toBeNull();

    expect(await member.client.post('/cloud-access-code', { code: ` ${CODE} ` })).toMatchObject({ status: 200, body: { hasCloudAccess: true } });
    expect((await Organization.query(stack.db).findById(member.organizationId))?.enabledCloudAt).toBeInstanceOf(Date);
    expect((await member.client.get('/user/self')).body.hasCloudAccess).toBe(true);
    expect((await send(apiKey, agentId)).status).toBe(200);
  });

  it('needs no code for whitelisted emails and platform admins', async () => {
    const email = uniqueEmail('listed');
    await stack.services.whitelistedEmails.add(email);
    const listed = await signUp(stack, { email });
    expect((await listed.client.get('/user/self')).body.hasCloudAccess).toBe(true);
    const listedAgent = await agentOf(listed);
    expect((await send(listedAgent.apiKey, listedAgent.agentId)).status).toBe(200);

    const admin = await signUp(stack, { name: 'Platform admin' });
    await User.query(stack.db).findById(admin.userId).patch({ permissions: ['platform_admin'] });
    expect((await admin.client.get('/user/self')).body.hasCloudAccess).toBe(true);
  });

  it('answers 429 with Retry-After once an account has tried ten codes in a quarter hour', async () => {
    const guesser = await signUp(stack, { name: 'Guesser' });
    for (let attempt = 0; attempt < 10; attempt++) {
      expect((await guesser.client.post('/cloud-access-code', { code: `guess-${attempt}` })).status).toBe(400);
    }
    const limited = await guesser.client.post('/cloud-access-code', { code: CODE });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await Organization.query(stack.db).findById(guesser.organizationId))?.enabledCloudAt).toBeNull();
  });
});
