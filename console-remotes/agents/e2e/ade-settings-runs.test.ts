import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { ScriptedModelServer } from '@engram/testing';
import { poll, startAdeHarness, type AdeHarness } from './ade-harness.js';

/*
 * The ADE's agent settings and run detail in real Chromium against the real stack: the system prompt and model
 * parameters reach the model, rename, export, duplicate, import and delete; a run's steps with their raw provider
 * request, tokens and the link to its workflow in the Temporal UI; the right-hand panel at laptop widths; and what
 * an analyst is (not) offered. Screenshots go to ADE_SCREENSHOTS (default /tmp/engram-ade-screens).
 */

const screenshotDir = process.env.ADE_SCREENSHOTS ?? '/tmp/engram-ade-screens';
const TEMPORAL_UI = 'http://temporal-ui.test:8233';

/** Returns one unbroken 600-character line, as a tool dumping a token or a URL would. */
const LONG_REPORT = `def long_report() -> str:
    """Returns one long line.

    Returns:
        str: The line.
    """
    return "REPORT-" + "0123456789abcdef" * 37
`;

let ade: AdeHarness;
let model: ScriptedModelServer;
let page: Page;
let agentId: string;
let agentPath: string;
let projectPath: string;

const v1 = <T>(pathname: string, init?: { method?: string; body?: unknown }) => ade.v1<T>(pathname, init);

/** A picture of the page at a laptop width, for the report (not committed); the page keeps its size. */
async function screenshotAt(width: number, name: string) {
  mkdirSync(screenshotDir, { recursive: true });
  const size = page.viewportSize();
  await page.setViewportSize({ width, height: width >= 1280 ? 800 : 768 });
  await page.mouse.move(1, 1);
  await page.evaluate('new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))');
  await page.screenshot({ path: path.join(screenshotDir, `${name}.png`) });
  if (size) await page.setViewportSize(size);
}

/** Opens a right-hand panel, from its tab or, when it does not fit, from the More menu. */
async function openPanel(name: string) {
  const tab = page.getByRole('tab', { name, exact: true });
  if (await tab.isVisible()) {
    await tab.click();
    return;
  }
  await page.getByTestId('more-panels').click();
  await page.getByRole('menuitem', { name }).click();
}

/** Whether an element is wider inside than it shows (something would scroll sideways). */
const overflowsSideways = (selector: string) =>
  page.evaluate(`(() => { const element = document.querySelector('${selector}'); return element ? element.scrollWidth > element.clientWidth + 1 : null; })()`);

beforeAll(async () => {
  ade = await startAdeHarness({
    account: { name: 'Katherine Johnson', email: `katherine-${Date.now()}@example.com`, password: 'trajectory-1962' },
    projectName: 'ADE settings',
    agent: {
      name: 'settings-bot',
      model: 'openai/gpt-4o-mini',
      system: 'You are a careful assistant.',
      memory_blocks: [{ label: 'persona', value: 'A careful assistant.' }],
    },
    failureScreenshot: 'ade-settings-failure.png',
    apiEnv: { TEMPORAL_UI_URL: TEMPORAL_UI },
  });
  ({ model, page, agentId, agentPath } = ade);
  projectPath = agentPath.slice(0, agentPath.lastIndexOf('/'));
  const tool = await v1<{ id: string }>('/tools/', { method: 'POST', body: { source_code: LONG_REPORT } });
  await v1(`/agents/${agentId}/tools/attach/${tool.id}`, { method: 'PATCH' });
}, 300_000);

afterAll(() => ade?.close());

