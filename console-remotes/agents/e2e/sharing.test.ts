import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { PublishedAgentFile, SharedChat } from '@engram/db';
import { artifactsDir, DESKTOP } from '../../../console-shell/e2e/browser.js';
import { poll, startAdeHarness, type AdeHarness } from './ade-harness.js';

/*
 * Sharing in real Chromium against the real stack: an agent shared with everyone from its Share dialog, then
 * chatted with from a signed-out browser on the public /chat page; a template's launch link made from its editor
 * and launched from two signed-out browsers, each of which gets an agent of its own.
 */

let ade: AdeHarness;
let page: Page;
const visitors: BrowserContext[] = [];

beforeAll(async () => {
  ade = await startAdeHarness({
    account: { name: 'Grace Hopper', email: `grace-${Date.now()}@example.com`, password: 'compiler-1952' },
    projectName: 'Sharing',
    agent: {
      name: 'front-desk',
      model: 'openai/gpt-4o-mini',
      include_base_tools: false,
      memory_blocks: [{ label: 'human', value: 'The visitor is {{visitorName}}.', limit: 2000 }],
    },
    failureScreenshot: 'sharing-failure.png',
  });
  ({ page } = ade);
  ade.model.onRequest((request) => {
    const system = request.messages.find((message) => message.role === 'system');
    const visitor = /The visitor is ([A-Za-z]+)\./.exec(typeof system?.content === 'string' ? system.content : JSON.stringify(system?.content))?.[1];
    return { type: 'text', text: `Welcome, ${visitor ?? 'stranger'}!` };
  });
}, 300_000);

afterAll(async () => {
  for (const context of visitors) await context.close();
  await ade?.close();
});

/** A browser with no session: someone who has never signed in here. */
async function signedOutVisitor(): Promise<Page> {
  const context = await ade.browser.newContext({ viewport: DESKTOP, baseURL: ade.stack.baseUrl, reducedMotion: 'reduce' });
  visitors.push(context);
  const visitor = await context.newPage();
  visitor.setDefaultTimeout(20_000);
  const number = visitors.length;
  const errors: string[] = [];
  visitor.on('pageerror', (error) => errors.push(error.stack ?? error.message));
  visitor.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  onTestFailed(async () => {
    console.log(`visitor ${number} errors:\n${errors.join('\n')}`);
    mkdirSync(artifactsDir, { recursive: true });
    await visitor.screenshot({ path: path.join(artifactsDir, `sharing-visitor-${number}-failure.png`) }).catch(() => undefined);
  });
  return visitor;
}

async function screenshot(target: Page, name: string) {
  mkdirSync(artifactsDir, { recursive: true });
  await target.screenshot({ path: path.join(artifactsDir, `sharing-${name}.png`) });
}

