import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startTestStack, type TestStack } from '@engram/testing';
import { ensureConsoleBuilt, START_CONSOLE_BUILD_ARGS } from '../../scripts/console-build.js';
import { CONSOLE_APPS } from '../../scripts/console.rspack.config.js';
import { artifactsDir, DESKTOP, launchChromium, repoRoot } from './browser.js';

/*
 * The console the way a user first meets it: built by the very command `npm start` runs, served by
 * the API, and opened signed out and then signed in, without one error in the page or its console.
 */

let stack: TestStack;
let browser: Browser;

const account = { name: 'Ada Lovelace', email: `ada-first-run-${Date.now()}@example.com`, password: 'analytical-engine-1843' };

beforeAll(async () => {
  await ensureConsoleBuilt();
  stack = await startTestStack({ inProcessWorker: false });
  browser = await launchChromium();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

/** `expect.poll` with a timeout fit for a browser on a busy machine (its default is one second). */
function poll<T>(read: () => Promise<T> | T, timeout = 20_000) {
  return expect.poll(read, { timeout, interval: 50 });
}

/** Every uncaught exception and every console error of the page, as the browser's developer tools show them. */
function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    // A failed load names its URL only in the location.
    if (message.type() === 'error') errors.push(`console error: ${message.text()} at ${message.location().url}`);
  });
  return errors;
}

/**
 * The one error a signed-out visit shows: the session check, GET /api/user/self, answers 401 (which the shell
 * reads as "show the login page"), and Chromium reports every failed load in the console.
 */
const signedOutSessionCheck = () => `console error: Failed to load resource: the server responded with a status of 401 (Unauthorized) at ${stack.baseUrl}/api/user/self`;

/** Waits until the screen is ready or something failed, then for the network to settle; only `expected` errors may have appeared. */
async function expectCleanLoad(page: Page, errors: string[], ready: () => Promise<boolean>, expected: string[] = []): Promise<void> {
  const unexpected = () => errors.filter((error) => !expected.includes(error));
  await poll(async () => unexpected().length > 0 || (await ready())).toBe(true);
  await page.waitForLoadState('networkidle');
  expect(unexpected()).toEqual([]);
  errors.length = 0;
}

describe('the console of a first run', () => {
  it('is built by the command npm start runs', () => {
    const startScript = readFileSync(path.join(repoRoot, 'scripts/start.sh'), 'utf8');
    expect(startScript).toContain(`node ${START_CONSOLE_BUILD_ARGS.join(' ')}`);
  });

  it('carries no helper of a Node-side transform (rspack copies its runtime into the bundle as source text)', () => {
    const scripts = CONSOLE_APPS.flatMap((app) => {
      const dist = path.join(app.dir, 'dist');
      return readdirSync(dist)
        .filter((file) => file.endsWith('.js'))
        .map((file) => path.join(dist, file));
    });
    expect(scripts.length).toBeGreaterThan(CONSOLE_APPS.length);
    const wrapped = scripts.filter((file) => readFileSync(file, 'utf8').includes('__name('));
    expect(wrapped.map((file) => path.relative(repoRoot, file))).toEqual([]);
  });

  it('opens / signed out, signs in, and opens / again without an error in the page or its console', { timeout: 120_000 }, async () => {
    const signUp = await fetch(`${stack.baseUrl}/api/user/new`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(account),
    });
    expect(signUp.status).toBe(201);

    const context = await browser.newContext({ viewport: DESKTOP, baseURL: stack.baseUrl });
    const page = await context.newPage();
    page.setDefaultTimeout(20_000);
    onTestFailed(async () => {
      mkdirSync(artifactsDir, { recursive: true });
      await page.screenshot({ path: path.join(artifactsDir, 'first-run-failure.png') }).catch(() => undefined);
    });
    const errors = watchErrors(page);

    await page.goto('/');
    await expectCleanLoad(page, errors, () => page.getByRole('button', { name: 'Log in' }).isVisible(), [signedOutSessionCheck()]);
    expect(new URL(page.url()).pathname).toBe('/login');

    await page.getByLabel('Email', { exact: true }).fill(account.email);
    await page.getByLabel('Password', { exact: true }).fill(account.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL('**/projects');

    await page.goto('/');
    await expectCleanLoad(page, errors, async () => new URL(page.url()).pathname === '/projects' && (await page.getByRole('heading', { name: 'Projects' }).isVisible()));
    await context.close();
  });
});
