import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { startAnthropicProtocolServer } from '@engram/testing/model-server/protocols/anthropic';
import { startBedrockProtocolServer, type BedrockProtocolServer } from '@engram/testing/model-server/protocols/bedrock';
import { startGeminiProtocolServer, type GeminiProtocolServer } from '@engram/testing/model-server/protocols/gemini';
import { startOpenAiProtocolServer } from '@engram/testing/model-server/protocols/openai';
import type { ProtocolServer } from '@engram/testing/model-server/protocols/script';
import { poll, startAdeHarness, type AdeHarness } from './ade-harness.js';

/*
 * The providers screen in Chromium: each provider type added through its own form, against a scripted server
 * of its protocol on loopback. Every type is first checked with credentials the provider refuses, and the
 * screen says in words what the provider answered; then with the right ones, and added.
 */

const AWS = { accessKeyId: 'AKIACONSOLETEST00001', secretAccessKey: 'console/secret', region: 'eu-west-1' };

let ade: AdeHarness;
let page: Page;
let remoteRoot: string;
let openai: ProtocolServer;
let anthropic: ProtocolServer;
let gemini: GeminiProtocolServer;
let bedrock: BedrockProtocolServer;
const account = { name: 'Grace Hopper', email: `grace-${Date.now()}@example.com`, password: 'compiler-1952' };

beforeAll(async () => {
  [openai, anthropic, gemini, bedrock] = await Promise.all([
    startOpenAiProtocolServer({ apiKey: 'sk-right' }),
    startAnthropicProtocolServer({ apiKey: 'sk-ant-right' }),
    startGeminiProtocolServer({ apiKey: 'gemini-right' }),
    startBedrockProtocolServer(AWS),
  ]);
  ade = await startAdeHarness({
    account,
    projectName: 'Providers',
    agent: { name: 'provider-bot', model: 'openai/gpt-4o-mini', memory_blocks: [{ label: 'persona', value: 'Terse.' }] },
    failureScreenshot: 'providers-failure.png',
  });
  page = ade.page;
  await page.setViewportSize({ width: 1280, height: 900 });
  remoteRoot = ade.agentPath.slice(0, ade.agentPath.lastIndexOf('/'));
}, 300_000);

afterAll(async () => {
  await ade?.close();
  await Promise.all([openai?.close(), anthropic?.close(), gemini?.close(), bedrock?.close()]);
});

/** A type's form filled twice: `wrong` values the provider refuses, then `right` ones. */
type Case = { type: string; option: string; fields: Record<string, string>; wrong: Record<string, string>; right: Record<string, string>; refusal: RegExp };

const cases = (): Case[] => [
  { type: 'anthropic', option: 'Anthropic (anthropic)', fields: { 'Base URL': `${anthropic.url}/v1` }, wrong: { 'API key': 'sk-ant-wrong' }, right: { 'API key': 'sk-ant-right' }, refusal: /anthropic provider refused its credentials/ },
  { type: 'google_ai', option: 'Google Gemini API (google_ai)', fields: { 'Base URL': gemini.url }, wrong: { 'Gemini API key': 'gemini-wrong' }, right: { 'Gemini API key': 'gemini-right' }, refusal: /API key not valid/ },
  {
    type: 'google_vertex',
    option: 'Google Vertex AI (google_vertex)',
    fields: { Location: 'europe-west4', 'Base URL': gemini.url },
    wrong: { 'Service account JSON key': JSON.stringify({ ...gemini.serviceAccount, client_email: 'stranger@elsewhere.iam.gserviceaccount.com' }) },
    right: { 'Service account JSON key': JSON.stringify(gemini.serviceAccount) },
    refusal: /was refused a token: unknown issuer/,
  },
  { type: 'azure', option: 'Azure OpenAI (azure)', fields: { Endpoint: openai.url, 'API version': '2025-03-01-preview' }, wrong: { 'API key': 'azure-wrong' }, right: { 'API key': 'sk-right' }, refusal: /Incorrect API key provided/ },
  {
    type: 'bedrock',
    option: 'Amazon Bedrock (bedrock)',
    fields: { 'Access key ID': AWS.accessKeyId, Region: AWS.region, Endpoint: bedrock.url },
    wrong: { 'Secret access key': 'not-the-secret' },
    right: { 'Secret access key': AWS.secretAccessKey },
    refusal: /signature we calculated does not match/,
  },
  { type: 'mistral', option: 'Mistral (mistral)', fields: { 'Base URL': `${openai.url}/v1` }, wrong: { 'API key': 'sk-wrong' }, right: { 'API key': 'sk-right' }, refusal: /Incorrect API key provided/ },
  { type: 'vllm', option: 'vLLM (vllm)', fields: { 'Base URL': `${openai.url}/v1` }, wrong: { 'API key': 'sk-wrong' }, right: { 'API key': 'sk-right' }, refusal: /Incorrect API key provided/ },
];

