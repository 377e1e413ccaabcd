import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { ChatRequest, ScriptedModelServer } from '@engram/testing';
import { screenshots } from '../../../console-shell/e2e/browser.js';
import { poll, startAdeHarness, type AdeHarness } from './ade-harness.js';

/*
 * The conversations of an agent in its workspace's chat, in real Chromium against the real stack: a second
 * conversation beside the agent's own history, each chat seeing only its own messages (on screen and in the model's
 * prompt), switching between them, renaming one, and archiving it out of the list.
 */

let ade: AdeHarness;
let model: ScriptedModelServer;
let page: Page;

type Conversation = { id: string; summary: string | null; archived: boolean };
type Listed = { message_type: string; content?: unknown };

beforeAll(async () => {
  ade = await startAdeHarness({
    account: { name: 'Grace Hopper', email: `grace-${Date.now()}@example.com`, password: 'compiler-1952' },
    projectName: 'ADE conversations',
    agent: { name: 'thread-bot', model: 'openai/gpt-4o-mini', memory_blocks: [{ label: 'persona', value: 'A patient assistant.' }] },
    failureScreenshot: 'ade-conversations-failure.png',
  });
  ({ model, page } = ade);
}, 300_000);

afterAll(() => ade?.close());

const userMessages = () => page.getByTestId('user-message').allTextContents();
const assistantMessages = () => page.getByTestId('assistant-message').allTextContents();
const currentConversation = () => page.getByTestId('conversation-current').textContent();
const saidLast = (text: string) => (request: ChatRequest) => request.messages.filter((message) => message.role === 'user').at(-1)?.content === text;

/** Types and sends a message once the chat is idle (the previous turn's record is in). */
async function send(text: string) {
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill(text);
  const sendButton = page.getByRole('button', { name: 'Send', exact: true });
  await poll(async () => (await sendButton.count()) === 1 && (await sendButton.isEnabled()), 30_000).toBe(true);
  await box.press('Enter');
}

async function openConversation(name: RegExp) {
  await page.getByRole('button', { name: 'Conversations' }).click();
  await page.getByRole('menuitem', { name }).click();
}

describe("an agent's conversations in the chat", () => {
  it('keeps each conversation its own messages while switching, renames one and archives it', async () => {
    ade.saveFailureScreenshot();
    await page.goto(ade.agentPath);
    await poll(() => page.getByTestId('agent-name').textContent()).toBe('thread-bot');
    expect(await currentConversation()).toBe('Default conversation');

    model.enqueue({ type: 'text', text: 'Noted for the house.', match: saidLast('The house is blue.') });
    await send('The house is blue.');
    await poll(assistantMessages, 30_000).toEqual(['Noted for the house.']);

    await page.getByRole('button', { name: 'New conversation' }).click();
    await poll(currentConversation).toBe('Untitled conversation');
    await poll(() => new URL(page.url()).searchParams.get('conversation') ?? '').toMatch(/^conv-/);
    const conversationId = new URL(page.url()).searchParams.get('conversation')!;
    await poll(() => page.getByText('Start a conversation').count()).toBe(1);

    model.enqueue({ type: 'text', text: 'Noted for the boat.', match: saidLast('The boat is red.') });
    await send('The boat is red.');
    await poll(assistantMessages, 30_000).toEqual(['Noted for the boat.']);
    expect(await userMessages()).toEqual(['The boat is red.']);
    // The thread's prompt has its own window: the model never saw the default conversation's turn.
    const boatPrompt = model.requests.find(saidLast('The boat is red.'));
    expect(JSON.stringify(boatPrompt?.messages)).not.toContain('The house is blue.');
    // Token deltas show the answer before its step is stored.
    const listed = async () => (await ade.v1<Listed[]>(`/conversations/${conversationId}/messages?order=asc`)).map((message) => [message.message_type, message.content]);
    await poll(listed).toEqual([
      ['user_message', 'The boat is red.'],
      ['assistant_message', 'Noted for the boat.'],
    ]);

    await openConversation(/^Default conversation$/);
    await poll(currentConversation).toBe('Default conversation');
    await poll(assistantMessages, 30_000).toEqual(['Noted for the house.']);
    expect(await userMessages()).toEqual(['The house is blue.']);

    await openConversation(/^Untitled conversation$/);
    await poll(assistantMessages, 30_000).toEqual(['Noted for the boat.']);
    expect(await userMessages()).toEqual(['The boat is red.']);
    // A second turn goes to the thread, whose prompt now holds its first turn and still nothing of the other.
    model.enqueue({ type: 'text', text: 'The boat is red, as you said.', match: saidLast('What colour is the boat?') });
    await send('What colour is the boat?');
    await poll(assistantMessages, 30_000).toEqual(['Noted for the boat.', 'The boat is red, as you said.']);
    const followUp = JSON.stringify(model.requests.find(saidLast('What colour is the boat?'))?.messages);
    expect(followUp).toContain('The boat is red.');
    expect(followUp).not.toContain('The house is blue.');

    await page.getByRole('button', { name: 'Rename conversation' }).click();
    const nameBox = page.getByRole('textbox', { name: 'Name' });
    await nameBox.fill('Boat log');
    await page.getByRole('button', { name: 'Save' }).click();
    await poll(currentConversation).toBe('Boat log');
    expect((await ade.v1<Conversation>(`/conversations/${conversationId}`)).summary).toBe('Boat log');
    await screenshots(page, 'ade-07-conversation', {
      phone: async (phone) => {
        await phone.getByRole('tab', { name: 'Chat' }).click();
        await poll(() => phone.getByTestId('conversation-current').isVisible()).toBe(true);
      },
    });

    await page.getByRole('button', { name: 'Archive conversation' }).click();
    await poll(currentConversation).toBe('Default conversation');
    await poll(assistantMessages, 30_000).toEqual(['Noted for the house.']);
    expect((await ade.v1<Conversation>(`/conversations/${conversationId}`)).archived).toBe(true);
    await page.getByRole('button', { name: 'Conversations' }).click();
    expect(await page.getByRole('menuitem', { name: /Boat log/ }).count()).toBe(0);
    await page.getByRole('menuitem', { name: 'Show archived' }).click();
    await openConversation(/Boat log/);
    await poll(currentConversation).toBe('Boat log');
    await poll(assistantMessages, 30_000).toEqual(['Noted for the boat.', 'The boat is red, as you said.']);
    expect(await page.getByRole('button', { name: 'Unarchive conversation' }).count()).toBe(1);

    // A reload reopens the conversation in the address.
    await page.reload();
    await poll(currentConversation).toBe('Boat log');
    await poll(userMessages, 30_000).toEqual(['The boat is red.', 'What colour is the boat?']);
  });

  it('raised no page error', () => {
    expect(ade.pageErrors).toEqual([]);
    expect(ade.cspViolations).toEqual([]);
  });
});
