import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { ScriptedModelServer } from '@engram/testing';
import { screenshots } from '../../../console-shell/e2e/browser.js';
import { poll, startAdeHarness, type AdeHarness } from './ade-harness.js';

/*
 * The agent development environment's panels in real Chromium against the real stack (the API serves
 * the built console from its own origin, under its Content-Security-Policy): editing memory, running a
 * tool with arguments, archival memory, and stopping a turn while the scripted model is slow.
 */

let ade: AdeHarness;
let model: ScriptedModelServer;
let page: Page;
let agentId: string;
let agentPath: string;

const PLAN_TRIP = `from typing import Literal, Optional


def plan_trip(city: str, nights: int, budget: float, style: Literal["thrifty", "lavish"] = "thrifty", pets: bool = False, stops: Optional[list[str]] = None) -> str:
    """Plans a short trip.

    Args:
        city: Where to go.
        nights: How many nights to stay.
        budget: Money to spend per night, in euros.
        style: How to travel.
        pets: Whether pets come along.
        stops: Places to visit on the way.

    Returns:
        str: The plan.
    """
    print(f"planning {nights} nights in {city}")
    route = " -> ".join([*(stops or []), city])
    return f"{route}: {nights} nights, {style}, {budget * nights:.2f} EUR{' with pets' if pets else ''}"
`;

const v1 = <T>(pathname: string, init?: { method?: string; body?: unknown }) => ade.v1<T>(pathname, init);

beforeAll(async () => {
  ade = await startAdeHarness({
    account: { name: 'Grace Hopper', email: `grace-${Date.now()}@example.com`, password: 'compiler-a0-1952' },
    projectName: 'ADE panels',
    agent: {
      name: 'ade-bot',
      model: 'openai/gpt-4o-mini',
      memory_blocks: [
        { label: 'persona', value: 'A patient assistant.' },
        { label: 'human', value: 'Name: Grace', limit: 5000 },
      ],
    },
    failureScreenshot: 'ade-failure.png',
  });
  ({ model, page, agentId, agentPath } = ade);
}, 300_000);

afterAll(() => ade?.close());

const saveFailureScreenshot = () => ade.saveFailureScreenshot();

async function openPanel(name: 'Memory' | 'Tools' | 'Context' | 'Runs' | 'Archive') {
  await page.getByRole('tab', { name }).click();
}

/** Fills the run form of `plan_trip` (on whichever layout shows it) and runs it. */
async function runPlanTrip(on: Page) {
  const form = on.getByRole('form', { name: 'Run plan_trip' });
  await form.getByLabel('city').fill('Lisbon');
  await form.getByLabel('nights').fill('3');
  await form.getByLabel('budget').fill('80.5');
  await form.getByRole('combobox', { name: 'style' }).click();
  await on.getByRole('option', { name: 'lavish' }).click();
  await form.getByRole('switch', { name: 'pets' }).check({ force: true });
  await form.getByLabel('stops').fill('["Porto"]');
  await form.getByRole('button', { name: 'Run', exact: true }).click();
  await poll(() => form.getByTestId('tool-run-result').getAttribute('data-status'), 30_000).toBe('success');
}