async function fill(dialog: Locator, values: Record<string, string>) {
  for (const [label, value] of Object.entries(values)) await dialog.getByLabel(label, { exact: false }).first().fill(value);
}

describe('the providers screen', () => {
  it('adds a provider of each type through its own form, saying in words why a check failed', { timeout: 280_000 }, async () => {
    ade.saveFailureScreenshot();
    await page.goto(`${remoteRoot}/providers`);
    for (const testCase of cases()) {
      await page.getByRole('button', { name: 'Add provider' }).click();
      const dialog = page.getByRole('dialog', { name: 'Add a provider' });
      await dialog.getByLabel('Name', { exact: false }).first().fill(`my-${testCase.type}`);
      await dialog.getByRole('combobox', { name: 'Type' }).click();
      await page.getByRole('option', { name: testCase.option }).click();
      await fill(dialog, { ...testCase.fields, ...testCase.wrong });

      await dialog.getByRole('button', { name: 'Check', exact: true }).click();
      const refusal = dialog.getByTestId('provider-check-error');
      await poll(() => refusal.isVisible(), 30_000).toBe(true);
      expect(await refusal.textContent(), testCase.type).toMatch(testCase.refusal);

      await fill(dialog, testCase.right);
      await dialog.getByRole('button', { name: 'Check', exact: true }).click();
      await poll(() => dialog.getByTestId('provider-key-valid').isVisible(), 30_000).toBe(true);
      await dialog.getByRole('button', { name: 'Add provider' }).click();
      await poll(() => page.getByTestId(`provider-my-${testCase.type}`).isVisible()).toBe(true);
    }
    const stored = await ade.v1<Array<{ name: string; provider_type: string; region: string | null; api_version: string | null; access_key: string | null }>>('/providers/?limit=50');
    expect(stored.map((provider) => provider.provider_type).sort()).toEqual(cases().map((testCase) => testCase.type).sort());
    expect(stored.find((provider) => provider.provider_type === 'bedrock')).toMatchObject({ region: AWS.region, access_key: 'AKIA****0001' });
    expect(stored.find((provider) => provider.provider_type === 'azure')).toMatchObject({ api_version: '2025-03-01-preview' });

    // A stored provider whose credentials stop working says so in its row.
    const row = page.getByTestId('provider-my-mistral');
    await row.getByRole('button', { name: 'More for my-mistral' }).click();
    await page.getByRole('menuitem', { name: 'Replace key' }).click();
    const replace = page.getByRole('dialog', { name: 'New key for my-mistral' });
    await replace.getByLabel('API key').fill('sk-revoked');
    await replace.getByRole('button', { name: 'Replace key' }).click();
    await row.getByRole('button', { name: 'Check', exact: true }).click();
    await poll(() => row.getByTestId('provider-check-failed').textContent(), 30_000).toMatch(/Incorrect API key provided/);
  });
});
