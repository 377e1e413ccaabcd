import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { BillingAccount, InferenceModel, ModelStepCost, Organization } from '@engram/db';
import { startScriptedModelServer, startTestStack, type ScriptedModelServer, type TestStack } from '@engram/testing';
import { requestV1 } from '@engram/testing/agent-test-context';
import { ConsoleClient } from '@engram/testing/cookie-jar';
import { ensureConsoleBuilt } from '../../../scripts/console-build.js';
import { artifactsDir, DESKTOP, launchChromium, screenshots } from '../../../console-shell/e2e/browser.js';

/*
 * The platform admin remote in real Chromium against the real API, which serves the built console (built with the
 * command `npm start` runs): a platform admin (ENGRAM_ADMIN_EMAILS) finds an organization, adds credits, bans and
 * unbans it, disables a model, creates a gift code and sees its redemption; an ordinary account never loads the remote.
 */

const tag = randomBytes(3).toString('hex');
const ADMIN = { name: 'Grace Admin', email: `platform-admin-${tag}@example.com`, password: 'admin-password-1906' };
const MODEL = `gpt-admin-ui-${tag}`;
const HANDLE = `openai/${MODEL}`;

let stack: TestStack;
let model: ScriptedModelServer;
let browser: Browser;
let admin: { context: BrowserContext; page: Page; errors: string[]; requests: string[] };

/** `expect.poll` with a timeout fit for a browser on a busy machine (its default is one second). */
function poll<T>(read: () => Promise<T> | T, timeout = 15_000) {
  return expect.poll(read, { timeout, interval: 50 });
}

/** A page that records uncaught errors and the path of every request it makes. */
async function watchedPage(failureName: string) {
  const context = await browser.newContext({ viewport: DESKTOP, baseURL: stack.baseUrl, reducedMotion: 'reduce' });
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  const errors: string[] = [];
  const requests: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('request', (request) => requests.push(new URL(request.url()).pathname));
  onTestFailed(async () => {
    mkdirSync(artifactsDir, { recursive: true });
    await page.screenshot({ path: path.join(artifactsDir, `${failureName}-failure.png`) }).catch(() => undefined);
  });
  return { context, page, errors, requests };
}

async function signUpInBrowser(page: Page, account: { name: string; email: string; password: string }): Promise<void> {
  await page.goto('/signup');
  await page.getByLabel('Name', { exact: true }).fill(account.name);
  await page.getByLabel('Email', { exact: true }).fill(account.email);
  await page.getByLabel('Password', { exact: true }).fill(account.password);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.waitForURL('**/projects');
}

/** An organization of a customer, signed up over HTTP, with an API key and an agent on the test model. */
async function customer(label: string) {
  const client = new ConsoleClient(stack.baseUrl);
  const name = `${label} ${tag}`;
  expect((await client.post('/user/new', { email: `${label.toLowerCase().replace(/\W+/g, '-')}-${tag}@example.com`, name, password: 'customer-password-1' })).status).toBe(201);
  const organization = (await client.get('/organizations/self')).body as { id: string; name: string };
  const apiKey = (await client.post('/api-keys', { name: 'checks' })).body.apiKey as string;
  const agent = await requestV1(stack.baseUrl, apiKey, 'POST', '/agents/', { name: `${label.toLowerCase()}-agent`, model: HANDLE, include_base_tools: false });
  expect(agent.status, JSON.stringify(agent.body)).toBe(200);
  return { client, organization, apiKey, agentId: agent.body.id as string };
}

const send = (apiKey: string, agentId: string) =>
  requestV1(stack.baseUrl, apiKey, 'POST', `/agents/${agentId}/messages/async`, { messages: [{ role: 'user', content: 'hello' }] });

/** Opens one of the admin screens from the remote's own navigation. */
async function openSection(page: Page, label: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Platform admin' }).getByRole('link', { name: label }).click();
}

