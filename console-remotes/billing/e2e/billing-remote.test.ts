import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import type { Browser, BrowserContext, Page, Response } from 'playwright-core';
import { BillingAccount, InferenceModel, ModelStepCost, Organization, PaymentCard } from '@engram/db';
import { startScriptedModelServer, startTestStack, type ScriptedModelServer, type TestStack } from '@engram/testing';
import { requestV1 } from '@engram/testing/agent-test-context';
import { ConsoleClient } from '@engram/testing/cookie-jar';
import { startStripeTestServer, type StripeTestServer } from '@engram/testing/stripe-recorder';
import { ensureConsoleBuilt } from '../../../scripts/console-build.js';
import { artifactsDir, DESKTOP, launchChromium, screenshots } from '../../../console-shell/e2e/browser.js';

/*
 * The billing remote in real Chromium against the real API with ENGRAM_BILLING=on and Stripe's API emulated by
 * stripe-mock (behind the recording proxy of @engram/testing): a customer's steps show in the usage chart, cards are
 * saved through setup intents, credits bought and a plan upgraded, cancelled and resumed, gift codes seeded through
 * the service redeemed (each refusal with its reason), auto top-up saved, the referral link copied and used to sign
 * up; and a create refused by the plan's limit says so in the console.
 */

const tag = randomBytes(3).toString('hex');
const MODEL = `gpt-billing-ui-${tag}`;
const HANDLE = `openai/${MODEL}`;
const PASSWORD = 'billing-password-1';

let stripe: StripeTestServer;
let stack: TestStack;
let model: ScriptedModelServer;
let browser: Browser;

/** `expect.poll` with a timeout fit for a browser on a busy machine (its default is one second). */
function poll<T>(read: () => Promise<T> | T, timeout = 20_000) {
  return expect.poll(read, { timeout, interval: 50 });
}

/** A customer signed up over HTTP (the test seeds through its client) and signed in in a page of its own. */
async function customer(label: string) {
  const email = `${label}-${tag}@example.com`;
  const client = new ConsoleClient(stack.baseUrl);
  expect((await client.post('/user/new', { email, name: `${label} ${tag}`, password: PASSWORD })).status).toBe(201);
  const organization = (await client.get('/organizations/self')).body as { id: string; name: string };

  const context = await browser.newContext({ viewport: DESKTOP, baseURL: stack.baseUrl, reducedMotion: 'reduce' });
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  const errors: string[] = [];
  const scripts: Array<{ path: string; bytes: number }> = [];
  page.on('pageerror', (error) => errors.push(error.message));
  const onResponse = async (response: Response) => {
    if (!response.url().endsWith('.js')) return;
    const sizes = await response.request().sizes().catch(() => null);
    scripts.push({ path: new URL(response.url()).pathname, bytes: sizes?.responseBodySize ?? 0 });
  };
  page.on('response', (response) => void onResponse(response));
  onTestFailed(async () => {
    mkdirSync(artifactsDir, { recursive: true });
    await page.screenshot({ path: path.join(artifactsDir, `billing-${label}-failure.png`), fullPage: true }).catch(() => undefined);
  });
  return { client, organization, email, context, page, errors, scripts };
}

async function logIn(page: Page, email: string): Promise<void> {
  await page.goto('/login');
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.waitForURL('**/projects');
}

async function openBilling(page: Page): Promise<void> {
  await page.getByTestId('project-card').first().click();
  await page.waitForURL('**/projects/*/agents');
  await page.getByRole('link', { name: 'Billing', exact: true }).click();
  await page.waitForURL('**/projects/*/billing');
  await poll(() => page.getByRole('heading', { name: 'Billing' }).isVisible()).toBe(true);
}

const section = (page: Page, name: string) => page.getByRole('region', { name });

/** The balance the screen shows, once it shows one. */
async function shownBalance(page: Page): Promise<number> {
  const balance = page.getByTestId('credit-balance');
  await poll(async () => /^[\d,]+$/.test((await balance.textContent()) ?? '')).toBe(true);
  return Number(((await balance.textContent()) ?? '').replaceAll(',', ''));
}

async function storedBalance(organizationId: string): Promise<number> {
  return Number((await BillingAccount.query(stack.db).forOrg(organizationId).first())?.creditBalance ?? 0);
}

beforeAll(async () => {
  await ensureConsoleBuilt({ log: () => undefined });
  stripe = await startStripeTestServer();
  model = await startScriptedModelServer({ models: [MODEL] });
  stack = await startTestStack({
    baseProviders: [{ name: 'openai', providerType: 'openai', apiKey: 'test', baseUrl: model.url }],
    apiEnv: { ...stripe.env, ENGRAM_BILLING: 'on' },
  });
  browser = await launchChromium();
}, 600_000);