describe('a run in the ADE', () => {
  it('keeps each turn’s steps and tokens after a reload, and wraps a long tool result', async () => {
    ade.saveFailureScreenshot();
    model.enqueue(
      { type: 'tool_calls', calls: [{ id: 'call_report', name: 'long_report', arguments: {} }], usage: { prompt_tokens: 310, completion_tokens: 12 } },
      { type: 'text', text: 'The report is in.', usage: { prompt_tokens: 420, completion_tokens: 6 } },
    );
    await page.goto(agentPath);
    await page.getByRole('textbox', { name: 'Message' }).fill('Fetch the long report, please.');
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    await poll(() => page.getByTestId('assistant-message').last().textContent(), 60_000).toBe('The report is in.');
    const footer = page.getByTestId('stop-reason').last();
    await poll(() => footer.textContent()).toBe('Turn ended · 2 steps · 748 tokens');

    await page.reload();
    await poll(() => page.getByTestId('stop-reason').last().textContent()).toBe('Turn ended · 2 steps · 748 tokens');

    await page.getByTestId('tool-return-message').getByRole('button').click();
    await poll(() => page.getByTestId('tool-return-output').textContent()).toContain('REPORT-0123456789abcdef');
    expect(await overflowsSideways('[data-testid="tool-return-output"]')).toBe(false);
    expect(await overflowsSideways('[data-testid="chat-transcript"]')).toBe(false);
  });

  it("opens a run from the Runs panel: its steps, raw provider request, tokens and its workflow's link in the Temporal UI", async () => {
    ade.saveFailureScreenshot();
    const [run] = await v1<Array<{ id: string }>>(`/runs/?agent_id=${agentId}&limit=1&order=desc`);
    const steps = await v1<Array<{ prompt_tokens: number; completion_tokens: number }>>(`/runs/${run!.id}/steps?order=asc`);
    expect(steps.map((step) => [step.prompt_tokens, step.completion_tokens])).toEqual([
      [310, 12],
      [420, 6],
    ]);

    await openPanel('Runs');
    await page.getByTestId('run-row').first().click();
    const detail = page.getByTestId('run-detail');
    await poll(() => detail.getByTestId('run-status').textContent()).toBe('completed');
    expect(page.url()).toContain(`run=${run!.id}`);
    expect(await detail.getByTestId('run-stop-reason').textContent()).toBe('end_turn');
    await poll(() => detail.getByTestId('run-tokens').textContent()).toBe('730 → 18');
    expect(await detail.getByTestId('temporal-link').getAttribute('href')).toBe(`${TEMPORAL_UI}/namespaces/default/workflows/${run!.id}`);
    expect(await detail.getByTestId('temporal-link').getAttribute('target')).toBe('_blank');

    const stepCards = detail.getByTestId('run-step');
    await poll(() => stepCards.count()).toBe(2);
    expect(await stepCards.nth(0).getByTestId('step-tokens').textContent()).toBe('310 → 12 tokens');
    // Only the step that ended the run has a stop reason.
    expect(await stepCards.nth(0).getByTestId('step-stop-reason').count()).toBe(0);
    expect(await stepCards.nth(1).getByTestId('step-stop-reason').textContent()).toBe('end_turn');
    await stepCards.nth(0).getByRole('button', { name: 'Step 1' }).click();
    // The body the provider received: the system prompt first, the user's message, and the agent's tools.
    await poll(() => stepCards.nth(0).getByTestId('step-request').isVisible()).toBe(true);
    const requestText = (await stepCards.nth(0).getByTestId('step-request').textContent()) ?? '';
    const sent = JSON.parse(requestText) as { model: string; messages: Array<{ role: string; content: unknown }>; tools: Array<{ function: { name: string } }> };
    expect(sent.model).toBe('gpt-4o-mini');
    expect(sent.messages[0]?.role).toBe('system');
    expect(JSON.stringify(sent.messages)).toContain('Fetch the long report, please.');
    expect(sent.tools.map((tool) => tool.function.name)).toContain('long_report');
    expect(JSON.parse((await stepCards.nth(0).getByTestId('step-response').textContent()) ?? '{}')).toMatchObject({ toolCalls: [{ name: 'long_report' }] });
    await poll(() => stepCards.nth(0).getByTestId('step-llm-time').textContent()).toMatch(/\d+(\.\d+)? m?s$/);
    expect(await overflowsSideways('[data-testid="side-panel"] .mantine-ScrollArea-viewport')).toBe(false);

    // The address keeps the run open across a reload; Back returns to the list.
    await page.reload();
    await poll(() => page.getByTestId('run-detail').getByTestId('run-status').textContent()).toBe('completed');
    await page.goBack();
    await poll(() => page.getByTestId('runs-table').isVisible()).toBe(true);
  });
});

