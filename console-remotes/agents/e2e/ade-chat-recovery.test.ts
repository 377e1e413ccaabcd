import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { ScriptedModelServer } from '@engram/testing';
import { screenshots } from '../../../console-shell/e2e/browser.js';
import { poll, startAdeHarness, type AdeHarness } from './ade-harness.js';

/*
 * A chat turn that fails or is cancelled, in real Chromium against the real stack: after a reload the
 * transcript still shows what the user typed and what became of it (the run's error, or that it was
 * cancelled), and the turn can be sent again as it was (Retry) or edited first (Edit and resend).
 */

let ade: AdeHarness;
let model: ScriptedModelServer;
let page: Page;
let agentId: string;

type Listed = { message_type: string; content?: unknown };

beforeAll(async () => {
  ade = await startAdeHarness({
    account: { name: 'Katherine Johnson', email: `katherine-${Date.now()}@example.com`, password: 'trajectory-1962' },
    projectName: 'ADE chat recovery',
    agent: { name: 'recovery-bot', model: 'openai/gpt-4o-mini', memory_blocks: [{ label: 'persona', value: 'A steady assistant.' }] },
    failureScreenshot: 'ade-chat-recovery-failure.png',
  });
  ({ model, page, agentId } = ade);
}, 300_000);

afterAll(() => ade?.close());

const userMessages = () => page.getByTestId('user-message').allTextContents();

/** Types and sends a message once the chat is idle (the previous turn's record is in): a busy chat keeps it unsent. */
async function send(text: string) {
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill(text);
  const sendButton = page.getByRole('button', { name: 'Send', exact: true });
  await poll(async () => (await sendButton.count()) === 1 && (await sendButton.isEnabled()), 30_000).toBe(true);
  await box.press('Enter');
}

describe('a chat turn that failed or was cancelled', () => {
  it('shows the message and the model’s error after a reload, and Retry sends the same text again', async () => {
    ade.saveFailureScreenshot();
    await page.goto(ade.agentPath);
    await poll(() => page.getByTestId('agent-name').textContent()).toBe('recovery-bot');
    model.enqueue({ type: 'error', status: 400, message: 'The model refuses this request.' });
    await send('Plot the return trajectory.');
    await poll(() => page.locator('[data-stop-reason="llm_api_error"]').count(), 30_000).toBe(1);

    await page.reload();
    await poll(() => page.locator('[data-stop-reason="llm_api_error"]').count(), 30_000).toBe(1);
    expect(await userMessages()).toEqual(['Plot the return trajectory.']);
    const transcript = page.getByTestId('chat-transcript');
    expect(await transcript.getByRole('alert').textContent()).toContain('The model refuses this request.');
    expect(await page.locator('[data-stop-reason="llm_api_error"]').textContent()).toMatch(/^Model error/);
    await screenshots(page, 'ade-05-failed-turn-after-reload', {
      phone: async (phone) => {
        await phone.getByRole('tab', { name: 'Chat' }).click();
        await poll(() => phone.getByTestId('turn-resend').isVisible()).toBe(true);
      },
    });

    model.enqueue({ type: 'text', text: 'Trajectory plotted: splashdown at 21:44.' });
    await page.getByTestId('turn-resend').getByRole('button', { name: 'Retry', exact: true }).click();
    await poll(() => page.getByTestId('assistant-message').allTextContents(), 30_000).toEqual(['Trajectory plotted: splashdown at 21:44.']);
    expect(model.requests.at(-1)?.messages.at(-1)).toMatchObject({ role: 'user', content: 'Plot the return trajectory.' });
    // The failed turn stays where it was, the retried one after it.
    await poll(() => userMessages()).toEqual(['Plot the return trajectory.', 'Plot the return trajectory.']);
    // Token deltas show the answer before its step is stored.
    const listed = async () => (await ade.v1<Listed[]>(`/agents/${agentId}/messages?order=asc`)).map((message) => [message.message_type, message.content]);
    await poll(listed).toEqual([
      ['user_message', 'Plot the return trajectory.'],
      ['user_message', 'Plot the return trajectory.'],
      ['assistant_message', 'Trajectory plotted: splashdown at 21:44.'],
    ]);
  });

  it('shows a turn cancelled during a slow model call after a reload, and Edit and resend puts its text back in the composer', async () => {
    ade.saveFailureScreenshot();
    const requestsBefore = model.requests.length;
    model.enqueue({ type: 'text', text: 'This answer comes far too late.', delayMs: 120_000 });
    await send('Check the heat shield numbers.');
    await poll(() => model.requests.length, 30_000).toBe(requestsBefore + 1);
    await page.getByRole('button', { name: 'Stop' }).click();
    await poll(() => page.locator('[data-stop-reason="cancelled"]').count(), 30_000).toBe(1);

    await page.reload();
    await poll(() => page.locator('[data-stop-reason="cancelled"]').count(), 30_000).toBe(1);
    await poll(() => userMessages()).toEqual(['Plot the return trajectory.', 'Plot the return trajectory.', 'Check the heat shield numbers.']);
    const resend = page.getByTestId('turn-resend');
    // The failed turn of the first test and this cancelled one each offer it.
    await poll(() => resend.count()).toBe(2);
    await resend.last().getByRole('button', { name: 'More for this turn' }).click();
    await page.getByRole('menuitem', { name: 'Edit and resend' }).click();
    const box = page.getByRole('textbox', { name: 'Message' });
    expect(await box.inputValue()).toBe('Check the heat shield numbers.');

    model.enqueue({ type: 'text', text: 'The heat shield holds.' });
    await send('Check the heat shield numbers, briefly.');
    await poll(() => page.getByTestId('assistant-message').last().textContent(), 30_000).toBe('The heat shield holds.');
    expect(model.requests.at(-1)?.messages.at(-1)).toMatchObject({ role: 'user', content: 'Check the heat shield numbers, briefly.' });
    // The cancelled turn never reached the agent's context: the model reads only what was sent again.
    const userTexts = model.requests.at(-1)?.messages.filter((message) => message.role === 'user').map((message) => message.content);
    expect(userTexts).toEqual(['Plot the return trajectory.', 'Check the heat shield numbers, briefly.']);
  });

  it('raised no page error', () => {
    expect(ade.pageErrors).toEqual([]);
    expect(ade.cspViolations).toEqual([]);
  });
});