afterAll(async () => {
  await browser?.close();
  if (stack) {
    await InferenceModel.query(stack.db).where({ name: HANDLE }).delete();
    await ModelStepCost.query(stack.db).deleteById(HANDLE);
  }
  await stack?.stop();
  await model?.close();
  await stripe?.stop();
});

describe('the billing remote', () => {
  it('shows usage, saves cards, buys credits, upgrades, cancels and resumes the plan, redeems gift codes, saves auto top-up and shares the referral link', { timeout: 420_000 }, async () => {
    const user = await customer('payer');
    const { page, client, organization, scripts } = user;
    try {
      // A metered step of the organization's agent, for the usage chart.
      const apiKey = (await client.post('/api-keys', { name: 'usage' })).body.apiKey as string;
      const agent = await requestV1(stack.baseUrl, apiKey, 'POST', '/agents/', { name: 'metered', model: HANDLE, include_base_tools: false });
      expect(agent.status, JSON.stringify(agent.body)).toBe(200);
      model.enqueue({ type: 'text', text: 'Hello there.' });
      const sent = await requestV1(stack.baseUrl, apiKey, 'POST', `/agents/${agent.body.id}/messages`, { messages: [{ role: 'user', content: 'hello' }] });
      expect(sent.status, JSON.stringify(sent.body)).toBe(200);

      // The shell's first load carries no remote; the billing remote (and its chart library) loads only when opened.
      await page.goto('/login');
      await poll(() => page.getByRole('button', { name: 'Log in' }).isVisible()).toBe(true);
      await page.waitForLoadState('networkidle');
      const shellInitialGzip = scripts.filter((script) => !script.path.startsWith('/console/remotes/')).reduce((sum, script) => sum + script.bytes, 0);
      expect(scripts.some((script) => script.path.startsWith('/console/remotes/'))).toBe(false);
      expect(shellInitialGzip).toBeLessThan(250 * 1024);
      await logIn(page, user.email);
      await page.getByTestId('project-card').first().click();
      await page.waitForURL('**/projects/*/agents');
      await page.waitForLoadState('networkidle');
      expect(scripts.some((script) => script.path.startsWith('/console/remotes/billing/'))).toBe(false);
      await page.getByRole('link', { name: 'Billing', exact: true }).click();
      await page.waitForURL('**/projects/*/billing');
      await poll(() => page.getByRole('heading', { name: 'Billing' }).isVisible()).toBe(true);

      // Plan and balance: the Free tier with this month's grant; usage: the step above, as a bar of the chart.
      await poll(() => page.getByTestId('billing-tier').textContent()).toBe('Free');
      // Billing on, with Stripe: plans are sold and nothing says limits go unenforced.
      await poll(() => page.getByRole('button', { name: /^Upgrade to Pro/ }).isVisible()).toBe(true);
      expect(await page.getByTestId('billing-not-enforced').count()).toBe(0);
      const granted = await shownBalance(page);
      expect(granted).toBe(await storedBalance(organization.id));
      await page.getByRole('radiogroup', { name: 'Usage measure' }).getByText('Requests').click();
      await poll(() => page.getByTestId('usage-total').textContent()).toBe('1');
      await poll(() => page.locator('[data-testid="usage-chart"] .recharts-bar-rectangle').count()).toBeGreaterThan(0);
      const remoteGzip = scripts.filter((script) => script.path.startsWith('/console/remotes/billing/')).reduce((sum, script) => sum + script.bytes, 0);
      console.log(`[billing] shell initial JS ${(shellInitialGzip / 1024).toFixed(1)} kB gzip; billing remote with its chart ${(remoteGzip / 1024).toFixed(1)} kB gzip`);
      const quotas = section(page, "Usage against your plan's limits");
      await poll(() => quotas.getByRole('group', { name: 'Agents', exact: true }).getByTestId('quota-value').textContent()).toBe('1 of 100');
      await screenshots(page, 'billing-01-overview');

      // Cards: saved through setup intents (the first becomes the default), the default moved, one removed.
      const cards = section(page, 'Cards');
      const addCard = async (method: string) => {
        await cards.getByRole('button', { name: 'Add card' }).click();
        const dialog = page.getByRole('dialog', { name: 'Add a card' });
        await dialog.getByLabel('Payment method').selectOption(method);
        await dialog.getByRole('button', { name: 'Save card' }).click();
        await poll(() => dialog.isVisible()).toBe(false);
      };
      await addCard('pm_card_visa');
      await poll(() => cards.getByTestId('payment-card').count()).toBe(1);
      await addCard('pm_card_mastercard');
      await poll(() => cards.getByTestId('payment-card').count()).toBe(2);
      const intents = stripe.recorder.requests.filter((request) => /^\/v1\/setup_intents\/seti_\w+\/confirm$/.test(request.path));
      expect(intents.map((request) => request.params.get('payment_method'))).toEqual(expect.arrayContaining(['pm_card_visa', 'pm_card_mastercard']));
      const defaultCard = async () => (await BillingAccount.query(stack.db).forOrg(organization.id).first())?.defaultPaymentMethodId;
      expect(await defaultCard()).toBe('pm_card_visa');
      // Newest first: the Mastercard above the Visa (stripe-mock describes every card alike, so rows go by position).
      const newest = cards.getByTestId('payment-card').first();
      await newest.getByRole('button', { name: /^Make .* the default$/ }).click();
      await poll(defaultCard).toBe('pm_card_mastercard');
      await poll(() => newest.getByText('Default', { exact: true }).isVisible()).toBe(true);
      expect(await cards.getByTestId('payment-card').last().getByText('Default', { exact: true }).count()).toBe(0);
      await newest.getByRole('button', { name: /^Remove / }).click();
      await poll(() => cards.getByTestId('payment-card').count()).toBe(1);
      await poll(defaultCard).toBe('pm_card_visa');
      // An expired card is flagged and cannot pay.
      await addCard('pm_card_amex');
      await poll(() => cards.getByTestId('payment-card').count()).toBe(2);
      await PaymentCard.query(stack.db).forOrg(organization.id).where('id', 'pm_card_amex').patch({ expMonth: 1, expYear: 2024 });
      await page.reload();
      await poll(() => cards.getByTestId('payment-card').filter({ has: page.getByText('Expired', { exact: true }) }).count()).toBe(1);
      await screenshots(page, 'billing-02-cards');

      // Buying credits: the balance and the history move by what was paid.
      const before = await shownBalance(page);
      const credits = section(page, 'Credits');
      await credits.getByLabel('Credits to buy').fill('5000');
      await credits.getByRole('button', { name: 'Buy for $5.00' }).click();
      await poll(() => shownBalance(page)).toBe(before + 5000);
      expect(await storedBalance(organization.id)).toBe(before + 5000);
      const history = section(page, 'Billing history');
      const purchase = history.getByTestId('billing-history-entry').filter({ hasText: '5,000 credits' });
      await poll(() => purchase.count()).toBe(1);
      expect(await purchase.textContent()).toContain('$5.00');
      expect(await purchase.getByRole('link', { name: 'Receipt for 5,000 credits' }).getAttribute('href')).toMatch(/^https:/);
      const charges = stripe.recorder.requests.filter((request) => request.path === '/v1/payment_intents' && request.params.get('amount') === '500');
      expect(charges).toHaveLength(1);
      expect(charges[0]?.idempotencyKey).toMatch(new RegExp(`^engram:${organization.id}:credit_purchase:`));

      // Upgrade to Pro with the default card; cancel at the period's end; resume.
      const plan = section(page, 'Plan');
      await plan.getByRole('button', { name: /^Upgrade to Pro/ }).click();
      const upgrade = page.getByRole('dialog', { name: 'Upgrade to Pro' });
      await upgrade.getByRole('button', { name: 'Pay and upgrade' }).click();
      await poll(() => page.getByTestId('billing-tier').textContent()).toBe('Pro');
      expect((await Organization.query(stack.db).findById(organization.id))?.billingTier).toBe('pro');
      await poll(() => history.getByTestId('billing-history-entry').filter({ hasText: 'Engram Pro plan' }).count()).toBe(1);
      await plan.getByRole('button', { name: 'Cancel plan' }).click();
      const cancel = page.getByRole('dialog', { name: 'Cancel the Pro plan?' });
      await cancel.getByRole('button', { name: 'Cancel plan' }).click();
      await poll(() => page.getByTestId('plan-cancelled').isVisible()).toBe(true);
      expect(await page.getByTestId('plan-period').textContent()).toContain('returns to the Free plan');
      expect((await BillingAccount.query(stack.db).forOrg(organization.id).first())?.isCancelled).toBe(true);
      await screenshots(page, 'billing-03-plan-cancelled');
      await plan.getByRole('button', { name: 'Resume plan' }).click();
      await poll(() => page.getByTestId('plan-cancelled').count()).toBe(0);
      expect((await BillingAccount.query(stack.db).forOrg(organization.id).first())?.isCancelled).toBe(false);
      expect(await page.getByTestId('billing-tier').textContent()).toBe('Pro');

      // Gift codes seeded through the service: one redeemed (the balance moves), then each refusal with its reason.
      const giftCodes = stack.services.giftCodes;
      const welcome = await giftCodes.createGiftCode({ name: 'welcome', code: `WELCOME-${tag}`, description: 'ui', redemptionAmount: 1500, maxUses: 10 });
      const disabled = await giftCodes.createGiftCode({ name: 'disabled', code: `OFF-${tag}`, description: 'ui', redemptionAmount: 10, maxUses: 10 });
      await giftCodes.setGiftCodeDisabled(disabled.id, true);
      const expired = await giftCodes.createGiftCode({
        name: 'expired',
        code: `OLD-${tag}`,
        description: 'ui',
        redemptionAmount: 10,
        maxUses: 10,
        expiresAt: new Date(Date.now() - 60_000),
      });
      const usedUp = await giftCodes.createGiftCode({ name: 'used up', code: `ONCE-${tag}`, description: 'ui', redemptionAmount: 10, maxUses: 1 });
      await giftCodes.redeem((await stack.createTenant('gift rival')).organizationId, usedUp.code);

      const gift = section(page, 'Gift code');
      const redeem = async (code: string) => {
        await gift.getByLabel('Code', { exact: true }).fill(code);
        await gift.getByRole('button', { name: 'Redeem' }).click();
      };
      const beforeGift = await shownBalance(page);
      await redeem(welcome.code.toLowerCase());
      await poll(() => gift.getByTestId('gift-code-redeemed').textContent()).toBe(`${welcome.code}: 1,500 credits added.`);
      await poll(() => shownBalance(page)).toBe(beforeGift + 1500);
      const refusals: Array<[string, string]> = [
        [welcome.code, 'Your organization has already redeemed this gift code'],
        [`NOPE-${tag}`, 'This gift code does not exist'],
        [disabled.code, 'This gift code is disabled'],
        [expired.code, 'This gift code has expired'],
        [usedUp.code, 'This gift code has been used up'],
      ];
      for (const [code, reason] of refusals) {
        await redeem(code);
        const alert = gift.getByRole('alert');
        await poll(() => alert.textContent()).toContain(reason);
        expect(await alert.textContent()).toContain('The gift code was not redeemed');
      }
      expect(await shownBalance(page)).toBe(beforeGift + 1500);
      await screenshots(page, 'billing-04-gift-code-refused');

      // Auto top-up: saved, and the same settings after a reload.
      const topUp = section(page, 'Auto top-up');
      await topUp.getByRole('switch', { name: 'Refill credits automatically from the default card' }).click({ force: true });
      await topUp.getByLabel('When the balance falls below').fill('1000');
      await topUp.getByLabel('Buy', { exact: true }).fill('5000');
      await topUp.getByLabel('Spend at most per month').fill('20000');
      await topUp.getByRole('button', { name: 'Save auto top-up' }).click();
      await poll(() => topUp.getByTestId('auto-top-up-saved').isVisible()).toBe(true);
      expect((await client.get('/organizations/self/auto-top-up')).body).toEqual({
        threshold: 1000,
        refillAmount: 5000,
        maxMonthlySpend: 20000,
        enabled: true,
        disabledReason: null,
      });
      await page.reload();
      await poll(() => topUp.getByLabel('When the balance falls below').inputValue()).toBe('1000');
      expect(await topUp.getByLabel('Buy', { exact: true }).inputValue()).toBe('5000');
      expect(await topUp.getByLabel('Spend at most per month').inputValue()).toBe('20000');
      expect(await topUp.getByRole('switch', { name: 'Refill credits automatically from the default card' }).isChecked()).toBe(true);

      // Referrals: no link while the platform's programme is off; once on, the link with the organization's code,
      // copied, signs a new organization up with it (both rewarded).
      const referral = section(page, 'Referrals');
      await poll(() => referral.getByTestId('referrals-closed').isVisible()).toBe(true);
      await stack.services.referrals.setReferralConfiguration({ enabled: true, referrerRewardAmount: 300, referredRewardAmount: 100, maxReferralRewardPerOrg: 1000 });
      try {
        await page.reload();
        const code = (await client.get('/referral/code')).body.code as string;
        const link = `${stack.baseUrl}/signup?referralCode=${code}`;
        await poll(() => referral.getByLabel('Your referral link').inputValue()).toBe(link);
        await referral.getByRole('button', { name: 'Copy' }).click();
        await poll(() => referral.getByRole('button', { name: 'Copied' }).isVisible()).toBe(true);
        await screenshots(page, 'billing-05-auto-top-up-and-referral');

        const beforeReferral = await storedBalance(organization.id);
        const friend = await browser.newContext({ viewport: DESKTOP, baseURL: stack.baseUrl });
        try {
          const friendPage = await friend.newPage();
          await friendPage.goto(link);
          await poll(() => friendPage.getByTestId('referral-code').textContent()).toBe(`Signing up with referral code ${code}.`);
          await friendPage.getByLabel('Name', { exact: true }).fill('Referred Friend');
          await friendPage.getByLabel('Email', { exact: true }).fill(`friend-${tag}@example.com`);
          await friendPage.getByLabel('Password', { exact: true }).fill(PASSWORD);
          await friendPage.getByRole('button', { name: 'Create account' }).click();
          await friendPage.waitForURL('**/projects');
        } finally {
          await friend.close();
        }
        await poll(() => storedBalance(organization.id)).toBe(beforeReferral + 300);
        await page.reload();
        await poll(() => referral.getByTestId('referral-stats').textContent()).toBe('1 organization joined · 300 credits earned');
      } finally {
        await stack.services.referrals.setReferralConfiguration({ enabled: false });
      }
      expect(user.errors).toEqual([]);
    } finally {
      await user.context.close();
    }
  });

  it("says so when a create is refused by the plan's limit, and links to the plan", { timeout: 240_000 }, async () => {
    const user = await customer('limited');
    const { page, client } = user;
    try {
      // Fill the Free plan's projects and API keys over HTTP, up to the refusal.
      let project = { status: 201, body: {} as { errorCode?: string; limit?: number } };
      for (let index = 0; project.status === 201 && index < 30; index++) project = await client.post('/projects', { name: `Project ${index}` });
      expect(project.body).toMatchObject({ errorCode: 'projectLimitReached', limit: 25 });
      let key = { status: 201, body: {} as { errorCode?: string; limit?: number } };
      for (let index = 0; key.status < 400 && index < 30; index++) key = await client.post('/api-keys', { name: `key ${index}` });
      expect(key.body).toMatchObject({ errorCode: 'maxUsage', limit: 25 });

      await logIn(page, user.email);
      await page.getByRole('button', { name: 'New project' }).click();
      await page.getByLabel('Project name', { exact: true }).fill('One too many');
      await page.getByRole('button', { name: 'Create project' }).click();
      const projectRefusal = page.getByRole('dialog').getByTestId('tier-limit-notice');
      await poll(() => projectRefusal.isVisible()).toBe(true);
      expect(await projectRefusal.textContent()).toContain('The project was not created');
      expect(await projectRefusal.textContent()).toContain('Your plan allows 25 projects.');
      expect(await projectRefusal.textContent()).toContain('Your organization has reached this limit of its plan.');
      await screenshots(page, 'billing-06-project-limit');
      await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();

      await page.goto('/settings/api-keys');
      await page.getByRole('button', { name: 'Create API key' }).click();
      await page.getByRole('dialog').getByLabel('Name').fill('one too many');
      await page.getByRole('dialog').getByRole('button', { name: 'Create key' }).click();
      const keyRefusal = page.getByRole('dialog').getByTestId('tier-limit-notice');
      await poll(() => keyRefusal.isVisible()).toBe(true);
      expect(await keyRefusal.textContent()).toContain('The key was not created');
      expect(await keyRefusal.textContent()).toContain('Your plan allows 25 API keys.');
      await screenshots(page, 'billing-07-api-key-limit');

      // The notice leads to the plan, where the quotas show the limits reached.
      await keyRefusal.getByRole('link', { name: 'See your plan and usage' }).click();
      await page.waitForURL('**/projects/*/billing');
      const quotas = section(page, "Usage against your plan's limits");
      await poll(() => quotas.getByRole('group', { name: 'API keys', exact: true }).getByTestId('quota-value').textContent()).toBe('25 of 25');
      expect(await quotas.getByRole('group', { name: 'Projects', exact: true }).getByTestId('quota-value').textContent()).toBe('25 of 25');
      expect(user.errors).toEqual([]);
    } finally {
      await user.context.close();
    }
  });
});
