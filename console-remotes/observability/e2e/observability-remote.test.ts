import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import type { Browser, BrowserContext, Page, Response } from 'playwright-core';
import { CreditTransaction, InferenceModel } from '@engram/db';
import { startScriptedModelServer, startTestStack, type ScriptedModelServer, type TestStack, until } from '@engram/testing';
import { ensureConsoleBuilt } from '../../../scripts/console-build.js';
import { artifactsDir, DESKTOP, launchChromium, screenshots } from '../../../console-shell/e2e/browser.js';

/*
 * The observability remote in real Chromium against the real stack, its spans written to the span store with
 * content recorded (ENGRAM_TRACE_CONTENT): three turns of an agent on the scripted model, one of them calling a
 * tool, are counted on the dashboard, found in the trace explorer and opened as a waterfall of their spans; the
 * model's usage shows per model; and a brand-new organization sees empty states, not broken charts.
 */

const tag = randomBytes(3).toString('hex');
const MODEL = 'openai/gpt-4o-mini';
const PASSWORD = 'observability-password-1';
const USAGE = { prompt_tokens: 120, completion_tokens: 7, total_tokens: 127 };

let stack: TestStack;
let model: ScriptedModelServer;
let browser: Browser;

/** `expect.poll` with a timeout fit for a browser on a busy machine (its default is one second). */
function poll<T>(read: () => Promise<T> | T, timeout = 20_000) {
  return expect.poll(read, { timeout, interval: 50 });
}

type Script = { path: string; bytes: number };

type Account = { context: BrowserContext; page: Page; projectSlug: string; projectId: string; organizationId: string; apiKey: string; scripts: Script[]; errors: string[] };

/** A user signed up over HTTP in a browser context of their own (so the page is signed in), with a project and a key. */
async function account(label: string): Promise<Account> {
  const context = await browser.newContext({ viewport: DESKTOP, baseURL: stack.baseUrl, reducedMotion: 'reduce' });
  const created = await context.request.post('/api/user/new', { data: { email: `${label}-${tag}@example.com`, name: `${label} ${tag}`, password: PASSWORD } });
  expect(created.status()).toBe(201);
  const organization = (await (await context.request.get('/api/organizations/self')).json()) as { id: string };
  const project = (await (await context.request.post('/api/projects', { data: { name: `${label} project` } })).json()) as { id: string; slug: string };
  const apiKey = ((await (await context.request.post('/api/api-keys', { data: { name: 'checks' } })).json()) as { apiKey: string }).apiKey;
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  const scripts: Script[] = [];
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  const onResponse = async (response: Response) => {
    if (!response.url().endsWith('.js')) return;
    const sizes = await response.request().sizes().catch(() => null);
    scripts.push({ path: new URL(response.url()).pathname, bytes: sizes?.responseBodySize ?? 0 });
  };
  page.on('response', (response) => void onResponse(response));
  onTestFailed(async () => {
    mkdirSync(artifactsDir, { recursive: true });
    await page.screenshot({ path: path.join(artifactsDir, `observability-${label}-failure.png`), fullPage: true }).catch(() => undefined);
  });
  return { context, page, projectSlug: project.slug, projectId: project.id, organizationId: organization.id, apiKey, scripts, errors };
}

