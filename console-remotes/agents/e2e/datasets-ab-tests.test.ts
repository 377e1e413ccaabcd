import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { wilsonInterval } from '@engram/core';
import type { ChatRequest, ScriptedModelServer } from '@engram/testing';
import { artifactsDir } from '../../../console-shell/e2e/browser.js';
import { poll, startAdeHarness, type AdeHarness } from './ade-harness.js';

/*
 * Datasets and A/B tests in the agents remote, in real Chromium against the real stack. A template with two
 * versions whose system prompts name them; a dataset made in the console (items added, one edited, two imported
 * from a JSONL file, all exported again), run against both versions, each run's results read, and the two runs
 * compared item by item. Then an A/B test of the two versions: arms attached with weights, end users' agents made
 * through `POST /v1/ab-tests/{id}/agents`, each talked to once and its step rated, the users, runs and feedback
 * intervals per arm read in the console, and the test stopped with the winner promoted.
 */

let ade: AdeHarness;
let page: Page;
let model: ScriptedModelServer;
/** `/projects/<slug>/agents`: the remote's root. */
let remoteRoot: string;
const TEMPLATE = 'eval-template';

const lastUserText = (request: ChatRequest) => String([...request.messages].reverse().find((message) => message.role === 'user')?.content ?? '');
const systemText = (request: ChatRequest) => String(request.messages.find((message) => message.role === 'system')?.content ?? '');

/** What each version answers: version one knows the sum and the colour, version two does not; both know Paris. */
function answer(request: ChatRequest) {
  const version = systemText(request).includes('version two') ? 2 : 1;
  const question = lastUserText(request);
  if (question.includes('2+2')) return { type: 'text' as const, text: version === 1 ? '4' : '5', usage: { prompt_tokens: 30, completion_tokens: 2 } };
  if (question.includes('colour')) return { type: 'text' as const, text: version === 1 ? 'The sky is blue' : 'Red, I think' };
  if (question.includes('France')) return { type: 'text' as const, text: version === 1 ? 'Paris' : 'It is Paris.' };
  return { type: 'text' as const, text: `hello from version ${version}` };
}

beforeAll(async () => {
  ade = await startAdeHarness({
    account: { name: 'Grace Hopper', email: `grace-${Date.now()}@example.com`, password: 'compiler-1952-cobol' },
    projectName: 'Evaluations',
    agent: { name: 'eval-bot', model: 'openai/gpt-4o-mini', include_base_tools: false, system: 'You are version one.' },
    failureScreenshot: 'datasets-ab-tests-failure.png',
  });
  ({ page, model } = ade);
  model.onRequest(answer);
  remoteRoot = ade.agentPath.slice(0, ade.agentPath.lastIndexOf('/'));

  // The template and its two versions come over HTTP: the template screens have a test of their own.
  const { project_id: projectId } = await ade.v1<{ project_id: string }>(`/agents/${ade.agentId}`);
  const created = await page.request.post('/api/agent-templates', { data: { name: TEMPLATE, agentId: ade.agentId, projectId } });
  expect(created.status(), await created.text()).toBe(201);
  const templateId = ((await created.json()) as { id: string }).id;
  expect((await page.request.post(`/api/agent-templates/${templateId}/versions`, { data: { message: 'one' } })).status()).toBe(201);
  expect((await page.request.patch(`/api/agent-templates/${templateId}`, { data: { systemPrompt: 'You are version two.' } })).status()).toBeLessThan(300);
  expect((await page.request.post(`/api/agent-templates/${templateId}/versions`, { data: { message: 'two' } })).status()).toBe(201);
}, 300_000);

afterAll(() => ade?.close());

async function screenshot(name: string) {
  mkdirSync(artifactsDir, { recursive: true });
  await page.screenshot({ path: path.join(artifactsDir, `datasets-ab-tests-${name}.png`), fullPage: true });
}

