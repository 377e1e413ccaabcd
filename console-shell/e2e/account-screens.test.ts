import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { EnvironmentVariable, OrganizationInvite, OrganizationMember, User } from '@engram/db';
import { startTestStack, type TestStack } from '@engram/testing';
import { ensureConsoleBuilt } from '../../scripts/console-build.js';
import { artifactsDir, DESKTOP, launchChromium, screenshots } from './browser.js';

/*
 * The account screens in real Chromium against the real API: sign-up and email verification with
 * the development outbox's code, inviting a second person who joins through the invite link, their
 * role changed to a custom one, the onboarding checklist ticking itself, and an organization environment variable.
 */

let stack: TestStack;
let browser: Browser;

const run = Date.now();
const admin = { name: 'Ada Lovelace', email: `ada-${run}@example.com`, password: 'analytical-engine-1843' };
const invitee = { name: 'Grace Hopper', email: `grace-${run}@example.com`, password: 'compiler-a0-1952' };

beforeAll(async () => {
  await ensureConsoleBuilt({ log: () => undefined });
  stack = await startTestStack({ inProcessWorker: false });
  browser = await launchChromium();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

/** `expect.poll` with a timeout fit for a browser on a busy machine (its default is one second). */
function poll<T>(read: () => Promise<T> | T, timeout = 15_000) {
  return expect.poll(read, { timeout, interval: 50 });
}

async function newPage(failureName: string): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await browser.newContext({ viewport: DESKTOP, baseURL: stack.baseUrl });
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  onTestFailed(async () => {
    mkdirSync(artifactsDir, { recursive: true });
    await page.screenshot({ path: path.join(artifactsDir, `${failureName}-failure.png`) }).catch(() => undefined);
  });
  return { context, page, errors };
}

/** A six-digit code that is not `code`. */
const anotherCode = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

describe('account screens', () => {
  it('signs up, verifies the email with the outbox code, invites a member who joins by link, changes their role, and manages environment variables', { timeout: 300_000 }, async () => {
    const { context, page, errors } = await newPage('account-admin');
    const dialog = page.getByRole('dialog');

    // Sign up: the projects screen asks to verify the email and shows the getting-started checklist.
    await page.goto('/signup');
    await page.getByLabel('Name', { exact: true }).fill(admin.name);
    await page.getByLabel('Email', { exact: true }).fill(admin.email);
    await page.getByLabel('Password', { exact: true }).fill(admin.password);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL('**/projects');
    await poll(() => page.getByTestId('verify-email-notice').isVisible()).toBe(true);
    const checklist = page.getByTestId('onboarding-checklist');
    await poll(() => checklist.isVisible()).toBe(true);

    // Onboarding ticks itself: opening Billing from its step ticks that step (claimed once); no step asks for a click on Done.
    expect(await checklist.getByRole('button', { name: 'Done' }).count()).toBe(0);
    await checklist.getByTestId('onboarding-step-about_credits').getByRole('link', { name: 'Look at Billing' }).click();
    await page.waitForURL('**/billing');
    await page.goto('/projects');
    await poll(() => checklist.getByTestId('onboarding-step-about_credits').getAttribute('data-done')).toBe('true');
    expect(await checklist.getByTestId('onboarding-progress').textContent()).toBe('1 of 5 done');
    await screenshots(page, 'account-01-getting-started');
    const adminUser = await User.query(stack.db).findOne({ email: admin.email });
    expect(adminUser?.onboardingStatus).toMatchObject({ claimedSteps: ['about_credits'] });
    await checklist.getByRole('button', { name: 'Hide for now' }).click();
    await poll(() => page.getByTestId('onboarding-paused').isVisible()).toBe(true);
    await page.getByRole('button', { name: 'Show it again' }).click();
    await poll(() => page.getByTestId('onboarding-checklist').isVisible()).toBe(true);

    // Email verification: in development the code shows on the screen, read from the outbox.
    await page.getByTestId('verify-email-notice').getByRole('link', { name: 'Verify email' }).click();
    await page.waitForURL('**/verify-email');
    await page.getByRole('button', { name: 'Email me a code' }).click();
    const developmentCode = page.getByTestId('development-code');
    await poll(() => developmentCode.textContent()).toMatch(/^Development: your code is \d{6}$/);
    const code = /(\d{6})$/.exec((await developmentCode.textContent()) ?? '')?.[1] ?? '';
    await page.getByRole('button', { name: 'Verify email' }).click();
    await poll(() => page.getByText('Enter the code from the email').isVisible()).toBe(true);
    await page.getByLabel('Code', { exact: true }).fill(anotherCode(code));
    await page.getByRole('button', { name: 'Verify email' }).click();
    await poll(() => page.getByRole('alert').filter({ hasText: 'Invalid verification code' }).isVisible()).toBe(true);
    await screenshots(page, 'account-02-verify-email');
    // A reload keeps the code field and what was typed in it; asking for another code at once says how long to wait.
    await page.reload();
    await poll(() => page.getByLabel('Code', { exact: true }).inputValue()).toBe(anotherCode(code));
    await page.getByRole('button', { name: 'Send a new code' }).click();
    await poll(() => page.getByRole('alert').filter({ hasText: /you can ask for another in \d+ seconds?/ }).isVisible()).toBe(true);
    await page.getByLabel('Code', { exact: true }).fill(code);
    await page.getByRole('button', { name: 'Verify email' }).click();
    await poll(() => page.getByTestId('email-verified').isVisible()).toBe(true);
    expect((await User.query(stack.db).findOne({ email: admin.email }))?.emailVerifiedAt).toBeInstanceOf(Date);
    await page.getByRole('link', { name: 'Continue to projects' }).click();
    await page.waitForURL('**/projects');
    await poll(() => page.getByTestId('project-card').count()).toBe(1);
    expect(await page.getByTestId('verify-email-notice').count()).toBe(0);

    // An invitation, with the form's own validation first.
    await page.getByRole('link', { name: 'Members' }).click();
    await page.getByRole('button', { name: 'Invite member' }).click();
    await page.getByLabel('Email', { exact: true }).fill('not-an-email');
    await page.getByRole('button', { name: 'Send invitation' }).click();
    await poll(() => page.getByText('Enter a valid email address').isVisible()).toBe(true);
    await page.getByLabel('Email', { exact: true }).fill(invitee.email);
    await page.getByLabel('Role', { exact: true }).selectOption('editor');
    await page.getByRole('button', { name: 'Send invitation' }).click();
    const inviteLink = page.getByTestId('created-invite').getByRole('textbox', { name: 'Invite link' });
    await poll(() => inviteLink.inputValue()).toMatch(new RegExp(`^${stack.baseUrl}/invites/[A-Za-z0-9_-]+$`));
    const link = await inviteLink.inputValue();
    await screenshots(page, 'account-03-invite-created');
    await page.getByRole('button', { name: 'Done' }).click();
    await poll(() => page.getByTestId('invite-row').filter({ hasText: invitee.email }).isVisible()).toBe(true);
    await screenshots(page, 'account-04-pending-invite');

    // Inviting the same address again: the API's message.
    await page.getByRole('button', { name: 'Invite member' }).click();
    await page.getByLabel('Email', { exact: true }).fill(invitee.email);
    await page.getByRole('button', { name: 'Send invitation' }).click();
    await poll(() => page.getByRole('alert').filter({ hasText: 'User already invited' }).isVisible()).toBe(true);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await poll(() => dialog.count()).toBe(0);

    // Another invitation gets a new code (the old link stops working), then is revoked.
    const other = `other-${run}@example.com`;
    await page.getByRole('button', { name: 'Invite member' }).click();
    await dialog.getByLabel('Email', { exact: true }).fill(other);
    await dialog.getByRole('button', { name: 'Send invitation' }).click();
    await dialog.getByRole('button', { name: 'Done' }).click();
    const otherRow = page.getByTestId('invite-row').filter({ hasText: other });
    const firstCode = (await OrganizationInvite.query(stack.db).findOne({ email: other }))?.inviteCode;
    await otherRow.getByRole('button', { name: `New invite code for ${other}` }).click();
    await poll(async () => (await OrganizationInvite.query(stack.db).findOne({ email: other }))?.inviteCode).not.toBe(firstCode);
    await otherRow.getByRole('button', { name: `Revoke invitation for ${other}` }).click();
    await dialog.getByRole('button', { name: 'Revoke invitation' }).click();
    await poll(() => otherRow.count()).toBe(0);
    expect(await OrganizationInvite.query(stack.db).findOne({ email: other })).toBeUndefined();

    // The invitee opens the link in a browser of their own and joins.
    const second = await newPage('account-invitee');
    await second.page.goto(link);
    await poll(() => second.page.getByRole('heading', { name: `Join ${admin.name}'s organization` }).isVisible()).toBe(true);
    expect(await second.page.getByLabel('Email', { exact: true }).inputValue()).toBe(invitee.email);
    await second.page.getByLabel('Name', { exact: true }).fill(invitee.name);
    await second.page.getByLabel('Password', { exact: true }).fill('short');
    await second.page.getByRole('button', { name: 'Create account and join' }).click();
    await poll(() => second.page.getByText('Password must be at least 8 characters long').isVisible()).toBe(true);
    await screenshots(second.page, 'account-05-invite-accept');
    await second.page.getByLabel('Password', { exact: true }).fill(invitee.password);
    await second.page.getByRole('button', { name: 'Create account and join' }).click();
    await second.page.waitForURL('**/projects');
    await poll(() => second.page.getByTestId('current-organization').textContent()).toBe(`${admin.name}'s organization`);
    // The code is used up: the link now says so.
    await second.page.goto(link);
    await poll(() => second.page.getByTestId('invite-invalid').isVisible()).toBe(true);
    expect(second.errors).toEqual([]);
    await second.context.close();

    // The admin sees the new member with the invited role, and the invitation gone.
    await page.reload();
    const inviteeRow = page.getByTestId('member-row').filter({ hasText: invitee.email });
    await poll(() => inviteeRow.getByTestId('member-role').textContent()).toBe('editor');
    await poll(() => page.getByTestId('invite-row').count()).toBe(0);

    // A custom role with two permissions.
    await inviteeRow.getByRole('button', { name: `Manage ${invitee.name}` }).click();
    await page.getByRole('menuitem', { name: 'Change role' }).click();
    await page.getByLabel('Role', { exact: true }).selectOption('custom');
    await page.getByRole('checkbox', { name: 'Agents: Read' }).check();
    await page.getByRole('checkbox', { name: 'Agents: Message' }).check();
    await screenshots(page, 'account-06-custom-role');
    await page.getByRole('button', { name: 'Save role' }).click();
    await poll(() => inviteeRow.getByTestId('member-role').textContent()).toBe('custom');
    const inviteeUser = await User.query(stack.db).findOne({ email: invitee.email });
    const membership = await OrganizationMember.query(stack.db).findOne({ userId: inviteeUser?.id ?? '' });
    expect(membership).toMatchObject({ role: 'custom', customPermissions: ['read_agents', 'message_agents'] });
    await screenshots(page, 'account-07-members');

    // Environment variables: the key's charset is checked before the API is asked; a taken key shows the API's message.
    await page.getByRole('link', { name: 'Environment variables' }).click();
    await poll(() => page.getByText('No environment variables yet').isVisible()).toBe(true);
    await page.getByRole('button', { name: 'Add variable' }).click();
    await dialog.getByLabel('Key', { exact: true }).fill('WEATHER-API-KEY');
    await dialog.getByLabel('Value', { exact: true }).fill('first-secret');
    await dialog.getByRole('button', { name: 'Add variable' }).click();
    await poll(() => dialog.getByText('Key must contain only letters, digits and underscores').isVisible()).toBe(true);
    await dialog.getByLabel('Key', { exact: true }).fill('WEATHER_API_KEY');
    await dialog.getByRole('button', { name: 'Add variable' }).click();
    const variableRow = page.getByTestId('environment-variable-row').filter({ hasText: 'WEATHER_API_KEY' });
    await poll(() => variableRow.isVisible()).toBe(true);
    await poll(() => dialog.count()).toBe(0);
    await page.getByRole('button', { name: 'Add variable' }).click();
    await dialog.getByLabel('Key', { exact: true }).fill('WEATHER_API_KEY');
    await dialog.getByLabel('Value', { exact: true }).fill('second-secret');
    await dialog.getByRole('button', { name: 'Add variable' }).click();
    await poll(() => page.getByRole('alert').filter({ hasText: 'A variable named WEATHER_API_KEY already exists' }).isVisible()).toBe(true);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await poll(() => dialog.count()).toBe(0);

    // A new value for it, then deleting it.
    const storedBefore = await EnvironmentVariable.query(stack.db).findOne({ key: 'WEATHER_API_KEY', organizationId: adminUser?.activeOrganizationId ?? '' });
    await variableRow.getByRole('button', { name: 'Set WEATHER_API_KEY' }).click();
    await page.getByLabel('New value', { exact: true }).fill('rotated-secret');
    await page.getByRole('button', { name: 'Save value' }).click();
    await poll(async () => (await EnvironmentVariable.query(stack.db).findById(storedBefore?.id ?? ''))?.valueEnc).not.toBe(storedBefore?.valueEnc);
    await screenshots(page, 'account-08-environment-variables');
    await variableRow.getByRole('button', { name: 'Delete WEATHER_API_KEY' }).click();
    await page.getByRole('button', { name: 'Delete variable' }).click();
    await poll(() => page.getByText('No environment variables yet').isVisible()).toBe(true);
    expect(await EnvironmentVariable.query(stack.db).findById(storedBefore?.id ?? '')).toBeUndefined();

    expect(errors).toEqual([]);
    await context.close();
  });
});