async function v1<T>(apiKey: string, pathname: string, body?: unknown): Promise<T> {
  const response = await fetch(`${stack.baseUrl}/v1${pathname}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`/v1${pathname}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

type TraceSummary = { trace_id: string; run_id: string | null; agent_steps: number; function_names: string[] };

/**
 * The workflow's spans reach the store when each run's workflow completes, a moment after its answer: wait until
 * the console API sees every run's trace with all its steps.
 */
function settledTraces(owner: Account, runIds: string[], steps: number): Promise<TraceSummary[]> {
  const now = Math.ceil(Date.now() / 1000) + 60;
  const ours = async () => {
    await stack.telemetry?.forceFlush();
    const response = await owner.context.request.post('/api/observability/traces', { data: { startTimeUnix: now - 3600, endTimeUnix: now } });
    const { traces } = (await response.json()) as { traces: TraceSummary[] };
    return traces.filter((trace) => trace.run_id !== null && runIds.includes(trace.run_id));
  };
  return until(ours, (found) => found.length === runIds.length && found.reduce((sum, trace) => sum + trace.agent_steps, 0) === steps, {
    what: 'the traces of the runs settled',
  });
}

beforeAll(async () => {
  await ensureConsoleBuilt({ log: () => undefined });
  model = await startScriptedModelServer({ models: ['gpt-4o-mini'] });
  stack = await startTestStack({
    baseProviders: [{ name: 'openai', providerType: 'openai', apiKey: 'test', baseUrl: model.url }],
    telemetry: { recordContent: true },
  });
  // The model registry is the platform's, shared with other test files: the model may be registered already.
  await InferenceModel.query(stack.db)
    .insert({
      id: randomUUID(),
      name: MODEL,
      brand: 'openai',
      modelEndpoint: 'https://api.openai.com/v1',
      defaultRequestsPerMinutePerOrganization: 10_000,
      defaultTokensPerMinutePerOrganization: 10_000_000,
    })
    .onConflict('name')
    .ignore();
  browser = await launchChromium();
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
  await model?.close();
});

describe('the observability remote', () => {
  it('counts the runs, steps and tool calls of an agent, finds its traces and opens their spans, and shows its usage per model', { timeout: 300_000 }, async () => {
    const owner = await account('observer');
    const { page } = owner;
    const agent = await v1<{ id: string }>(owner.apiKey, '/agents/', {
      name: 'observed',
      model: MODEL,
      project_id: owner.projectId,
      memory_blocks: [{ label: 'human', value: 'Ada.' }],
    });
    // Three turns: the first calls a tool twice, a step each, and answers (three steps); the others answer at once.
    model.enqueue(
      { type: 'tool_calls', calls: [{ id: 'call-memory', name: 'memory_insert', arguments: { label: 'human', new_string: 'Likes tea.' } }], usage: USAGE },
      { type: 'tool_calls', calls: [{ id: 'call-memory-2', name: 'memory_insert', arguments: { label: 'human', new_string: 'Drinks it black.' } }], usage: USAGE },
      { type: 'text', text: 'Noted.', usage: USAGE },
    );
    const turns = [await v1<{ messages: Array<{ run_id: string }> }>(owner.apiKey, `/agents/${agent.id}/messages`, { messages: [{ role: 'user', content: 'I like tea.' }] })];
    for (const text of ['Hello again.', 'Goodbye.']) {
      model.enqueue({ type: 'text', text, usage: USAGE });
      turns.push(await v1(owner.apiKey, `/agents/${agent.id}/messages`, { messages: [{ role: 'user', content: text }] }));
    }
    const runIds = turns.map((turn) => turn.messages[0]?.run_id as string);
    const traces = await settledTraces(owner, runIds, 5);
    const toolTrace = traces.find((trace) => trace.function_names.includes('memory_insert')) as TraceSummary;
    expect(toolTrace.agent_steps).toBe(3);

    // The remote loads only when opened.
    const remoteScripts = () => owner.scripts.filter((script) => script.path.startsWith('/console/remotes/observability/'));
    await page.goto(`/projects/${owner.projectSlug}/agents`);
    await page.waitForLoadState('networkidle');
    expect(remoteScripts()).toEqual([]);
    await page.getByRole('link', { name: 'Observability', exact: true }).click();
    await page.waitForURL(`**/projects/${owner.projectSlug}/observability`);
    await poll(() => page.getByRole('heading', { name: 'Observability' }).isVisible()).toBe(true);
    await poll(() => remoteScripts().length).toBeGreaterThan(0);

    // The dashboard counts what was run: 3 runs, 5 steps, 1 agent, no errors, the tool called twice in 1 run.
    await poll(() => page.getByTestId('stat-runs').textContent()).toBe('3');
    expect(await page.getByTestId('stat-steps').textContent()).toBe('5');
    expect(await page.getByTestId('stat-active-agents').textContent()).toBe('1');
    expect(await page.getByTestId('stat-api-errors').textContent()).toBe('0');
    expect(await page.getByTestId('stat-tool-errors').textContent()).toBe('0');
    const toolRow = page.getByTestId('tool-usage-row');
    await poll(() => toolRow.count()).toBe(1);
    expect(await toolRow.getAttribute('data-tool')).toBe('memory_insert');
    expect(await toolRow.getByTestId('tool-calls').textContent()).toBe('2');
    expect(await toolRow.getByTestId('tool-call-error-rate').textContent()).toBe('0%');
    expect(await toolRow.getByTestId('tool-runs').textContent()).toBe('1');
    expect(await toolRow.getByTestId('tool-error-rate').textContent()).toBe('0%');
    // The charts draw what the API measured: a run-duration line per percentile, and the range's charges.
    await poll(() => page.locator('[data-testid="latency-chart"] .recharts-line').count()).toBe(3);
    await poll(() => page.locator('[data-testid="steps-chart"] .recharts-bar-rectangle').count()).toBeGreaterThan(0);
    expect(await page.getByTestId('errors-total').textContent()).toBe('No run had an error in this range.');
    const charges = await CreditTransaction.query(stack.db).forOrg(owner.organizationId).where('source', 'inference');
    expect(charges).toHaveLength(5);
    const credits = charges.reduce((sum, charge) => sum + Number(charge.amount), 0);
    await poll(() => page.getByTestId('cost-total').textContent()).toBe(credits.toLocaleString('en-US'));
    // The slowest first tokens: one row per answered send.
    await poll(() => page.getByTestId('ttft-messages').locator('tbody tr').count()).toBe(3);
    // Hourly over the last hour, in UTC: the same runs.
    await page.getByRole('radiogroup', { name: 'Time range' }).getByText('1h', { exact: true }).click();
    await page.getByRole('radiogroup', { name: 'Granularity' }).getByText('Hourly', { exact: true }).click();
    await page.getByLabel('Timezone').selectOption('UTC');
    await poll(() => new URL(page.url()).search).toBe('?range=1h&granularity=hourly&timezone=UTC');
    await poll(() => page.getByTestId('stat-runs').textContent()).toBe('3');
    await screenshots(page, 'observability-01-dashboard');

    // The trace explorer: the three traces, newest first; a bad filter is refused in its field with the API's words.
    await page.getByRole('navigation', { name: 'Observability screens' }).getByRole('link', { name: 'Traces' }).click();
    await page.waitForURL((url) => url.pathname.endsWith('/observability/traces') && url.search === '?range=1h&granularity=hourly&timezone=UTC');
    await poll(() => page.getByTestId('trace-row').count()).toBe(3);
    expect(await page.getByTestId('trace-row').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-trace-id')))).toEqual(
      expect.arrayContaining(traces.map((trace) => trace.trace_id)),
    );
    const filters = page.getByRole('form', { name: 'Trace filters' });
    await filters.getByLabel('Duration value').fill('fast');
    await filters.getByRole('button', { name: 'Search' }).click();
    await poll(() => filters.getByText('Invalid duration format').isVisible()).toBe(true);
    await filters.getByLabel('Duration value').fill('');
    await filters.getByLabel('Tool called').fill('memory_insert');
    await filters.getByRole('button', { name: 'Search' }).click();
    await poll(() => page.getByTestId('trace-row').count()).toBe(1);
    const row = page.getByTestId('trace-row').first();
    expect(await row.getAttribute('data-trace-id')).toBe(toolTrace.trace_id);
    expect(await row.getByTestId('trace-steps').textContent()).toBe('3');
    expect(await row.getByTestId('trace-tools').textContent()).toBe('memory_insert');
    // No trace with more than three steps; exactly one step: the two other runs.
    await filters.getByLabel('Tool called').fill('');
    await filters.getByLabel('Agent steps', { exact: true }).selectOption('gte');
    await filters.getByLabel('Steps', { exact: true }).fill('4');
    await filters.getByRole('button', { name: 'Search' }).click();
    await poll(() => page.getByTestId('no-traces').textContent()).toContain('No traces match these filters');
    await filters.getByLabel('Agent steps', { exact: true }).selectOption('eq');
    await filters.getByLabel('Steps', { exact: true }).fill('1');
    await filters.getByRole('button', { name: 'Search' }).click();
    await poll(() => page.getByTestId('trace-row').count()).toBe(2);
    await screenshots(page, 'observability-02-traces');

    // The waterfall of the tool's trace: the run, its three steps, a model call in each, and a tool call in the first two.
    await filters.getByRole('button', { name: 'Clear' }).click();
    await poll(() => page.getByTestId('trace-row').count()).toBe(3);
    await page.locator(`[data-testid="trace-row"][data-trace-id="${toolTrace.trace_id}"]`).click();
    await page.waitForURL((url) => url.pathname.endsWith(`/observability/traces/${toolTrace.trace_id}`) && url.search.includes('range=1h'));
    const spans = page.getByTestId('waterfall-span');
    await poll(() => spans.count()).toBe(9);
    const category = (name: string) => page.locator(`[data-testid="waterfall-span"][data-category="${name}"]`);
    const depth = async (locator: ReturnType<typeof category>) => Number(await locator.getAttribute('data-depth'));
    expect(await category('run').count()).toBe(1);
    expect(await category('step').count()).toBe(3);
    expect(await category('model').count()).toBe(3);
    expect(await category('tool').count()).toBe(2);
    expect(await category('tool').evaluateAll((tools) => tools.map((tool) => tool.getAttribute('data-span-name')))).toEqual(['execute_tool memory_insert', 'execute_tool memory_insert']);
    expect(await page.getByTestId('trace-agent-steps').textContent()).toBe('3');
    expect(await page.getByTestId('trace-run-id').textContent()).toBe(toolTrace.run_id);
    // The agent's own spans first: the run is the root until the request's and Temporal's spans are asked for.
    expect(await category('other').count()).toBe(0);
    expect(await depth(category('run'))).toBe(0);
    // Nested by parent: each step below the run, each model call and the tool call below a step.
    const runDepth = await depth(category('run'));
    for (const step of await category('step').all()) expect(await depth(step)).toBe(runDepth + 1);
    for (const tool of await category('tool').all()) expect(await depth(tool)).toBeGreaterThan(runDepth + 1);
    for (const chat of await category('model').all()) expect(await depth(chat)).toBeGreaterThan(runDepth + 1);

    // A span's attributes and recorded content: the tool's input and output, the model's request and response.
    await category('tool').first().click();
    const detail = page.getByTestId('span-detail');
    await poll(() => detail.getByTestId('span-detail-name').textContent()).toBe('execute_tool memory_insert');
    expect(await detail.locator('[data-content="gen_ai.tool.call.arguments"]').textContent()).toContain('Likes tea.');
    expect(await detail.locator('[data-content="gen_ai.tool.call.result"]').count()).toBe(1);
    expect(await detail.getByTestId('span-attributes').textContent()).toContain('call-memory');
    await category('model').first().click();
    await poll(() => detail.getByTestId('span-detail-name').textContent()).toBe('chat gpt-4o-mini');
    expect(await detail.locator('[data-content="gen_ai.input.messages"]').textContent()).toContain('I like tea.');
    expect(await detail.locator('[data-content="gen_ai.output.messages"]').textContent()).toContain('memory_insert');
    expect(await detail.getByTestId('span-attributes').textContent()).toContain('gen_ai.usage.input_tokens');
    await page.getByTestId('spans-section').getByRole('switch', { name: 'HTTP and Temporal spans' }).check();
    await poll(() => category('other').count()).toBeGreaterThan(0);
    expect(await spans.first().getAttribute('data-span-name')).toBe('POST /v1/agents/:agent_id/messages');
    expect(await depth(category('run'))).toBeGreaterThan(1);
    await screenshots(page, 'observability-03-waterfall');

    // Usage and cost per model: the five steps of the three runs, their tokens and charges; the model's own costs.
    await page.getByRole('navigation', { name: 'Observability screens' }).getByRole('link', { name: 'Models' }).click();
    const modelRow = page.locator(`[data-testid="model-row"][data-model="${MODEL}"]`);
    await poll(() => modelRow.getByTestId('model-steps').textContent()).toBe('5');
    expect(await modelRow.getByTestId('model-runs').textContent()).toBe('3');
    expect(await modelRow.getByTestId('model-total-tokens').textContent()).toBe((5 * USAGE.total_tokens).toLocaleString('en-US'));
    expect(await modelRow.getByTestId('model-credits').textContent()).toBe(credits.toLocaleString('en-US'));
    await poll(() => page.locator('[data-testid="model-credits-chart"] .recharts-bar-rectangle').count()).toBe(1);
    await modelRow.getByRole('link', { name: MODEL }).click();
    await poll(() => page.getByTestId('model-charged-steps').textContent()).toBe('5');
    expect(await page.getByTestId('model-charged-credits').textContent()).toBe(credits.toLocaleString('en-US'));
    await poll(() => page.getByTestId('step-costs-table').locator('tbody tr').count()).toBeGreaterThan(0);
    await screenshots(page, 'observability-04-model');
    expect(owner.errors).toEqual([]);
  });

  it('stays out of the shell’s first load, which stays under 250 kB gzip', { timeout: 60_000 }, async () => {
    const context = await browser.newContext({ viewport: DESKTOP, baseURL: stack.baseUrl });
    const page = await context.newPage();
    const scripts: Script[] = [];
    page.on('response', (response) => {
      if (!response.url().endsWith('.js')) return;
      void response
        .request()
        .sizes()
        .then((sizes) => scripts.push({ path: new URL(response.url()).pathname, bytes: sizes.responseBodySize }));
    });
    await page.goto('/login');
    await poll(() => page.getByRole('button', { name: 'Log in' }).isVisible()).toBe(true);
    await page.waitForLoadState('networkidle');
    expect(scripts.length).toBeGreaterThan(0);
    expect(scripts.filter((script) => script.path.startsWith('/console/remotes/'))).toEqual([]);
    expect(scripts.reduce((sum, script) => sum + script.bytes, 0)).toBeLessThan(250 * 1024);
    await context.close();
  });

  it('shows a brand-new organization that there is nothing yet, not an empty chart', { timeout: 120_000 }, async () => {
    const newcomer = await account('newcomer');
    const { page } = newcomer;
    await page.goto(`/projects/${newcomer.projectSlug}/observability`);
    await poll(() => page.getByTestId('empty-state').textContent()).toContain('No runs in this range yet');
    expect(await page.getByTestId('dashboard').count()).toBe(0);
    await page.getByRole('navigation', { name: 'Observability screens' }).getByRole('link', { name: 'Traces' }).click();
    await poll(() => page.getByTestId('no-traces').textContent()).toContain('No traces yet');
    await page.getByRole('navigation', { name: 'Observability screens' }).getByRole('link', { name: 'Models' }).click();
    await poll(() => page.getByTestId('no-model-usage').textContent()).toContain('No model was used in this range');
    // A custom range the API would refuse is pointed at with its message instead of being sent.
    await page.getByRole('radiogroup', { name: 'Time range' }).getByText('Custom', { exact: true }).click();
    await page.getByLabel('From', { exact: true }).fill('2026-11-02T10:00');
    await page.getByLabel('To', { exact: true }).fill('2026-11-01T10:00');
    await poll(() => page.getByRole('alert').filter({ hasText: 'startTimeUnix must be less than endTimeUnix' }).isVisible()).toBe(true);
    await screenshots(page, 'observability-05-empty');
    expect(newcomer.errors).toEqual([]);
  });
});