/** Picks a template and one of its versions in a dialog's two selects. */
async function chooseVersion(dialog: Locator, version: 'v1 · one' | 'v2 · two') {
  await dialog.getByRole('combobox', { name: 'Template' }).click();
  await page.getByRole('option', { name: TEMPLATE }).click();
  await dialog.getByRole('combobox', { name: 'Version' }).click();
  await page.getByRole('option', { name: version }).click();
}

async function addItem(fields: { message: string; expected: string }) {
  await page.getByRole('button', { name: 'Add item' }).click();
  const dialog = page.getByRole('dialog', { name: 'New item' });
  await dialog.getByRole('textbox', { name: 'Message' }).fill(fields.message);
  await dialog.getByRole('textbox', { name: 'Expected answer' }).fill(fields.expected);
  await dialog.getByRole('button', { name: 'Add item' }).click();
  await poll(() => dialog.count()).toBe(0);
}

async function startRun(version: 'v1 · one' | 'v2 · two') {
  await page.getByRole('button', { name: 'Run against…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Run support-questions' });
  await chooseVersion(dialog, version);
  await dialog.getByRole('button', { name: 'Start run' }).click();
  await poll(() => dialog.count()).toBe(0);
}

/** An attribute of every element a locator matches, in order. */
async function attributesOf(locator: Locator, name: string): Promise<Array<string | null>> {
  const elements = await locator.all();
  return Promise.all(elements.map((element) => element.getAttribute(name)));
}

const cellTexts = (row: Locator, testId: string) => row.getByTestId(testId).allTextContents();