beforeAll(async () => {
  await ensureConsoleBuilt({ log: () => undefined });
  model = await startScriptedModelServer({ models: [MODEL] });
  stack = await startTestStack({
    baseProviders: [{ name: 'openai', providerType: 'openai', apiKey: 'test', baseUrl: model.url }],
    inProcessWorker: false,
    apiEnv: { ENGRAM_ADMIN_EMAILS: ADMIN.email },
  });
  browser = await launchChromium();
}, 300_000);

afterAll(async () => {
  await admin?.context.close();
  await browser?.close();
  await InferenceModel.query(stack.db).where({ name: HANDLE }).delete();
  await ModelStepCost.query(stack.db).deleteById(HANDLE);
  await stack?.stop();
  await model?.close();
});

describe('the admin remote, for a platform admin', () => {
  it('finds an organization, adds credits to it, bans and unbans it, and sets how it pays', { timeout: 240_000 }, async () => {
    const target = await customer('Acme Robotics');
    admin = await watchedPage('admin-organizations');
    const { page } = admin;
    await signUpInBrowser(page, ADMIN);
    await page.getByTestId('project-card').first().click();
    await page.getByRole('link', { name: 'Admin', exact: true }).click();
    await page.waitForURL('**/admin');
    await poll(() => page.getByRole('heading', { name: 'Organizations' }).isVisible()).toBe(true);
    expect(admin.requests).toContain('/console/remotes/admin/mf-manifest.json');

    await page.getByLabel('Search organizations').fill(`acme robotics ${tag}`);
    const rows = page.getByTestId('organization-row');
    await poll(() => rows.count()).toBe(1);
    await screenshots(page, 'admin-01-organizations');
    await rows.getByRole('link', { name: target.organization.name }).click();
    await poll(() => page.getByRole('heading', { name: target.organization.name }).isVisible()).toBe(true);
    await poll(() => page.getByRole('row', { name: /acme-robotics-.*@example\.com/ }).isVisible()).toBe(true);

    // Credits: the balance shown moves by what was added, and so does the ledger.
    const balance = page.getByTestId('credit-balance');
    await poll(async () => /^\d+$/.test((await balance.textContent()) ?? '')).toBe(true);
    const before = Number(await balance.textContent());
    await page.getByLabel('Amount').fill('250');
    await page.getByRole('button', { name: 'Add credits' }).click();
    await poll(async () => Number(await balance.textContent())).toBe(before + 250);
    expect((await target.client.get('/organizations/self/credits')).body.credits).toBe(before + 250);

    // Ban, after saying what it does: the organization's key is refused at once; unban restores it.
    await page.getByRole('button', { name: 'Ban organization', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: `Ban ${target.organization.name}?` });
    await poll(() => dialog.isVisible()).toBe(true);
    await screenshots(page, 'admin-02-ban-confirm');
    await dialog.getByRole('button', { name: 'Ban organization', exact: true }).click();
    await poll(() => page.getByTestId('ban-notice').textContent()).toBe('Banned: 0 runs in flight were cancelled.');
    await poll(() => page.getByRole('button', { name: 'Unban organization', exact: true }).isVisible()).toBe(true);
    expect((await requestV1(stack.baseUrl, target.apiKey, 'GET', `/agents/${target.agentId}`)).status).toBe(403);
    await page.getByRole('button', { name: 'Unban organization', exact: true }).click();
    await poll(() => page.getByRole('button', { name: 'Ban organization', exact: true }).isVisible()).toBe(true);
    expect((await requestV1(stack.baseUrl, target.apiKey, 'GET', `/agents/${target.agentId}`)).status).toBe(200);

    // Billing: an enterprise deal paid by usage; the billing method cannot be refreshed without a payment provider.
    const billing = page.getByTestId('organization-billing');
    await billing.getByLabel('Tier', { exact: true }).selectOption('enterprise');
    await billing.getByLabel('Pricing model', { exact: true }).selectOption('cpm');
    await billing.getByRole('button', { name: 'Save billing settings' }).click();
    await poll(async () => (await Organization.query(stack.db).findById(target.organization.id))?.billingTier).toBe('enterprise');
    await poll(async () => (await BillingAccount.query(stack.db).forOrg(target.organization.id).first())?.pricingModel).toBe('cpm');
    await poll(() => billing.getByRole('button', { name: 'Save billing settings' }).isDisabled()).toBe(true);
    await billing.getByRole('button', { name: 'Refresh from payment provider' }).click();
    const notRefreshed = billing.getByRole('alert').filter({ hasText: 'The billing method was not refreshed' });
    await poll(() => notRefreshed.textContent()).toContain('No payment provider (Stripe) is configured on this platform');
    await billing.getByLabel('Billing method', { exact: true }).selectOption('enterprise');
    await poll(async () => (await BillingAccount.query(stack.db).forOrg(target.organization.id).first())?.billingMethod).toBe('enterprise');
    await billing.getByRole('button', { name: 'Refresh from payment provider' }).click();
    await poll(() => billing.getByTestId('billing-method-details').textContent()).toMatch(/last refreshed (?!never)/);
    await screenshots(page, 'admin-03-organization-billing');
    expect(admin.errors).toEqual([]);
  });

  it('registers a model, disables it (new runs on it are refused until it is enabled again) and sets what its steps cost', { timeout: 120_000 }, async () => {
    const { page } = admin;
    const target = await customer('Model user');
    await openSection(page, 'Models');
    await page.getByLabel('Model name').fill(HANDLE);
    await page.getByLabel('Endpoint').fill('https://api.openai.com/v1');
    await page.getByRole('button', { name: 'Register model' }).click();
    const enabled = page.getByRole('switch', { name: `${HANDLE} enabled` });
    await poll(() => enabled.isChecked()).toBe(true);

    await enabled.click({ force: true });
    await poll(() => enabled.isChecked()).toBe(false);
    await poll(async () => (await InferenceModel.query(stack.db).findOne({ name: HANDLE }))?.disabledAt instanceof Date).toBe(true);
    await screenshots(page, 'admin-04-model-disabled');
    const refused = await send(target.apiKey, target.agentId);
    expect(refused).toEqual({
      status: 400,
      body: { detail: `The model ${HANDLE} has been disabled by the platform administrators; choose another model for this agent.` },
    });

    await enabled.click({ force: true });
    await poll(() => enabled.isChecked()).toBe(true);
    await poll(async () => (await InferenceModel.query(stack.db).findOne({ name: HANDLE }))?.disabledAt ?? null).toBeNull();
    expect((await send(target.apiKey, target.agentId)).status).toBe(200);

    // What a step of it costs: the platform's defaults until the admin sets its own.
    await page.getByRole('row', { name: new RegExp(HANDLE) }).getByRole('button', { name: 'Step costs' }).click();
    const dialog = page.getByRole('dialog', { name: `Step costs of ${HANDLE}` });
    await poll(() => dialog.getByTestId('step-cost-row').count()).toBeGreaterThan(0);
    const rows = await dialog.getByTestId('step-cost-row').count();
    for (let row = rows; row > 1; row--) await dialog.getByRole('button', { name: `Remove row ${row}` }).click();
    await dialog.getByLabel('Context window of row 1').fill('32000');
    await dialog.getByLabel('Cost of row 1').fill('3');
    await dialog.getByRole('button', { name: 'Add row' }).click();
    await dialog.getByLabel('Context window of row 2').fill('128000');
    await dialog.getByLabel('Cost of row 2').fill('7');
    await screenshots(page, 'admin-05-step-costs');
    await dialog.getByRole('button', { name: 'Save step costs' }).click();
    await poll(() => dialog.isVisible()).toBe(false);
    expect((await ModelStepCost.query(stack.db).findById(HANDLE))?.costs).toEqual([
      { maxContextWindowSize: 32000, cost: 3 },
      { maxContextWindowSize: 128000, cost: 7 },
    ]);
    expect(admin.errors).toEqual([]);
  });

  it('creates a gift code and lists the organization that redeemed it', { timeout: 120_000 }, async () => {
    const { page } = admin;
    const target = await customer('Gift taker');
    const code = `WELCOME${tag.toUpperCase()}`;
    await openSection(page, 'Gift codes & referrals');
    await page.getByLabel('Name', { exact: true }).fill('Welcome week');
    await page.getByLabel('Code', { exact: true }).fill(code);
    await page.getByLabel('Description', { exact: true }).fill('Credits for the launch week');
    await page.getByLabel('Credits', { exact: true }).fill('1500');
    await page.getByRole('button', { name: 'Create gift code' }).click();
    const card = page.getByTestId('gift-code').filter({ hasText: code });
    await poll(() => card.isVisible()).toBe(true);
    expect(await card.textContent()).toContain('1500 credits · used 0');

    // A taken code is refused with the reason, and nothing else is created.
    await page.getByLabel('Name', { exact: true }).fill('Copy');
    await page.getByLabel('Code', { exact: true }).fill(code.toLowerCase());
    await page.getByLabel('Description', { exact: true }).fill('Same code again');
    await page.getByRole('button', { name: 'Create gift code' }).click();
    await poll(() => page.getByRole('alert').filter({ hasText: 'The gift code was not created' }).isVisible()).toBe(true);
    expect(await page.getByTestId('gift-code').filter({ hasText: code }).count()).toBe(1);

    expect((await target.client.post('/gift-codes/redeem', { code })).status).toBe(200);
    await card.getByRole('button', { name: 'Redemptions' }).click();
    const redemptions = card.getByTestId('redemptions');
    await poll(() => redemptions.getByRole('row').count()).toBe(1);
    const redemption = (await redemptions.getByRole('row').first().textContent()) ?? '';
    expect(redemption).toContain(target.organization.name);
    expect(redemption).toContain('1500 credits');
    await screenshots(page, 'admin-06-gift-code-redemptions');
    expect(admin.errors).toEqual([]);
  });
});

