import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { expect, onTestFailed } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startScriptedModelServer, startTestStack, type ScriptedModelServer, type TestStack } from '@engram/testing';
import { ensureConsoleBuilt, sizeReport } from '../../../scripts/console-build.js';
import { artifactsDir, DESKTOP, launchChromium } from '../../../console-shell/e2e/browser.js';

export type AdeHarnessOptions = {
  account: { name: string; email: string; password: string };
  projectName: string;
  /** The `POST /v1/agents` body; the project is added. */
  agent: Record<string, unknown>;
  /** Where a failing test's screenshot goes, under the artifacts directory. */
  failureScreenshot: string;
  /** Variables of the API's configuration, such as `TEMPORAL_UI_URL`. */
  apiEnv?: NodeJS.ProcessEnv;
};

export type AdeHarness = {
  stack: TestStack;
  /** For more browsers (contexts) besides the signed-in one, such as signed-out visitors. */
  browser: Browser;
  model: ScriptedModelServer;
  page: Page;
  /** A `/v1` key of the signed-up user's organization, for checking what the console did. */
  apiKey: string;
  agentId: string;
  /** The agent's workspace in the console. */
  agentPath: string;
  pageErrors: string[];
  /** Chromium reports every load or inline script the Content-Security-Policy blocks as a console error. */
  cspViolations: string[];
  v1<T>(pathname: string, init?: { method?: string; body?: unknown }): Promise<T>;
  /** Call first in a test: a failure leaves a screenshot of the page. */
  saveFailureScreenshot(): void;
  close(): Promise<void>;
};

/** `expect.poll` with a timeout fit for a browser on a busy machine (its default is one second). */
export function poll<T>(read: () => Promise<T> | T, timeout = 15_000) {
  return expect.poll(read, { timeout, interval: 50 });
}

/**
 * The agent development environment in real Chromium against the real stack, which serves the built console
 * from its own origin: an account, a project, an API key and an agent, made over HTTP (the screens that make
 * them have tests of their own), and a page watched for errors.
 */
export async function startAdeHarness(options: AdeHarnessOptions): Promise<AdeHarness> {
  console.log(sizeReport(await ensureConsoleBuilt({ log: () => undefined })));
  const model = await startScriptedModelServer({ models: ['gpt-4o-mini'] });
  const stack = await startTestStack({ baseProviders: [{ name: 'openai', providerType: 'openai', apiKey: 'test', baseUrl: model.url }], apiEnv: options.apiEnv });
  const browser: Browser = await launchChromium();
  // Without motion a click never lands on a panel still opening (a busy machine can pause an animation long
  // enough for it to look settled).
  const context = await browser.newContext({ viewport: DESKTOP, baseURL: stack.baseUrl, reducedMotion: 'reduce' });

  expect((await context.request.post('/api/user/new', { data: options.account })).status()).toBe(201);
  const project = (await (await context.request.post('/api/projects', { data: { name: options.projectName } })).json()) as { id: string; slug: string };
  const apiKey = ((await (await context.request.post('/api/api-keys', { data: { name: 'checks' } })).json()) as { apiKey: string }).apiKey;

  async function v1<T>(pathname: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
    const response = await fetch(`${stack.baseUrl}/v1${pathname}`, {
      method: init.method ?? 'GET',
      headers: { authorization: `Bearer ${apiKey}`, ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    if (!response.ok) throw new Error(`${init.method ?? 'GET'} /v1${pathname}: ${response.status} ${await response.text()}`);
    return (await response.json()) as T;
  }

  const agent = await v1<{ id: string }>('/agents/', { method: 'POST', body: { ...options.agent, project_id: project.id } });
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  const pageErrors: string[] = [];
  const cspViolations: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
  });

  return {
    stack,
    browser,
    model,
    page,
    apiKey,
    agentId: agent.id,
    agentPath: `/projects/${project.slug}/agents/${agent.id}`,
    pageErrors,
    cspViolations,
    v1,
    saveFailureScreenshot() {
      onTestFailed(async () => {
        mkdirSync(artifactsDir, { recursive: true });
        await page.screenshot({ path: path.join(artifactsDir, options.failureScreenshot) }).catch(() => undefined);
      });
    },
    async close() {
      await browser.close();
      await stack.stop();
      await model.close();
    },
  };
}
