import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import type { Browser } from 'playwright-core';
import { Organization, User } from '@engram/db';
import { startTestStack, type TestStack } from '@engram/testing';
import { ensureConsoleBuilt } from '../../scripts/console-build.js';
import { artifactsDir, DESKTOP, launchChromium, screenshots } from './browser.js';

/* On a platform that asks for access codes (ENGRAM_CLOUD_ACCESS_CODES), a new account's console asks for one. */

const CODE = `invite-${randomBytes(4).toString('hex')}`;

let stack: TestStack;
let browser: Browser;

beforeAll(async () => {
  await ensureConsoleBuilt({ log: () => undefined });
  stack = await startTestStack({ inProcessWorker: false, apiEnv: { ENGRAM_CLOUD_ACCESS_CODES: CODE } });
  browser = await launchChromium();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

function poll<T>(read: () => Promise<T> | T, timeout = 15_000) {
  return expect.poll(read, { timeout, interval: 50 });
}

describe('cloud access', () => {
  it('asks a new account for an access code, refuses a wrong one, and stops asking once a valid one is entered', { timeout: 120_000 }, async () => {
    const context = await browser.newContext({ viewport: DESKTOP, baseURL: stack.baseUrl, reducedMotion: 'reduce' });
    const page = await context.newPage();
    page.setDefaultTimeout(20_000);
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    onTestFailed(async () => {
      mkdirSync(artifactsDir, { recursive: true });
      await page.screenshot({ path: path.join(artifactsDir, 'cloud-access-failure.png') }).catch(() => undefined);
    });
    const email = `waitlisted-${randomBytes(4).toString('hex')}@example.com`;
    try {
      await page.goto('/signup');
      await page.getByLabel('Name', { exact: true }).fill('Waitlisted');
      await page.getByLabel('Email', { exact: true }).fill(email);
      await page.getByLabel('Password', { exact: true }).fill('waitlisted-password-1');
      await page.getByRole('button', { name: 'Create account' }).click();
      await page.waitForURL('**/projects');
      const notice = page.getByTestId('cloud-access-notice');
      await poll(() => notice.isVisible()).toBe(true);

      await notice.getByLabel('Access code', { exact: true }).fill('not-the-code');
      await notice.getByRole('button', { name: 'Unlock' }).click();
      await poll(() => notice.getByRole('alert').filter({ hasText: 'That code did not unlock the platform' }).textContent()).toContain(
        'This access code is not valid',
      );
      await screenshots(page, 'cloud-access-01-code-asked');

      await notice.getByLabel('Access code', { exact: true }).fill(CODE);
      await notice.getByRole('button', { name: 'Unlock' }).click();
      await poll(() => notice.count()).toBe(0);
      const user = await User.query(stack.db).findOne({ email });
      const organization = await Organization.query(stack.db).findById(user?.activeOrganizationId ?? '');
      expect(organization?.enabledCloudAt).toBeInstanceOf(Date);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
