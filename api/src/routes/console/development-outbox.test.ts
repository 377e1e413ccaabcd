import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutboxMessage } from '@engram/db';
import { startTestStack, type TestStack } from '@engram/testing';
import { ConsoleClient } from '@engram/testing/cookie-jar';
import { buildApp } from '../../app.js';
import { parseApiConfig } from '../../config.js';
import { latestCode, signUp, uniqueEmail } from './console-test-support.js';

let stack: TestStack;
const apps: FastifyInstance[] = [];

/** An API over the stack's services with the outbox route on or off, whatever the stack's own config says. */
async function listen(exposeDevelopmentOutbox: boolean): Promise<string> {
  const app = await buildApp({
    config: { ...parseApiConfig({}), port: 0, logLevel: 'silent', exposeDevelopmentOutbox },
    services: stack.services,
    logger: false,
  });
  apps.push(app);
  return app.listen({ port: 0, host: '127.0.0.1' });
}

/** The same browser (cookies) against another server of the same stack. */
const sameBrowserAt = (baseUrl: string, client: ConsoleClient) => new ConsoleClient(baseUrl, client.jar);

beforeAll(async () => {
  stack = await startTestStack({ inProcessWorker: false });
});

afterAll(async () => {
  for (const app of apps) await app.close();
  await stack?.stop();
});

describe('exposeDevelopmentOutbox', () => {
  it('is on by default, off when NODE_ENV is production, and ENGRAM_DEVELOPMENT_OUTBOX decides either way', () => {
    expect(parseApiConfig({}).exposeDevelopmentOutbox).toBe(true);
    expect(parseApiConfig({ NODE_ENV: 'development' }).exposeDevelopmentOutbox).toBe(true);
    expect(parseApiConfig({ NODE_ENV: 'production' }).exposeDevelopmentOutbox).toBe(false);
    expect(parseApiConfig({ NODE_ENV: 'production', ENGRAM_DEVELOPMENT_OUTBOX: 'true' }).exposeDevelopmentOutbox).toBe(true);
    expect(parseApiConfig({ ENGRAM_DEVELOPMENT_OUTBOX: 'false' }).exposeDevelopmentOutbox).toBe(false);
    expect(() => parseApiConfig({ ENGRAM_DEVELOPMENT_OUTBOX: 'yes' })).toThrow(/^ENGRAM_DEVELOPMENT_OUTBOX: /);
  });
});

describe('GET /api/development/outbox', () => {
  it("answers the caller's own messages, newest first, and nobody else's", async () => {
    const baseUrl = await listen(true);
    const ada = await signUp(stack);
    const grace = await signUp(stack);
    const adaAtOutbox = sameBrowserAt(baseUrl, ada.client);

    expect((await ada.client.post('/user/self/email-verification/start')).status).toBe(200);
    const adaCode = await latestCode(stack.db, ada.email);
    expect((await grace.client.post('/user/self/email-verification/start')).status).toBe(200);
    // An invitation Ada sends goes to someone else's address: not hers to read.
    const invitee = uniqueEmail('invitee');
    expect((await ada.client.post('/organizations/self/invited-members', { email: invitee, role: 'analyst' })).status).toBe(201);
    // And a message to her address that arrives later comes first.
    await OutboxMessage.query(stack.db).insert({ id: randomUUID(), channel: 'email', recipient: ada.email, subject: 'Later', body: 'Newest.' });

    const outbox = await adaAtOutbox.get('/development/outbox');
    expect(outbox.status).toBe(200);
    expect(outbox.body.messages).toEqual([
      { id: expect.any(String), channel: 'email', recipient: ada.email, subject: 'Later', body: 'Newest.', createdAt: expect.any(String) },
      {
        id: expect.any(String),
        channel: 'email',
        recipient: ada.email,
        subject: 'Verify your email',
        body: `Your verification code is ${adaCode}.`,
        createdAt: expect.any(String),
      },
    ]);

    const graceOutbox = await sameBrowserAt(baseUrl, grace.client).get('/development/outbox?limit=5');
    expect(graceOutbox.body.messages.map((message: { recipient: string }) => message.recipient)).toEqual([grace.email]);

    const limited = await adaAtOutbox.get('/development/outbox?limit=1');
    expect(limited.body.messages.map((message: { subject: string }) => message.subject)).toEqual(['Later']);
  });

  it('answers 401 without a session', async () => {
    const baseUrl = await listen(true);
    const anonymous = await new ConsoleClient(baseUrl).get('/development/outbox');
    expect(anonymous.status).toBe(401);
  });

  it('answers 404 when the config turns it off', async () => {
    const baseUrl = await listen(false);
    const user = await signUp(stack);
    expect((await user.client.post('/user/self/email-verification/start')).status).toBe(200);
    const outbox = await sameBrowserAt(baseUrl, user.client).get('/development/outbox');
    expect(outbox.status).toBe(404);
    expect(JSON.stringify(outbox.body)).not.toContain(await latestCode(stack.db, user.email));
  });
});
