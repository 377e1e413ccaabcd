import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiProcess, startTestStack, type ApiProcess, type TestStack } from '@engram/testing';
import { ConsoleClient } from '@engram/testing/cookie-jar';
import { signUp } from './console-test-support.js';

/**
 * Two API processes against one database spend from one sign-in budget: the test process's API and a
 * second one in a process of its own, with nothing in common but PostgreSQL.
 */

/** `loginPerEmail` in account-service.ts. */
const LOGIN_ATTEMPTS_PER_EMAIL = 10;

let stack: TestStack;
let secondApi: ApiProcess | undefined;
let secondApiUrl: string;

beforeAll(async () => {
  stack = await startTestStack({ inProcessWorker: false });
  secondApi = await startApiProcess(stack.workerEnv, 0, 240_000);
  secondApiUrl = secondApi.baseUrl;
}, 300_000);

afterAll(async () => {
  await secondApi?.stop();
  await stack?.stop();
});

describe('rate limits across API processes', () => {
  it('counts sign-in attempts for one email once, whichever process they reach', async () => {
    const user = await signUp(stack);
    const first = new ConsoleClient(stack.baseUrl);
    const second = new ConsoleClient(secondApiUrl);
    for (let attempt = 0; attempt < LOGIN_ATTEMPTS_PER_EMAIL; attempt += 1) {
      const client = attempt % 2 === 0 ? first : second;
      expect((await client.post('/user/login', { email: user.email, password: 'wrong guess' })).status).toBe(400);
    }
    for (const client of [first, second]) {
      const limited = await client.post('/user/login', { email: user.email, password: user.password });
      expect(limited.status).toBe(429);
      expect(limited.body).toMatchObject({ errorCode: 'tooManyRequests', retryAfterSeconds: expect.any(Number) });
      expect(limited.body.retryAfterSeconds).toBeGreaterThan(0);
    }
  });

  it('keeps budgets of different emails apart', async () => {
    const user = await signUp(stack);
    expect((await new ConsoleClient(secondApiUrl).post('/user/login', { email: user.email, password: user.password })).status).toBe(200);
  });
});