describe('agent settings', () => {
  it('changes the system prompt and the model parameters, and the next turn sends them to the model', async () => {
    ade.saveFailureScreenshot();
    const [offered] = await v1<Array<{ handle: string; max_context_window: number }>>('/models/');
    await openPanel('Settings');
    const system = page.getByTestId('settings-system');
    await system.getByRole('textbox', { name: 'System prompt' }).fill('You are a careful assistant. Answer in one sentence.');
    await system.getByRole('button', { name: 'Save' }).click();
    await poll(async () => (await v1<{ system: string }>(`/agents/${agentId}`)).system).toBe('You are a careful assistant. Answer in one sentence.');
    await poll(() => system.getByRole('button', { name: 'Save' }).count()).toBe(0);

    const settings = page.getByTestId('settings-model');
    // A context window past the model's is refused before anything is sent.
    await settings.getByLabel('Context window').fill(String(offered!.max_context_window + 1));
    await poll(() => settings.getByText(/^At most [\d,]+ tokens for this model$/).isVisible()).toBe(true);
    expect(await settings.getByRole('button', { name: 'Save' }).isDisabled()).toBe(true);
    await settings.getByLabel('Context window').fill('64000');
    await settings.getByLabel('Temperature').fill('0.3');
    await settings.getByLabel('Max output tokens').fill('512');
    await settings.getByRole('switch', { name: 'Parallel tool calls' }).check({ force: true });
    await settings.getByRole('button', { name: 'Save' }).click();
    await poll(async () => (await v1<{ llm_config: Record<string, unknown> }>(`/agents/${agentId}`)).llm_config).toMatchObject({
      context_window: 64000,
      temperature: 0.3,
      max_tokens: 512,
      parallel_tool_calls: true,
    });
    await poll(() => page.getByTestId('settings-model').getByLabel('Context window').inputValue()).toBe('64,000');

    model.enqueue({ type: 'text', text: 'Noted in one sentence.' });
    const before = model.requests.length;
    await page.getByRole('textbox', { name: 'Message' }).fill('Please take note.');
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    await poll(() => page.getByTestId('assistant-message').last().textContent(), 60_000).toBe('Noted in one sentence.');
    const sent = model.requests[before]!;
    expect(sent).toMatchObject({ temperature: 0.3, max_tokens: 512, parallel_tool_calls: true });
    expect(JSON.stringify(sent.messages[0]?.content)).toContain('Answer in one sentence.');
    await screenshotAt(1280, 'ade-1280-settings');
  });

  it('renames the agent, exports its file, duplicates it, and imports the file from the agents list', async () => {
    ade.saveFailureScreenshot();
    await openPanel('Settings');
    const naming = page.getByTestId('settings-name');
    await naming.getByLabel('Name').fill('trajectory-bot');
    await naming.getByRole('button', { name: 'Save' }).click();
    await poll(() => page.getByTestId('agent-name').textContent()).toBe('trajectory-bot');
    expect((await v1<{ name: string }>(`/agents/${agentId}`)).name).toBe('trajectory-bot');

    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export agent file' }).click();
    const exported = await download;
    expect(exported.suggestedFilename()).toBe('trajectory-bot.af');
    const exportedPath = path.join(screenshotDir, 'trajectory-bot.af');
    await exported.saveAs(exportedPath);
    const file = JSON.parse(readFileSync(exportedPath, 'utf8')) as { agents: Array<{ name: string; system: string }> };
    expect(file.agents).toHaveLength(1);
    expect(file.agents[0]).toMatchObject({ name: 'trajectory-bot', system: 'You are a careful assistant. Answer in one sentence.' });

    await page.getByRole('button', { name: 'Duplicate' }).click();
    const dialog = page.getByRole('dialog', { name: 'Duplicate this agent' });
    await dialog.getByLabel('Name of the copy').fill('trajectory twin');
    await dialog.getByRole('button', { name: 'Duplicate' }).click();
    await poll(() => page.getByTestId('agent-name').textContent(), 30_000).toBe('trajectory twin');
    const twinId = page.url().split('/').pop()!.split('?')[0]!;
    expect(twinId).not.toBe(agentId);
    const twin = await v1<{ system: string; llm_config: { temperature: number } }>(`/agents/${twinId}`);
    expect(twin).toMatchObject({ system: 'You are a careful assistant. Answer in one sentence.', llm_config: { temperature: 0.3 } });
    // The copy has the conversation too.
    await poll(() => page.getByTestId('assistant-message').last().textContent()).toBe('Noted in one sentence.');

    await page.goto(projectPath);
    await poll(() => page.getByTestId('agent-row').count()).toBe(2);
    const chooser = page.waitForEvent('filechooser');
    await page.getByRole('button', { name: 'Import agent file' }).click();
    await (await chooser).setFiles(exportedPath);
    await poll(() => page.getByTestId('agent-name').textContent(), 30_000).toBe('trajectory-bot');
    const importedId = page.url().split('/').pop()!.split('?')[0]!;
    expect([agentId, twinId]).not.toContain(importedId);
    expect(await v1<number>('/agents/count')).toBe(3);
  });

  it('deletes an agent after asking, and returns to the list', async () => {
    ade.saveFailureScreenshot();
    const twin = (await v1<Array<{ id: string; name: string }>>('/agents/?limit=10')).find((agent) => agent.name === 'trajectory twin')!;
    await page.goto(`${projectPath}/${twin.id}?panel=settings`);
    await page.getByRole('button', { name: 'Delete agent…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete trajectory twin?' });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect((await v1<{ id: string }>(`/agents/${twin.id}`)).id).toBe(twin.id);
    await page.getByRole('button', { name: 'Delete agent…' }).click();
    await dialog.getByRole('button', { name: 'Delete agent' }).click();
    await poll(() => new URL(page.url()).pathname).toBe(projectPath);
    await poll(() => page.getByTestId('agent-row').count()).toBe(2);
    await expect(v1(`/agents/${twin.id}`)).rejects.toThrow(/404/);
  });
});