describe('datasets and A/B tests in the console', () => {
  it('builds a dataset, runs it against two versions of a template, and compares the runs item by item', { timeout: 300_000 }, async () => {
    ade.saveFailureScreenshot();
    await page.goto(`${remoteRoot}/datasets`);
    await poll(() => page.getByText('No datasets in this project yet').count()).toBe(1);

    // The API's own message for a dataset without a name.
    await page.getByRole('button', { name: 'New dataset' }).click();
    const creating = page.getByRole('dialog', { name: 'New dataset' });
    await creating.getByRole('button', { name: 'Create dataset' }).click();
    await poll(() => creating.getByRole('alert').textContent()).toContain('Name is required');
    await creating.getByRole('textbox', { name: 'Name' }).fill('support-questions');
    await creating.getByRole('button', { name: 'Create dataset' }).click();
    await page.waitForURL(/\/datasets\/dataset-/);
    await poll(() => page.getByTestId('dataset-name').textContent()).toBe('support-questions');
    await poll(() => page.getByText('No items yet.', { exact: false }).count()).toBe(1);

    // The API's message for a scorer without what it scores against.
    await page.getByRole('button', { name: 'Add item' }).click();
    const refused = page.getByRole('dialog', { name: 'New item' });
    await refused.getByRole('textbox', { name: 'Message' }).fill('Name a colour');
    await refused.getByRole('combobox', { name: 'Scorer' }).click();
    await page.getByRole('option', { name: 'Contains: the answer holds the expected one' }).click();
    await refused.getByRole('button', { name: 'Add item' }).click();
    await poll(() => refused.getByRole('alert').textContent()).toContain('The contains scorer needs an expected answer');
    await refused.getByRole('button', { name: 'Cancel' }).click();
    await poll(() => refused.count()).toBe(0);

    await addItem({ message: 'What is 2+2?', expected: '4' });
    await addItem({ message: 'Name a colour', expected: 'blue' });
    // An answer naming the colour in a sentence is right too: the item scores by containment.
    await poll(() => page.getByTestId('item-scorer').allTextContents()).toEqual(['exact', 'exact']);
    await page.getByRole('button', { name: 'Edit item 2' }).click();
    const editing = page.getByRole('dialog', { name: 'Edit item' });
    await editing.getByRole('combobox', { name: 'Scorer' }).click();
    await page.getByRole('option', { name: 'Contains: the answer holds the expected one' }).click();
    await editing.getByRole('button', { name: 'Save item' }).click();
    await poll(() => page.getByTestId('item-scorer').allTextContents()).toEqual(['exact', 'contains']);

    // Two more items from a JSONL file.
    const importFile = path.join(artifactsDir, 'datasets-import.jsonl');
    mkdirSync(artifactsDir, { recursive: true });
    writeFileSync(
      importFile,
      `${JSON.stringify({ createMessage: { role: 'user', content: 'Capital of France?' }, expectedAnswer: 'Paris', scorer: 'contains' })}\n${JSON.stringify({ createMessage: { role: 'user', content: 'Say hi' } })}\n`,
    );
    await page.getByRole('button', { name: 'Import JSONL' }).click();
    const importing = page.getByRole('dialog', { name: 'Import items' });
    const chooser = page.waitForEvent('filechooser');
    await importing.getByRole('button', { name: 'Choose a file' }).click();
    await (await chooser).setFiles(importFile);
    await poll(() => importing.getByRole('textbox', { name: 'JSONL' }).inputValue()).toContain('Capital of France?');
    await importing.getByRole('button', { name: 'Import', exact: true }).click();
    await poll(() => importing.getByTestId('imported').textContent()).toBe('2 items imported');
    await importing.getByRole('button', { name: 'Done' }).click();
    await poll(() => page.getByTestId('item-message').allTextContents()).toEqual(['What is 2+2?', 'Name a colour', 'Capital of France?', 'Say hi']);
    expect(await page.getByTestId('item-total').textContent()).toBe('4');
    expect(await page.getByTestId('item-scorer').allTextContents()).toEqual(['exact', 'contains', 'contains', 'not scored']);

    const download = page.waitForEvent('download');
    await page.getByRole('link', { name: 'Export JSONL' }).click();
    const exported = await download;
    expect(exported.suggestedFilename()).toBe('support-questions.jsonl');
    const exportedPath = path.join(artifactsDir, 'support-questions.jsonl');
    await exported.saveAs(exportedPath);
    expect(
      readFileSync(exportedPath, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line)),
    ).toEqual([
      { createMessage: { role: 'user', content: 'What is 2+2?' }, expectedAnswer: '4', scorer: 'exact' },
      { createMessage: { role: 'user', content: 'Name a colour' }, expectedAnswer: 'blue', scorer: 'contains' },
      { createMessage: { role: 'user', content: 'Capital of France?' }, expectedAnswer: 'Paris', scorer: 'contains' },
      { createMessage: { role: 'user', content: 'Say hi' } },
    ]);

    await startRun('v1 · one');
    await startRun('v2 · two');
    const runRows = page.getByTestId('dataset-run');
    await poll(async () => [await attributesOf(runRows, 'data-version'), await attributesOf(runRows, 'data-status')], 180_000).toEqual([
      [`${TEMPLATE}:2`, `${TEMPLATE}:1`],
      ['completed', 'completed'],
    ]);
    expect(await page.getByTestId('run-progress').allTextContents()).toEqual(['4 of 4 items', '4 of 4 items']);
    await screenshot('dataset');

    // One run's results, item by item.
    await page.getByRole('link', { name: `${TEMPLATE}:1` }).click();
    await page.waitForURL(/\/runs\//);
    const results = page.getByTestId('run-result');
    await poll(() => results.count()).toBe(4);
    await poll(() => page.getByTestId('result-message').allTextContents()).toEqual(['What is 2+2?', 'Name a colour', 'Capital of France?', 'Say hi']);
    expect(await page.getByTestId('result-answer').allTextContents()).toEqual(['4', 'The sky is blue', 'Paris', 'hello from version 1']);
    expect(await page.getByTestId('result-score').allTextContents()).toEqual(['100%', '100%', '100%', '—']);
    expect(await results.first().getByTestId('result-tokens').textContent()).toBe('32');
    expect(await page.getByTestId('summary-score').textContent()).toBe('100%');
    expect(await page.getByTestId('summary-failed').textContent()).toBe('0');
    await screenshot('run-results');
    await page.getByRole('link', { name: 'Back to the dataset' }).click();
    await poll(() => page.getByTestId('dataset-run').count()).toBe(2);

    // Version one as the base, version two beside it.
    await page.getByRole('checkbox', { name: `Compare the run of ${TEMPLATE}:1` }).check();
    await page.getByRole('checkbox', { name: `Compare the run of ${TEMPLATE}:2` }).check();
    await page.getByRole('button', { name: 'Compare the two chosen' }).click();
    await page.waitForURL(/\/compare\?/);
    const rows = page.getByTestId('comparison-row');
    await poll(() => rows.count()).toBe(4);
    expect(await page.getByTestId('compared-message').allTextContents()).toEqual(['What is 2+2?', 'Name a colour', 'Capital of France?', 'Say hi']);
    const base = page.getByTestId('compared-base');
    const other = page.getByTestId('compared-other');
    expect(await cellTexts(base, 'compared-answer')).toEqual(['4', 'The sky is blue', 'Paris', 'hello from version 1']);
    expect(await cellTexts(other, 'compared-answer')).toEqual(['5', 'Red, I think', 'It is Paris.', 'hello from version 2']);
    expect(await cellTexts(base, 'compared-score')).toEqual(['100%', '100%', '100%', '—']);
    expect(await cellTexts(other, 'compared-score')).toEqual(['0%', '0%', '100%', '—']);
    expect(await attributesOf(rows, 'data-change')).toEqual(['worse', 'worse', 'same', 'unscored']);
    const meanScore = page.getByTestId('total-Mean score');
    expect([await meanScore.getByTestId('total-base').textContent(), await meanScore.getByTestId('total-other').textContent()]).toEqual(['100%', '33%']);
    const finished = page.getByTestId('total-Items finished');
    expect([await finished.getByTestId('total-base').textContent(), await finished.getByTestId('total-other').textContent()]).toEqual(['4 of 4', '4 of 4']);
    const steps = page.getByTestId('total-Mean steps');
    expect([await steps.getByTestId('total-base').textContent(), await steps.getByTestId('total-other').textContent()]).toEqual(['1', '1']);
    await screenshot('comparison');

    await page.getByRole('link', { name: 'Back to the dataset' }).click();
    await page.getByRole('button', { name: 'Rename' }).click();
    const renaming = page.getByRole('dialog', { name: 'Rename support-questions' });
    await renaming.getByRole('textbox', { name: 'Name' }).fill('support questions (2026)');
    await renaming.getByRole('button', { name: 'Save' }).click();
    await poll(() => page.getByTestId('dataset-name').textContent()).toBe('support questions (2026)');
    expect(ade.pageErrors).toEqual([]);
    expect(ade.cspViolations).toEqual([]);
  });

  it('splits end users between two versions, shows users and feedback intervals per arm, and stops with the winner promoted', { timeout: 300_000 }, async () => {
    ade.saveFailureScreenshot();
    await page.goto(`${remoteRoot}/ab-tests`);
    await poll(() => page.getByText('No A/B tests in this project yet').count()).toBe(1);
    await page.getByRole('button', { name: 'New A/B test' }).click();
    const creating = page.getByRole('dialog', { name: 'New A/B test' });
    await creating.getByRole('textbox', { name: 'Name' }).fill('greeting wording');
    await creating.getByRole('button', { name: 'Create A/B test' }).click();
    await page.waitForURL(/\/ab-tests\/ab_test-/);
    const abTestId = page.url().split('/').pop()!;
    await poll(() => page.getByTestId('ab-test-status').textContent()).toBe('running');
    await poll(() => page.getByText('No arms yet.', { exact: false }).count()).toBe(1);

    for (const [version, weight] of [
      ['v1 · one', '60'],
      ['v2 · two', '30'],
    ] as const) {
      await page.getByRole('button', { name: 'Attach a version' }).click();
      const attaching = page.getByRole('dialog', { name: 'Attach a version to greeting wording' });
      await chooseVersion(attaching, version);
      await attaching.getByRole('textbox', { name: 'Weight' }).fill(weight);
      await attaching.getByRole('button', { name: 'Attach version' }).click();
      await poll(() => attaching.count()).toBe(0);
    }
    await poll(() => page.getByTestId('arm-share').allTextContents()).toEqual(['67%', '33%']);
    // Even weights after all.
    await page.getByRole('textbox', { name: `Weight of ${TEMPLATE}:2` }).fill('60');
    await page.getByTestId('ab-arm').nth(1).getByRole('button', { name: 'Save' }).click();
    await poll(() => page.getByTestId('arm-share').allTextContents()).toEqual(['50%', '50%']);
    await poll(() => page.getByTestId('winner-summary').textContent()).toBe('No arm is significantly better yet');

    // End users arrive through the API until each arm has four; each talks to its agent once and rates the reply:
    // version two's users like theirs, version one's do not.
    const arms = (await (await page.request.get(`/api/ab-tests/${abTestId}/templates`)).json()) as { templates: Array<{ id: string; templateName: string }> };
    const armOf = new Map(arms.templates.map((arm) => [arm.id, arm.templateName]));
    const users = new Map<string, string[]>([
      [`${TEMPLATE}:1`, []],
      [`${TEMPLATE}:2`, []],
    ]);
    for (let index = 0; [...users.values()].some((agents) => agents.length < 4); index++) {
      expect(index).toBeLessThan(40);
      const assigned = await ade.v1<{ agent_id: string; ab_test_template_id: string; created: boolean }>(`/ab-tests/${abTestId}/agents`, {
        method: 'POST',
        body: { identity: `customer-${index}` },
      });
      expect(assigned.created).toBe(true);
      users.get(armOf.get(assigned.ab_test_template_id)!)!.push(assigned.agent_id);
    }
    const [armOneAgents, armTwoAgents] = [users.get(`${TEMPLATE}:1`)!, users.get(`${TEMPLATE}:2`)!];
    for (const [templateName, agentIds] of users) {
      for (const agentId of agentIds) {
        const reply = await ade.v1<{ messages: Array<{ message_type: string; content?: string }> }>(`/agents/${agentId}/messages`, {
          method: 'POST',
          body: { messages: [{ role: 'user', content: 'Good morning' }] },
        });
        const version = templateName.endsWith(':2') ? 2 : 1;
        expect(reply.messages.find((message) => message.message_type === 'assistant_message')?.content).toBe(`hello from version ${version}`);
        const [step] = await ade.v1<Array<{ id: string }>>(`/steps/?agent_id=${agentId}`);
        await ade.v1(`/steps/${step!.id}/feedback`, { method: 'PATCH', body: { feedback: version === 2 ? 'positive' : 'negative' } });
      }
    }

    // The page refreshes on its own while it is open.
    const armResult = (templateName: string) => page.locator(`[data-testid="arm-result"][data-template="${templateName}"]`);
    const one = armResult(`${TEMPLATE}:1`);
    const two = armResult(`${TEMPLATE}:2`);
    await poll(() => two.getByTestId('arm-feedback').textContent(), 30_000).toBe(`${armTwoAgents.length} up · 0 down`);
    await poll(() => one.getByTestId('arm-feedback').textContent(), 30_000).toBe(`0 up · ${armOneAgents.length} down`);
    expect(await one.getByTestId('arm-users').textContent()).toBe(String(armOneAgents.length));
    expect(await two.getByTestId('arm-users').textContent()).toBe(String(armTwoAgents.length));
    expect(await one.getByTestId('arm-runs').textContent()).toBe(String(armOneAgents.length));
    expect(await two.getByTestId('arm-runs').textContent()).toBe(String(armTwoAgents.length));
    expect(await one.getByTestId('arm-error-rate').textContent()).toBe('0%');
    expect(await two.getByTestId('arm-latency').textContent()).toMatch(/^\d[\d,.]* (ms|s)$/);

    // Each arm's interval, as the Wilson interval of its ratings, in text and drawn.
    for (const [row, positive, rated] of [
      [two, armTwoAgents.length, armTwoAgents.length],
      [one, 0, armOneAgents.length],
    ] as const) {
      const interval = wilsonInterval(positive, rated);
      const whole = (value: number) => Math.round(value * 100);
      expect(await row.getByTestId('arm-rate').textContent()).toBe(`${whole(interval.rate!)}% (${whole(interval.low)}–${whole(interval.high)}%)`);
      const bar = row.getByTestId('interval-bar');
      expect(Number(await bar.getAttribute('data-low'))).toBeCloseTo(interval.low, 10);
      expect(Number(await bar.getAttribute('data-high'))).toBeCloseTo(interval.high, 10);
      const [barBox, bandBox] = [await bar.boundingBox(), await row.getByTestId('interval-band').boundingBox()];
      expect((bandBox!.x - barBox!.x) / barBox!.width).toBeCloseTo(interval.low, 1);
      expect(bandBox!.width / barBox!.width).toBeCloseTo(interval.high - interval.low, 1);
    }
    await poll(() => two.getByTestId('winner-badge').count(), 30_000).toBe(1);
    expect(await one.getByTestId('winner-badge').count()).toBe(0);
    expect(await page.getByTestId('winner-summary').textContent()).toMatch(new RegExp(`^${TEMPLATE}:2 is significantly better \\(p = `));
    await screenshot('ab-test');

    await page.getByRole('button', { name: 'Stop', exact: true }).click();
    const stopping = page.getByRole('dialog', { name: 'Stop greeting wording?' });
    expect(await stopping.getByRole('checkbox', { name: `Promote ${TEMPLATE}:2: deploy it and migrate every agent of the template to it` }).isChecked()).toBe(true);
    await stopping.getByRole('button', { name: 'Stop and promote' }).click();
    await poll(() => stopping.count()).toBe(0);
    await poll(() => page.getByTestId('ab-test-status').textContent()).toBe('stopped');
    await poll(() => two.getByTestId('promoted-badge').count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Stop', exact: true }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Attach a version' }).count()).toBe(0);

    // The promotion migrates every agent of the template, version one's users included, to version two.
    const templates = (await (await page.request.get(`/api/agent-templates?search=${TEMPLATE}`)).json()) as { agentTemplates: Array<{ id: string; latestDeployedVersion: string }> };
    const template = templates.agentTemplates[0]!;
    expect(template.latestDeployedVersion).toBe('2');
    await poll(async () => ((await (await page.request.get(`/api/agent-templates/migrations?templateId=${template.id}`)).json()) as { migrations: Array<{ status: string }> }).migrations[0]?.status, 120_000).toBe(
      'completed',
    );
    for (const agentId of armOneAgents) expect((await ade.v1<{ system: string }>(`/agents/${agentId}`)).system).toBe('You are version two.');
    await screenshot('ab-test-stopped');

    // Deleting the test leaves its users' agents alone.
    await page.getByRole('button', { name: 'Delete greeting wording' }).click();
    await page.getByRole('dialog', { name: 'Delete greeting wording?' }).getByRole('button', { name: 'Delete A/B test' }).click();
    await page.waitForURL(/\/ab-tests$/);
    await poll(() => page.getByText('No A/B tests in this project yet').count()).toBe(1);
    expect((await ade.v1<{ id: string }>(`/agents/${armTwoAgents[0]}`)).id).toBe(armTwoAgents[0]);
    expect(ade.pageErrors).toEqual([]);
    expect(ade.cspViolations).toEqual([]);
  });
});