describe('the agent development environment', () => {
  it('opens under the Content-Security-Policy of the console', async () => {
    saveFailureScreenshot();
    const assetHeaders: Array<Record<string, string>> = [];
    page.on('response', (response) => {
      if (response.url().includes('/console/remotes/agents/') && response.url().endsWith('.js')) assetHeaders.push(response.headers());
    });
    const document = await page.goto(agentPath);
    const policy = document?.headers()['content-security-policy'] ?? '';
    expect(policy).toContain("script-src 'self'");
    expect(policy).toContain("connect-src 'self'");
    expect(policy).toContain("frame-ancestors 'none'");
    expect(document?.headers()).toMatchObject({ 'x-content-type-options': 'nosniff', 'referrer-policy': 'same-origin' });
    await poll(() => page.getByTestId('agent-name').textContent()).toBe('ade-bot');
    expect(assetHeaders.length).toBeGreaterThan(0);
    expect(assetHeaders.every((headers) => headers['content-security-policy'] === policy && headers['x-content-type-options'] === 'nosniff')).toBe(true);
  });

  it('edits a memory block (value and limit) and the API has the new block', async () => {
    saveFailureScreenshot();
    const human = page.getByTestId('memory-block-human');
    await poll(() => human.getByTestId('block-chars').textContent()).toBe('11 / 5,000');
    await human.getByRole('button', { name: 'Edit human' }).click();
    await human.getByRole('textbox', { name: 'human value' }).fill('Name: Grace\nInvented the compiler.');
    // The size follows the draft, and a limit below it stops the save.
    await poll(() => human.getByTestId('block-chars').textContent()).toBe('34 / 5,000');
    await human.getByLabel('Limit (characters)').fill('20');
    await poll(() => human.getByText('34 characters: over the limit of 20').isVisible()).toBe(true);
    expect(await human.getByRole('button', { name: 'Save' }).isDisabled()).toBe(true);
    await human.getByLabel('Limit (characters)').fill('1200');
    await human.getByRole('button', { name: 'Save' }).click();
    await poll(() => human.getByTestId('block-value').textContent()).toBe('Name: Grace\nInvented the compiler.');
    await poll(() => human.getByTestId('block-chars').textContent()).toBe('34 / 1,200');
    const block = await v1<{ value: string; limit: number }>(`/agents/${agentId}/core-memory/blocks/human`);
    expect(block).toMatchObject({ value: 'Name: Grace\nInvented the compiler.', limit: 1200 });
    await screenshots(page, 'ade-01-memory-edited', {
      phone: async (phone) => {
        await phone.getByRole('tab', { name: 'Memory' }).click();
        await poll(() => phone.getByTestId('memory-block-human').getByTestId('block-chars').textContent()).toBe('34 / 1,200');
      },
    });
  });

  it('attaches a custom Python tool made over the API and runs it with arguments from the tools panel', async () => {
    saveFailureScreenshot();
    const tool = await v1<{ id: string; name: string }>('/tools/', { method: 'POST', body: { source_code: PLAN_TRIP } });
    expect(tool.name).toBe('plan_trip');

    await openPanel('Tools');
    await page.getByRole('button', { name: 'Attach a tool' }).click();
    await page.getByRole('combobox', { name: 'Attach a tool' }).click();
    await page.getByRole('option', { name: 'plan_trip' }).click();
    const card = page.getByTestId('tool-plan_trip');
    await poll(() => card.isVisible()).toBe(true);
    const attached = await v1<Array<{ name: string }>>(`/agents/${agentId}/tools/?limit=100`);
    expect(attached.map((each) => each.name)).toContain('plan_trip');

    await card.getByRole('button', { name: 'Try plan_trip' }).click();
    const form = card.getByRole('form', { name: 'Run plan_trip' });
    // Required parameters are named when left empty; nothing runs.
    await form.getByRole('button', { name: 'Run', exact: true }).click();
    await poll(() => form.getByText('Required').count()).toBe(3);
    await form.getByLabel('stops').fill('"Porto"');
    await form.getByRole('button', { name: 'Run', exact: true }).click();
    await poll(() => form.getByText('Enter a JSON array, like ["a", "b"]').isVisible()).toBe(true);
    expect(await form.getByTestId('tool-run-result').count()).toBe(0);

    await runPlanTrip(page);
    const result = form.getByTestId('tool-run-result');
    expect(await result.textContent()).toContain('Porto -> Lisbon: 3 nights, lavish, 241.50 EUR with pets');
    expect(await result.textContent()).toContain('planning 3 nights in Lisbon');
    await result.scrollIntoViewIfNeeded();
    await screenshots(page, 'ade-02-tool-run', {
      phone: async (phone) => {
        await phone.getByRole('tab', { name: 'Tools' }).click();
        await phone.getByRole('button', { name: 'Try plan_trip' }).click();
        await runPlanTrip(phone);
        await phone.getByTestId('tool-run-result').scrollIntoViewIfNeeded();
      },
    });
  });

  it('stores, pages through, searches (by words, meaning and tags) and deletes archival passages', async () => {
    saveFailureScreenshot();
    // Twenty-one older passages, so the newest-first list has a second page.
    for (let index = 1; index <= 20; index += 1) {
      await v1(`/agents/${agentId}/archival-memory`, { method: 'POST', body: { text: `Logbook ${index}: the tide turned at ${index} o'clock.` } });
    }
    await v1(`/agents/${agentId}/archival-memory`, { method: 'POST', body: { text: 'The team meeting moved to Tuesday.', tags: ['work'] } });

    await openPanel('Archive');
    const passages = page.getByTestId('archival-passage');
    await poll(() => passages.count()).toBe(20);
    for (const [text, tag] of [
      ['Grace listens to jazz records on Sundays.', 'music'],
      ['Her cat is called Jazz.', 'pets'],
    ] as const) {
      await page.getByRole('button', { name: 'Add', exact: true }).click();
      await page.getByLabel('New passage').fill(text);
      await page.getByRole('combobox', { name: 'Tags', exact: true }).fill(tag);
      await page.getByRole('combobox', { name: 'Tags', exact: true }).press('Enter');
      await page.getByRole('button', { name: 'Store passage' }).click();
      await poll(() => passages.first().getByTestId('passage-text').textContent()).toBe(text);
    }
    const stored = await v1<Array<{ text: string; tags: string[] }>>(`/agents/${agentId}/archival-memory?ascending=false&limit=2`);
    expect(stored.map(({ text, tags }) => ({ text, tags }))).toEqual([
      { text: 'Her cat is called Jazz.', tags: ['pets'] },
      { text: 'Grace listens to jazz records on Sundays.', tags: ['music'] },
    ]);

    // Newest first, twenty a page.
    await poll(() => page.getByText('1–20').isVisible()).toBe(true);
    await page.getByRole('button', { name: 'Next' }).click();
    await poll(() => passages.count()).toBe(3);
    expect(await passages.last().getByTestId('passage-text').textContent()).toBe("Logbook 1: the tide turned at 1 o'clock.");
    await page.getByRole('button', { name: 'Previous' }).click();
    await poll(() => passages.first().getByTestId('passage-text').textContent()).toBe('Her cat is called Jazz.');

    // Search: both jazz passages rank first; a tag narrows it to one.
    await page.getByRole('textbox', { name: 'Search archival memory' }).fill('jazz');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await poll(async () => (await passages.getByTestId('passage-text').allTextContents()).slice(0, 2).sort()).toEqual([
      'Grace listens to jazz records on Sundays.',
      'Her cat is called Jazz.',
    ]);
    await page.getByRole('combobox', { name: 'Search only these tags' }).fill('music');
    await page.getByRole('combobox', { name: 'Search only these tags' }).press('Enter');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await poll(() => passages.getByTestId('passage-text').allTextContents()).toEqual(['Grace listens to jazz records on Sundays.']);
    expect(await page.getByTestId('archival-search-count').textContent()).toBe('1 match, best first');
    await screenshots(page, 'ade-03-archival-search', {
      phone: async (phone) => {
        // The phone layout mounts its own panel: search again there.
        await phone.getByRole('tab', { name: 'Archive' }).click();
        await phone.getByRole('textbox', { name: 'Search archival memory' }).fill('jazz');
        await phone.getByRole('button', { name: 'Search', exact: true }).click();
        await poll(() => phone.getByTestId('archival-search-count').isVisible()).toBe(true);
      },
    });

    // Deleting from the results removes the passage from the agent's memory.
    await openPanel('Archive');
    await page.getByRole('textbox', { name: 'Search archival memory' }).fill('jazz');
    await page.getByRole('combobox', { name: 'Search only these tags' }).fill('music');
    await page.getByRole('combobox', { name: 'Search only these tags' }).press('Enter');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await poll(() => passages.count()).toBe(1);
    await passages.first().getByRole('button', { name: 'Delete passage' }).click();
    await poll(() => page.getByText('Nothing matches.').isVisible()).toBe(true);
    const left = await v1<Array<{ text: string }>>(`/agents/${agentId}/archival-memory?limit=100`);
    expect(left).toHaveLength(22);
    expect(left.some((passage) => passage.text.includes('jazz records'))).toBe(false);
    await page.getByRole('button', { name: 'Clear the search' }).click();
    await poll(() => passages.first().getByTestId('passage-text').textContent()).toBe('Her cat is called Jazz.');
  });

  it('stops a turn while the model is slow to answer, and shows why it stopped', async () => {
    saveFailureScreenshot();
    model.enqueue({ type: 'text', text: 'This answer comes far too late.', delayMs: 120_000 });
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill('Think about this for a long while.');
    await box.press('Enter');
    await poll(() => page.getByTestId('agent-working').isVisible(), 30_000).toBe(true);
    // The run has reached the model (the scripted server holds its answer) before it is stopped.
    await poll(() => model.requests.length, 30_000).toBe(1);
    await page.getByRole('button', { name: 'Stop' }).click();
    await poll(() => page.locator('[data-stop-reason="cancelled"]').count(), 30_000).toBe(1);
    expect(await page.locator('[data-stop-reason="cancelled"]').textContent()).toMatch(/^Cancelled/);
    await poll(() => page.getByRole('button', { name: 'Send' }).isVisible()).toBe(true);
    const [run] = await v1<Array<{ status: string; stop_reason: string | null }>>(`/runs/?agent_id=${agentId}&limit=1&order=desc`);
    expect(run).toMatchObject({ status: 'cancelled', stop_reason: 'cancelled' });
    expect(await page.getByTestId('assistant-message').count()).toBe(0);
    await screenshots(page, 'ade-04-turn-cancelled', {
      phone: async (phone) => {
        await phone.getByRole('tab', { name: 'Chat' }).click();
        await poll(() => phone.locator('[data-stop-reason="cancelled"]').isVisible()).toBe(true);
      },
    });
  });

  it('raised no page error and no Content-Security-Policy violation, and the policy is enforced', async () => {
    expect(ade.pageErrors).toEqual([]);
    expect(ade.cspViolations).toEqual([]);
    // An inline script, as an injected one would be: the browser refuses it and says so.
    const ran = await page.evaluate(
      "(() => { const script = document.createElement('script'); script.textContent = 'window.inlineScriptRan = true'; document.body.append(script); return window.inlineScriptRan === true; })()",
    );
    expect(ran).toBe(false);
    await poll(() => ade.cspViolations.length).toBe(1);
    expect(ade.cspViolations[0]).toContain("script-src 'self'");
  });
});