describe('importing a file from Letta', () => {
  /** A file of Letta's public gallery: its model is an Anthropic one this stack lacks; its web_search and fetch_webpage are built in here too. */
  const LOOP = fileURLToPath(new URL('../../../api/src/services/agent-files/fixtures/gallery/letta-ai__loop__loop.af', import.meta.url));

  it('says what did not come over as the file had it before opening the agent', async () => {
    ade.saveFailureScreenshot();
    await page.goto(projectPath);
    const chooser = page.waitForEvent('filechooser');
    await page.getByRole('button', { name: 'Import agent file' }).click();
    await (await chooser).setFiles(LOOP);
    const dialog = page.getByRole('dialog', { name: 'Imported, with notes' });
    const notes = dialog.getByTestId('import-warnings');
    await poll(() => notes.isVisible(), 30_000).toBe(true);
    const text = await notes.textContent();
    expect(text).toContain("The file's model 'anthropic/claude-sonnet-4-5-20250929' is not available on this server");
    expect(text).not.toContain('web_search');
    expect(text).not.toContain('fetch_webpage');
    await screenshotAt(1280, 'import-with-notes');
    await dialog.getByRole('button', { name: 'Open the agent' }).click();
    await poll(() => page.getByTestId('agent-name').textContent(), 30_000).toBe('Loop');
    const importedId = page.url().split('/').pop()!.split('?')[0]!;
    const importedTools = await v1<Array<{ name: string }>>(`/agents/${importedId}/tools/?limit=50`);
    expect(importedTools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['web_search', 'fetch_webpage', 'note']));
    await v1(`/agents/${importedId}`, { method: 'DELETE' });
  });
});