describe('sharing in the console', () => {
  it('shares an agent with everyone and a signed-out browser chats with it on its own page', { timeout: 300_000 }, async () => {
    ade.saveFailureScreenshot();
    await page.goto(ade.agentPath);
    await page.getByRole('button', { name: 'Share' }).click();
    const dialog = page.getByRole('dialog', { name: 'Share this agent' });
    await dialog.getByLabel('Who can chat').selectOption('everyone');
    await poll(async () => (await SharedChat.query(ade.stack.db).findOne({ agentId: ade.agentId }))?.accessLevel).toBe('everyone');
    const link = await dialog.getByRole('textbox', { name: 'Chat link' }).inputValue();
    expect(link).toMatch(/\/chat\/chat-/);

    // The same dialog publishes the agent to the gallery, where members vote on it.
    await dialog.getByRole('textbox', { name: 'File name' }).fill('front_desk');
    await dialog.getByRole('textbox', { name: 'Summary' }).fill('Greets visitors');
    await dialog.getByRole('textbox', { name: 'Description' }).fill('A front desk agent that greets every visitor.');
    await dialog.getByRole('button', { name: 'Publish as an agent file' }).click();
    await poll(() => dialog.getByText('Published as front_desk').count()).toBe(1);
    await page.keyboard.press('Escape');
    await page.goto(`${ade.agentPath.slice(0, ade.agentPath.lastIndexOf('/'))}/agent-files`);
    const card = page.getByTestId('agent-file-card').filter({ hasText: 'front_desk' });
    await poll(() => card.getByText('Greets visitors').count()).toBe(1);
    await card.getByRole('button', { name: 'Vote front_desk up' }).click();
    await poll(async () => (await PublishedAgentFile.query(ade.stack.db).findOne({ name: 'front_desk' }))?.upvotes).toBe(1);
    await poll(() => card.getByText('0 downloads').count()).toBe(1);

    const visitor = await signedOutVisitor();
    await visitor.goto(link);
    await poll(() => visitor.getByTestId('shared-agent-name').textContent()).toBe('front-desk');
    // A page of its own: no sign-in asked for, and none of the console's frame (its account menu, its theme switch).
    expect(new URL(visitor.url()).pathname).toBe(new URL(link).pathname);
    expect(await visitor.getByRole('button', { name: 'Account menu' }).count()).toBe(0);
    await visitor.getByRole('textbox', { name: 'Message' }).fill('Hello, is anyone there?');
    await visitor.getByRole('button', { name: 'Send' }).click();
    await poll(() => visitor.getByTestId('agent-message').allTextContents(), 60_000).toEqual(['Welcome, stranger!']);
    expect(await visitor.getByTestId('visitor-message').allTextContents()).toEqual(['Hello, is anyone there?']);

    // The split between the agent and the conversation is kept in the layout cookie.
    await visitor.getByRole('separator', { name: 'Resize panels' }).focus();
    await visitor.keyboard.press('ArrowRight');
    const cookies = await visitor.context().cookies();
    expect(decodeURIComponent(cookies.find((cookie) => cookie.name === 'engram_layout')?.value ?? '')).toBe('{"shared-chat":[32,68]}');
    await screenshot(visitor, 'chat');
    await visitor.reload();
    await poll(() => visitor.getByTestId('agent-message').count()).toBe(1);
    expect(await visitor.getByRole('separator', { name: 'Resize panels' }).getAttribute('aria-valuenow')).toBe('32');
  });

  it('launches a template link from two browsers and gets two separate agents', { timeout: 300_000 }, async () => {
    ade.saveFailureScreenshot();
    const template = await page.request.post('/api/agent-templates', { data: { name: 'front-desk-template', agentId: ade.agentId, description: 'Your own front desk' } });
    expect(template.status()).toBe(201);
    const { id: templateId } = (await template.json()) as { id: string };
    await page.goto(`${ade.agentPath.slice(0, ade.agentPath.lastIndexOf('/'))}/templates/${templateId}`);
    await page.getByRole('button', { name: 'Launch link' }).click();
    const dialog = page.getByRole('dialog', { name: 'Launch link' });
    await dialog.getByLabel('Who can launch').selectOption('everyone');
    await dialog.getByRole('button', { name: 'Create launch link' }).click();
    const link = await dialog.getByRole('textbox', { name: 'Launch link' }).inputValue();
    expect(link).toMatch(/\/launch\/launch-/);

    const chatIds: string[] = [];
    for (const name of ['Ada', 'Lin']) {
      const visitor = await signedOutVisitor();
      await visitor.goto(link);
      await poll(() => visitor.getByTestId('launch-name').textContent()).toBe('front-desk-template');
      await visitor.getByRole('textbox', { name: 'visitorName' }).fill(name);
      if (name === 'Ada') await screenshot(visitor, 'launch');
      await visitor.getByRole('button', { name: 'Launch my agent' }).click();
      await visitor.waitForURL(/\/chat\/chat-/);
      await visitor.getByRole('textbox', { name: 'Message' }).fill('Hi!');
      await visitor.getByRole('button', { name: 'Send' }).click();
      await poll(() => visitor.getByTestId('agent-message').allTextContents(), 60_000).toEqual([`Welcome, ${name}!`]);
      chatIds.push(new URL(visitor.url()).pathname.split('/').at(-1)!);
    }
    expect(new Set(chatIds).size).toBe(2);
    const chats = await SharedChat.query(ade.stack.db).whereIn('id', chatIds);
    expect(new Set(chats.map((chat) => chat.agentId)).size).toBe(2);
    expect(chats.every((chat) => chat.launchLinkId !== null && chat.agentId !== ade.agentId)).toBe(true);
  });
});
