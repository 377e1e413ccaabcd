import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { buildApp, parseApiConfig } from '@engram/api';
import { User } from '@engram/db';
import { startScriptedModelServer, startTestStack, type ScriptedModelServer, type TestStack } from '@engram/testing';
import { ConsoleClient } from '@engram/testing/cookie-jar';
import { ensureConsoleBuilt } from '../../scripts/console-build.js';
import { artifactsDir, DESKTOP, launchChromium, screenshots } from './browser.js';

/*
 * A new account's first steps in real Chromium against the real API: the getting-started checklist
 * checks steps from what the organization really has (an agent, an API key); without a mail server
 * reset and verification codes show where the user needs them, and nothing claims an email is on its
 * way; and members whose role cannot take an action see it disabled, never refused after they try.
 */

let stack: TestStack;
let model: ScriptedModelServer;
let browser: Browser;
/** The same services without the development outbox, as a production server without a mail relay. */
let withoutOutbox: { app: FastifyInstance; baseUrl: string };

beforeAll(async () => {
  await ensureConsoleBuilt({ log: () => undefined });
  model = await startScriptedModelServer({ models: ['gpt-4o-mini'] });
  stack = await startTestStack({ baseProviders: [{ name: 'openai', providerType: 'openai', apiKey: 'test', baseUrl: model.url }], inProcessWorker: false });
  const app = await buildApp({
    config: { ...parseApiConfig({}), port: 0, logLevel: 'silent', exposeDevelopmentOutbox: false },
    services: stack.services,
    logger: false,
  });
  withoutOutbox = { app, baseUrl: await app.listen({ port: 0, host: '127.0.0.1' }) };
  browser = await launchChromium();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await withoutOutbox?.app.close();
  await stack?.stop();
  await model?.close();
});

/** `expect.poll` with a timeout fit for a browser on a busy machine (its default is one second). */
function poll<T>(read: () => Promise<T> | T, timeout = 15_000) {
  return expect.poll(read, { timeout, interval: 50 });
}

type Watched = { context: BrowserContext; page: Page; errors: string[]; refusals: string[] };

/** A page that records uncaught errors and every request the API refused with 403. */
async function newPage(failureName: string, baseURL = stack.baseUrl): Promise<Watched> {
  const context = await browser.newContext({ viewport: DESKTOP, baseURL, reducedMotion: 'reduce' });
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  const errors: string[] = [];
  const refusals: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('response', (response) => {
    if (response.status() === 403) refusals.push(`${response.request().method()} ${new URL(response.url()).pathname}`);
  });
  onTestFailed(async () => {
    mkdirSync(artifactsDir, { recursive: true });
    await page.screenshot({ path: path.join(artifactsDir, `${failureName}-failure.png`) }).catch(() => undefined);
  });
  return { context, page, errors, refusals };
}

const uniqueEmail = (label: string) => `${label}-${randomBytes(4).toString('hex')}@example.com`;

async function signUpInBrowser(page: Page, account: { name: string; email: string; password: string }): Promise<void> {
  await page.goto('/signup');
  await page.getByLabel('Name', { exact: true }).fill(account.name);
  await page.getByLabel('Email', { exact: true }).fill(account.email);
  await page.getByLabel('Password', { exact: true }).fill(account.password);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.waitForURL('**/projects');
}