describe('the right-hand panel at laptop widths', () => {
  it('shows every tab at 1280 px and, at 1024 px, puts the ones that do not fit in a More menu; nothing scrolls sideways', async () => {
    ade.saveFailureScreenshot();
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${agentPath}?panel=memory`);
    await poll(() => page.getByRole('tab', { name: 'Memory' }).isVisible()).toBe(true);
    for (const name of ['Memory', 'Tools', 'Context', 'Runs', 'Archive', 'Files', 'Settings']) {
      expect(await page.getByRole('tab', { name, exact: true }).isVisible(), name).toBe(true);
    }
    expect(await page.getByTestId('more-panels').count()).toBe(0);
    expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
    await screenshotAt(1280, 'ade-1280-memory');
    await openPanel('Runs');
    await page.getByTestId('run-row').last().click();
    await page.getByTestId('run-step').first().getByRole('button', { name: 'Step 1' }).click();
    await poll(() => page.getByTestId('step-request').isVisible()).toBe(true);
    expect(await overflowsSideways('[data-testid="side-panel"] .mantine-ScrollArea-viewport')).toBe(false);
    await screenshotAt(1280, 'ade-1280-run-detail');

    await page.setViewportSize({ width: 1024, height: 768 });
    const more = page.getByTestId('more-panels');
    await poll(() => more.isVisible()).toBe(true);
    const panels = ['Memory', 'Tools', 'Context', 'Runs', 'Archive', 'Files', 'Settings'];
    const tabsShown = async () => {
      const shown: string[] = [];
      for (const name of panels) if (await page.getByRole('tab', { name, exact: true }).isVisible()) shown.push(name);
      return shown;
    };
    // The open panel keeps its tab, named; the ones that do not fit are counted on the More button, in order.
    expect(await page.getByRole('tab', { name: 'Runs', selected: true }).textContent()).toBe('Runs');
    const shown = await tabsShown();
    const inMenu = panels.filter((name) => !shown.includes(name));
    expect(shown).toContain('Runs');
    expect(shown.length).toBeGreaterThanOrEqual(3);
    expect(inMenu.length).toBeGreaterThan(0);
    expect(await more.textContent()).toBe(`More (${inMenu.length})`);
    expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
    await more.click();
    expect(await page.getByRole('menuitem').allTextContents()).toEqual(inMenu);
    await screenshotAt(1024, 'ade-1024-more-menu');
    await page.getByRole('menuitem', { name: 'Settings' }).click();
    await poll(() => page.getByTestId('settings-panel').isVisible()).toBe(true);
    await poll(() => page.getByRole('tab', { name: 'Settings', selected: true }).isVisible()).toBe(true);
    expect(await overflowsSideways('[data-testid="side-panel"] .mantine-ScrollArea-viewport')).toBe(false);
    await screenshotAt(1024, 'ade-1024-settings');
    await page.setViewportSize({ width: 1440, height: 900 });
  });
});

describe('an analyst in the ADE', () => {
  it('reads the settings and runs but is offered no change, deletion, duplicate or import', async () => {
    ade.saveFailureScreenshot();
    const email = `analyst-${Date.now()}@example.com`;
    const invite = await page.context().request.post('/api/organizations/self/invited-members', { data: { email, role: 'analyst' } });
    expect(invite.status()).toBe(201);
    const { inviteCode } = (await invite.json()) as { inviteCode: string };
    const analystContext = await page.context().browser()!.newContext({ viewport: { width: 1440, height: 900 }, baseURL: ade.stack.baseUrl, reducedMotion: 'reduce' });
    const joined = await analystContext.request.post('/api/user/new-with-invite', { data: { email, name: 'Ann Alyst', password: 'read-only-1962', inviteCode } });
    expect(joined.status()).toBe(201);
    const analyst = await analystContext.newPage();
    analyst.setDefaultTimeout(20_000);

    await analyst.goto(`${agentPath}?panel=settings`);
    await poll(() => analyst.getByText("Your role can read this agent's settings but not change them.").isVisible()).toBe(true);
    expect(await analyst.getByRole('textbox', { name: 'System prompt' }).getAttribute('readonly')).not.toBeNull();
    expect(await analyst.getByRole('button', { name: 'Export agent file' }).isVisible()).toBe(true);
    for (const name of ['Delete agent…', 'Duplicate', 'Import agent file']) expect(await analyst.getByRole('button', { name }).count(), name).toBe(0);
    // Typing changes nothing that could be saved.
    await analyst.getByRole('textbox', { name: 'System prompt' }).press('End');
    expect(await analyst.getByRole('button', { name: 'Save' }).count()).toBe(0);

    await analyst.getByRole('tab', { name: 'Memory' }).click();
    await poll(() => analyst.getByTestId('memory-block-persona').isVisible()).toBe(true);
    expect(await analyst.getByRole('button', { name: 'Edit persona' }).count()).toBe(0);
    await analyst.getByRole('tab', { name: 'Archive' }).click();
    expect(await analyst.getByRole('button', { name: 'Add', exact: true }).count()).toBe(0);
    // An analyst may message agents.
    expect(await analyst.getByRole('textbox', { name: 'Message' }).isEnabled()).toBe(true);
    await analyst.screenshot({ path: path.join(screenshotDir, 'ade-1440-analyst.png') });

    await analyst.goto(projectPath);
    await poll(() => analyst.getByTestId('agent-row').count()).toBe(2);
    expect(await analyst.getByRole('link', { name: 'New agent' }).count()).toBe(0);
    expect(await analyst.getByRole('button', { name: 'Import agent file' }).count()).toBe(0);
    await analystContext.close();
  });

  it('raised no page error and no Content-Security-Policy violation', () => {
    expect(ade.pageErrors).toEqual([]);
    expect(ade.cspViolations).toEqual([]);
  });
});
