import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { User } from '@engram/db';
import { startScriptedModelServer, startTestStack, type ChatRequest, type ScriptedModelServer, type TestStack } from '@engram/testing';
import { requestV1 } from '@engram/testing/agent-test-context';
import { ensureConsoleBuilt } from '../../scripts/console-build.js';
import { artifactsDir, DESKTOP, launchChromium, screenshots } from './browser.js';

/*
 * The Groups and Runs views of the agents remote in real Chromium against the real stack: a group made in the
 * console answers a message with who said what, and a message batch shows each of its requests' status.
 */

let stack: TestStack;
let model: ScriptedModelServer;
let browser: Browser;

beforeAll(async () => {
  await ensureConsoleBuilt({ log: () => undefined });
  model = await startScriptedModelServer({ models: ['gpt-4o-mini'] });
  stack = await startTestStack({ baseProviders: [{ name: 'openai', providerType: 'openai', apiKey: 'test', baseUrl: model.url }] });
  browser = await launchChromium();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
  await model?.close();
});

/** `expect.poll` with a timeout fit for a browser on a busy machine (its default is one second). */
function poll<T>(read: () => Promise<T> | T, timeout = 30_000) {
  return expect.poll(read, { timeout, interval: 100 });
}

/** Each agent answers "<name> says <n>", counting its own answers; its system prompt says its name. */
function answerByName(names: string[]) {
  const counts = new Map<string, number>();
  model.onRequest((request: ChatRequest) => {
    const name = names.find((candidate) => String(request.messages[0]?.content ?? '').includes(`I am ${candidate}.`));
    if (!name) return undefined;
    counts.set(name, (counts.get(name) ?? 0) + 1);
    return { type: 'text', text: `${name} says ${counts.get(name)}` };
  });
}

async function pickMember(page: Page, name: string) {
  const members = page.getByRole('combobox', { name: 'Members' });
  await members.click();
  await members.fill(name);
  await page.getByRole('option', { name, exact: true }).click();
}

describe('groups and batches in the console', () => {
  it('creates a group, chats with it showing who said what, and shows a batch with each request\'s status', { timeout: 300_000 }, async () => {
    const context = await browser.newContext({ viewport: DESKTOP, baseURL: stack.baseUrl, reducedMotion: 'reduce' });
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    onTestFailed(async () => {
      mkdirSync(artifactsDir, { recursive: true });
      await page.screenshot({ path: path.join(artifactsDir, 'groups-failure.png') }).catch(() => undefined);
    });

    const email = `grace-${randomBytes(4).toString('hex')}@example.com`;
    await page.goto('/signup');
    await page.getByLabel('Name', { exact: true }).fill('Grace Hopper');
    await page.getByLabel('Email', { exact: true }).fill(email);
    await page.getByLabel('Password', { exact: true }).fill('compiler-pioneer-1952');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL('**/projects');

    // Two agents of the new account's default project, made through /v1 with a key of its own.
    const user = await User.query(stack.db).findOne({ email });
    const member = await stack.db('organization_members').where({ user_id: user!.id }).first();
    const { key } = await stack.services.apiKeys.issue({ organizationId: member.organizationId, userId: user!.id, name: 'e2e' });
    const v1 = async (method: string, route: string, body?: unknown) => {
      const response = await requestV1(stack.baseUrl, key, method, route, body);
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      return response.body;
    };
    const agents: Record<string, string> = {};
    for (const name of ['Ann', 'Bob']) {
      agents[name] = (await v1('POST', '/agents/', { name, model: 'openai/gpt-4o-mini', memory_blocks: [{ label: 'persona', value: `I am ${name}.` }] })).id;
    }
    answerByName(['Ann', 'Bob']);

    // The Groups view: empty, then a round-robin group made with the form.
    await page.goto('/projects/default-project/agents');
    await page.getByRole('navigation', { name: 'Agent platform' }).getByRole('link', { name: 'Groups' }).click();
    await page.waitForURL('**/agents/groups');
    await poll(() => page.getByText('No groups yet').isVisible()).toBe(true);
    await page.getByRole('button', { name: 'New group' }).click();
    await page.getByLabel('Description', { exact: true }).fill('Release crew');
    await pickMember(page, 'Ann');
    await pickMember(page, 'Bob');
    // Leaving the field closes its list of agents, which covers the form's buttons.
    await page.getByRole('combobox', { name: 'Members' }).press('Tab');
    await page.getByRole('button', { name: 'Create group' }).click();
    await page.waitForURL(/\/agents\/groups\/group-[0-9a-f-]+$/);
    await poll(() => page.getByTestId('group-manager-type').textContent()).toBe('Round robin');
    await poll(() => page.getByTestId('group-member').allTextContents()).toEqual(['Ann', 'Bob']);

    // A message to the group: the members answer in turn, each line saying who spoke.
    await page.getByRole('textbox', { name: 'Message the group' }).fill('Who ships on Friday?');
    await page.getByRole('button', { name: 'Send' }).click();
    const lines = page.getByTestId('group-chat-line');
    await poll(async () => (await lines.all()).length, 60_000).toBe(3);
    const said = await Promise.all(
      (await lines.all()).map(async (line) => [await line.getAttribute('data-speaker'), await line.getByTestId('group-chat-text').textContent()]),
    );
    expect(said).toEqual([
      ['You', 'Who ships on Friday?'],
      ['Ann', 'Ann says 1'],
      ['Bob', 'Bob says 1'],
    ]);
    await screenshots(page, 'groups-chat');

    await page.getByRole('button', { name: 'All groups' }).click();
    await poll(() => page.getByTestId('group-row').count()).toBe(1);
    expect(await page.getByTestId('group-row').getByTestId('group-manager-type').textContent()).toBe('Round robin');

    // A batch of four requests: the Runs view lists it as a batch, and opening it shows each request's status.
    const batch = await v1('POST', '/messages/batches', {
      requests: ['Ann', 'Bob', 'Ann', 'Bob'].map((name, index) => ({ agent_id: agents[name], messages: [{ role: 'user', content: `request ${index}` }] })),
    });
    await poll(async () => (await v1('GET', `/messages/batches/${batch.id}`)).status, 60_000).toBe('completed');
    await page.getByRole('navigation', { name: 'Agent platform' }).getByRole('link', { name: 'Runs' }).click();
    await page.waitForURL('**/agents/runs');
    const batchRow = page.locator('[data-testid="job-row"][data-job-type="batch"]');
    await poll(() => batchRow.getByTestId('batch-counts').textContent()).toBe('4 completed of 4');
    // The group's turn and the batch's items are runs too.
    const runRows = page.locator('[data-testid="job-row"][data-job-type="run"]');
    expect(await runRows.count()).toBeGreaterThanOrEqual(6);
    await poll(async () => new Set(await runRows.getByTestId('job-agent').allTextContents())).toEqual(new Set(['Ann', 'Bob']));
    await batchRow.click();
    const items = page.getByTestId('batch-item');
    await poll(() => items.count()).toBe(4);
    await poll(() => items.getByTestId('batch-item-agent').allTextContents()).toEqual(['Ann', 'Bob', 'Ann', 'Bob']);
    expect(await items.getByTestId('job-status').allTextContents()).toEqual(['completed', 'completed', 'completed', 'completed']);
    await screenshots(page, 'runs-batch');

    expect(errors).toEqual([]);
    await context.close();
  });
});