describe('the admin remote, for everyone else', () => {
  it('is neither listed nor loaded for an account that is not a platform admin, even at its address', { timeout: 120_000 }, async () => {
    const member = await watchedPage('admin-not-loaded');
    const { page, requests } = member;
    try {
      await signUpInBrowser(page, { name: 'Ordinary member', email: `member-${tag}@example.com`, password: 'member-password-1' });
      await page.getByTestId('project-card').first().click();
      // The project opens on its first remote.
      await page.waitForURL('**/projects/*/agents');
      await poll(() => page.getByRole('link', { name: 'Agents', exact: true }).isVisible()).toBe(true);
      expect(await page.getByRole('link', { name: 'Admin', exact: true }).count()).toBe(0);

      const manifest = (await (await member.context.request.get('/console/remotes.json')).json()) as { remotes: Array<{ name: string }> };
      expect(manifest.remotes.map((remote) => remote.name)).toContain('agents');
      expect(manifest.remotes.map((remote) => remote.name)).not.toContain('admin');

      // Typing the admin area's address shows the console's 404: the remote is never fetched.
      await page.goto(new URL(page.url()).pathname.replace(/\/agents$/, '/admin'));
      await page.waitForURL('**/projects/*/admin');
      await poll(() => page.getByText('There is nothing at this address.').isVisible()).toBe(true);
      expect(requests.filter((request) => request.startsWith('/console/remotes/admin/'))).toEqual([]);
      expect(requests).toContain('/console/remotes/agents/mf-manifest.json');
      expect((await member.context.request.get('/api/admin/organizations')).status()).toBe(403);
      expect(member.errors).toEqual([]);
    } finally {
      await member.context.close();
    }
  });
});