/** Logs in on the login page the browser is on (or opens it), and waits for the page it comes back to. */
async function logIn(page: Page, account: { email: string; password: string }, backTo = '/projects'): Promise<void> {
  if (new URL(page.url(), 'http://x').pathname !== '/login') await page.goto('/login');
  await page.getByLabel('Email', { exact: true }).fill(account.email);
  await page.getByLabel('Password', { exact: true }).fill(account.password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.waitForURL(`**${backTo}`);
}

describe('getting started', () => {
  it('checks "Create an agent" and "Create an API key" once they exist, each step linking to where it is done', { timeout: 300_000 }, async () => {
    const { context, page, errors } = await newPage('getting-started');
    const email = uniqueEmail('ada');
    await signUpInBrowser(page, { name: 'Ada Lovelace', email, password: 'analytical-engine-1843' });
    const checklist = page.getByTestId('onboarding-checklist');
    const createAgent = checklist.getByTestId('onboarding-step-create_template');
    const createKey = checklist.getByTestId('onboarding-step-deploy_agent');
    await poll(() => createAgent.getAttribute('data-done')).toBe('false');
    expect(await createKey.getAttribute('data-done')).toBe('false');
    expect(await checklist.getByTestId('onboarding-progress').textContent()).toBe('0 of 5 done');

    // The step's link opens the form that does it; no "Done" click anywhere.
    const agentLink = createAgent.getByRole('link', { name: 'Create an agent' });
    expect(await agentLink.getAttribute('href')).toBe('/projects/default-project/agents/new');
    await agentLink.click();
    await page.waitForURL('**/projects/default-project/agents/new');
    await page.getByRole('textbox', { name: /^Name/ }).fill('first-agent');
    await page.getByPlaceholder('Choose a model').click();
    await page.getByRole('option', { name: /openai\/gpt-4o-mini/ }).click();
    await page.getByRole('button', { name: 'Create agent' }).click();
    await page.waitForURL(/\/agents\/agent-[0-9a-f-]+$/);
    const agentPath = new URL(page.url()).pathname;

    await page.getByRole('link', { name: 'Projects', exact: true }).click();
    await page.waitForURL('**/projects');
    await poll(() => createAgent.getAttribute('data-done')).toBe('true');
    expect(await checklist.getByTestId('onboarding-progress').textContent()).toBe('1 of 5 done');
    // The next step leads to the agent just made.
    expect(await checklist.getByTestId('onboarding-step-explore_ade').getByRole('link', { name: 'Send it a first message' }).getAttribute('href')).toBe(agentPath);
    await screenshots(page, 'first-steps-01-agent-checked');

    await createKey.getByRole('link', { name: 'Create an API key' }).click();
    await page.waitForURL('**/settings/api-keys');
    await page.getByRole('button', { name: 'Create API key' }).click();
    await page.getByLabel('Name', { exact: true }).fill('from the checklist');
    await page.getByRole('button', { name: 'Create key' }).click();
    await poll(() => page.getByTestId('created-api-key').isVisible()).toBe(true);
    await page.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('link', { name: 'Projects', exact: true }).click();
    await poll(() => createKey.getAttribute('data-done')).toBe('true');
    expect(await checklist.getByTestId('onboarding-progress').textContent()).toBe('2 of 5 done');
    // Nothing was clicked "Done": the stored tour never moved.
    expect((await User.query(stack.db).findOne({ email }))?.onboardingStatus).toBeNull();

    expect(errors).toEqual([]);
    await context.close();
  });
});

describe('codes without a mail server', () => {
  it('shows the reset code to the signed-in owner, sets the new password with it, and never says an email is on its way', { timeout: 300_000 }, async () => {
    const account = { name: 'Grace Hopper', email: uniqueEmail('grace'), password: 'compiler-a0-1952' };
    const { context, page, errors } = await newPage('development-mail');
    await signUpInBrowser(page, account);

    // Signed out, the reset page cannot show a code (that would hand the account to anyone), so it says where the code is.
    const anonymous = await newPage('development-mail-anonymous');
    await anonymous.page.goto('/forgot-password');
    await anonymous.page.getByLabel('Email', { exact: true }).fill(account.email);
    await anonymous.page.getByRole('button', { name: 'Email me a code' }).click();
    const noMailServer = anonymous.page.getByTestId('no-mail-server');
    await poll(() => noMailServer.isVisible()).toBe(true);
    expect(await noMailServer.textContent()).toContain('No email was sent: this server has no mail server set up (ENGRAM_SMTP_URL).');
    expect(await noMailServer.textContent()).toContain(`recipient = '${account.email}'`);
    expect(await anonymous.page.getByText('on its way').count()).toBe(0);
    await screenshots(anonymous.page, 'first-steps-02-reset-without-mail-server');
    await anonymous.context.close();

    // Signed in, the account page shows its development code.
    await page.getByRole('link', { name: 'Account', exact: true }).click();
    await page.getByRole('button', { name: 'Change password' }).click();
    const developmentCode = page.getByTestId('development-code');
    await poll(() => developmentCode.textContent()).toMatch(/^Development: your code is \d{6}$/);
    expect(await page.getByText('on its way').count()).toBe(0);
    const code = /(\d{6})$/.exec((await developmentCode.textContent()) ?? '')?.[1] ?? '';
    await page.getByLabel('Code', { exact: true }).fill(code);
    await page.getByLabel('New password', { exact: true }).fill('flow-matic-1955');
    await screenshots(page, 'first-steps-03-change-password');
    await page.getByRole('button', { name: 'Set new password' }).click();
    await poll(() => page.getByTestId('password-changed').isVisible()).toBe(true);
    await page.getByRole('button', { name: 'Log in again' }).click();
    await page.waitForURL('**/login');
    // Back to the account page it was signed out of, with the new password.
    await logIn(page, { email: account.email, password: 'flow-matic-1955' }, '/account');

    // Email verification and invitations say the same truth.
    await page.goto('/verify-email');
    await page.getByRole('button', { name: 'Email me a code' }).click();
    await poll(() => page.getByTestId('development-code').isVisible()).toBe(true);
    expect(await page.getByText('on its way').count()).toBe(0);
    await page.goto('/settings/members');
    await page.getByRole('button', { name: 'Invite member' }).click();
    await page.getByLabel('Email', { exact: true }).fill(uniqueEmail('invitee'));
    await page.getByRole('button', { name: 'Send invitation' }).click();
    await poll(() => page.getByTestId('invite-delivery').textContent()).toMatch(/^No email was sent \(this server has no mail server set up\)\. Send .+ this link; it works until /);

    expect(errors).toEqual([]);
    await context.close();
  });

  it('says where the code waits when the server does not expose its outbox', { timeout: 120_000 }, async () => {
    const account = { email: uniqueEmail('outboxless'), password: 'no-outbox-here-1' };
    const created = await new ConsoleClient(withoutOutbox.baseUrl).post('/user/new', { ...account, name: 'Outboxless' });
    expect(created.status).toBe(201);
    const { context, page, errors } = await newPage('development-mail-no-outbox', withoutOutbox.baseUrl);
    await logIn(page, account);
    await page.goto('/account');
    await page.getByRole('button', { name: 'Change password' }).click();
    await poll(() => page.getByTestId('no-mail-server').isVisible()).toBe(true);
    expect(await page.getByTestId('development-code').count()).toBe(0);
    expect(await page.getByText('on its way').count()).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe('role-aware screens', () => {
  it('shows an analyst and an editor the actions their roles cannot take as disabled, and asks the API for nothing it would refuse', { timeout: 300_000 }, async () => {
    const admin = new ConsoleClient(stack.baseUrl);
    expect((await admin.post('/user/new', { email: uniqueEmail('admin'), name: 'Admin', password: 'admin-password-1' })).status).toBe(201);
    expect((await admin.post('/api-keys', { name: 'admin key' })).status).toBe(201);
    const join = async (role: 'analyst' | 'editor') => {
      const member = { email: uniqueEmail(role), password: `${role}-password-1` };
      const invite = await admin.post('/organizations/self/invited-members', { email: member.email, role });
      const joined = await new ConsoleClient(stack.baseUrl).post('/user/new-with-invite', { ...member, name: `An ${role}`, inviteCode: invite.body.inviteCode });
      expect(joined.status).toBe(201);
      return member;
    };

    const analyst = await newPage('roles-analyst');
    await logIn(analyst.page, await join('analyst'));
    const newProject = analyst.page.getByRole('button', { name: 'New project' });
    await poll(() => newProject.isDisabled()).toBe(true);
    // The button is disabled while the role is still being checked too; the reason settles once it is known.
    await poll(() => analyst.page.getByTestId('permission-denied').first().getAttribute('aria-label')).toBe('As an analyst you cannot create projects. Ask an admin.');
    await analyst.page.getByTestId('permission-denied').first().hover();
    await poll(() => analyst.page.getByRole('tooltip').textContent()).toBe('As an analyst you cannot create projects. Ask an admin.');
    await screenshots(analyst.page, 'first-steps-04-analyst-projects');

    await analyst.page.getByRole('link', { name: 'API keys' }).click();
    await poll(() => analyst.page.getByTestId('role-notice').textContent()).toBe("As an analyst you cannot see this organization's API keys. Ask an admin.");
    expect(await analyst.page.getByRole('button', { name: 'Create API key' }).isDisabled()).toBe(true);
    expect(await analyst.page.getByTestId('api-keys-table').count()).toBe(0);

    await analyst.page.getByRole('link', { name: 'Members' }).click();
    await poll(() => analyst.page.getByTestId('member-row').count()).toBe(2);
    expect(await analyst.page.getByRole('button', { name: 'Invite member' }).isDisabled()).toBe(true);
    expect(await analyst.page.getByRole('button', { name: /^Manage / }).count()).toBe(0);
    expect(await analyst.page.getByTestId('invites-table').count()).toBe(0);

    await analyst.page.getByRole('link', { name: 'Environment variables' }).click();
    await poll(() => analyst.page.getByTestId('role-notice').isVisible()).toBe(true);
    expect(await analyst.page.getByRole('button', { name: 'Add variable' }).isDisabled()).toBe(true);
    await screenshots(analyst.page, 'first-steps-05-analyst-environment-variables');
    expect(analyst.refusals).toEqual([]);
    expect(analyst.errors).toEqual([]);
    await analyst.context.close();

    // An editor creates keys and projects, but deleting a key is an admin's.
    const editor = await newPage('roles-editor');
    await logIn(editor.page, await join('editor'));
    await poll(() => editor.page.getByRole('button', { name: 'New project' }).isEnabled()).toBe(true);
    await editor.page.getByRole('link', { name: 'API keys' }).click();
    const adminKeyRow = editor.page.getByTestId('api-keys-table').getByRole('row').filter({ hasText: 'admin key' });
    await poll(() => adminKeyRow.isVisible()).toBe(true);
    expect(await editor.page.getByRole('button', { name: 'Create API key' }).isEnabled()).toBe(true);
    expect(await adminKeyRow.getByRole('button', { name: 'Delete admin key' }).isDisabled()).toBe(true);
    await poll(() => adminKeyRow.getByTestId('permission-denied').getAttribute('aria-label')).toBe('As an editor you cannot delete API keys. Ask an admin.');
    await editor.page.getByRole('link', { name: 'Environment variables' }).click();
    await poll(() => editor.page.getByRole('button', { name: 'Add variable' }).isEnabled()).toBe(true);
    expect(await editor.page.getByTestId('role-notice').count()).toBe(0);
    await screenshots(editor.page, 'first-steps-06-editor-api-keys');
    expect(editor.refusals).toEqual([]);
    expect(editor.errors).toEqual([]);
    await editor.context.close();
  });
});
