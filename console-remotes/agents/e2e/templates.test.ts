import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { ScriptedModelServer } from '@engram/testing';
import { artifactsDir } from '../../../console-shell/e2e/browser.js';
import { poll, startAdeHarness, type AdeHarness } from './ade-harness.js';

/*
 * Templates in the agents remote, in real Chromium against the real stack: a template made from an agent,
 * edited and tried through its simulated agent, saved as version 1, three agents created from it, the persona
 * changed, version 2 saved with a migration of those agents, and each agent showing the new persona while it
 * keeps its own human block.
 */

let ade: AdeHarness;
let page: Page;
let model: ScriptedModelServer;
/** `/projects/<slug>/agents`: the remote's root. */
let remoteRoot: string;

beforeAll(async () => {
  ade = await startAdeHarness({
    account: { name: 'Radia Perlman', email: `radia-${Date.now()}@example.com`, password: 'spanning-tree-1985' },
    projectName: 'Templates',
    agent: {
      name: 'support-bot',
      model: 'openai/gpt-4o-mini',
      include_base_tools: false,
      memory_blocks: [
        { label: 'persona', value: 'I am {{botName}}, version one.', limit: 2000 },
        { label: 'human', value: 'The user is {{userName}}.', limit: 2000 },
      ],
    },
    failureScreenshot: 'templates-failure.png',
  });
  ({ page, model } = ade);
  remoteRoot = ade.agentPath.slice(0, ade.agentPath.lastIndexOf('/'));
}, 300_000);

afterAll(() => ade?.close());

/** What the window shows, beside the console's other screenshots. */
async function screenshot(name: string) {
  mkdirSync(artifactsDir, { recursive: true });
  await page.screenshot({ path: path.join(artifactsDir, `templates-${name}.png`) });
}

const templateBlock = (label: string) => page.getByTestId(`template-block-${label}`);

/** Edits one of the template's blocks in the Template panel and waits until the template holds it. */
async function editTemplateBlock(label: string, change: { value?: string; keepOnMigration?: boolean }) {
  await templateBlock(label).getByRole('button', { name: `Edit ${label}` }).click();
  if (change.value !== undefined) await page.getByRole('textbox', { name: `${label} template value` }).fill(change.value);
  if (change.keepOnMigration) await templateBlock(label).getByRole('switch', { name: "Keep each agent's value on migration" }).check({ force: true });
  await templateBlock(label).getByRole('button', { name: 'Save block' }).click();
  if (change.value !== undefined) await poll(() => templateBlock(label).getByTestId('template-block-value').textContent()).toBe(change.value);
  if (change.keepOnMigration) await poll(() => templateBlock(label).getByText('kept on migration').count()).toBe(1);
}

async function saveVersion(message: string, options: { migrate?: boolean } = {}) {
  await page.getByRole('button', { name: 'Save version', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Save a version' });
  await dialog.getByRole('textbox', { name: 'Message' }).fill(message);
  if (options.migrate) await dialog.getByRole('checkbox', { name: "Migrate the template's agents to this version" }).check();
  await dialog.getByRole('button', { name: 'Save version' }).click();
  await poll(() => dialog.count()).toBe(0);
}

describe('templates in the console', () => {
  it('creates a template, saves v1, deploys three agents, changes the persona, saves v2 and migrates them, keeping their own human blocks', { timeout: 300_000 }, async () => {
    ade.saveFailureScreenshot();
    await page.goto(`${remoteRoot}/templates`);
    await page.getByRole('button', { name: 'New template' }).click();
    const creating = page.getByRole('dialog', { name: 'New template' });
    await creating.getByRole('textbox', { name: 'Name' }).fill('support-template');
    await creating.getByRole('combobox', { name: 'Agent to start from' }).click();
    await page.getByRole('option', { name: 'support-bot' }).click();
    await creating.getByRole('button', { name: 'Create template' }).click();
    await page.waitForURL(/\/templates\/template-/);
    await poll(() => page.getByTestId('template-name').textContent()).toBe('support-template');
    expect(await page.getByTestId('template-version').textContent()).toBe('no version yet');

    // Neither variable has a default: the simulated agent is built once the simulation has a value for each.
    await poll(() => page.getByTestId('simulated-corrupted').textContent()).toContain('Missing memory variables without a default: botName, userName');
    await page.getByRole('textbox', { name: 'Simulated botName' }).fill('Sim');
    await page.getByRole('textbox', { name: 'Simulated userName' }).fill('Tester');
    await page.getByRole('button', { name: 'Apply to the simulation' }).click();
    await poll(() => page.getByTestId('simulated-corrupted').count()).toBe(0);

    // The simulated agent answers in the editor's chat.
    model.enqueue({ type: 'text', text: 'Hello, I am the simulated agent.' });
    await page.getByRole('textbox', { name: 'Message' }).fill('Who are you?');
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    await poll(() => page.getByTestId('assistant-message').allTextContents(), 30_000).toEqual(['Hello, I am the simulated agent.']);

    // Each agent keeps what it learns about its user across migrations.
    await editTemplateBlock('human', { keepOnMigration: true });
    await saveVersion('first version');
    await poll(() => page.getByTestId('template-version').textContent()).toBe('v1');

    await page.getByRole('button', { name: 'Deploy' }).click();
    const deploying = page.getByRole('dialog', { name: 'Create agents from support-template' });
    await deploying.getByRole('textbox', { name: 'How many agents' }).fill('3');
    await deploying.getByRole('textbox', { name: 'Memory variable botName' }).fill('Ava');
    await deploying.getByRole('textbox', { name: 'Memory variable userName' }).fill('Kim');
    await deploying.getByRole('button', { name: 'Create agents' }).click();
    await poll(() => deploying.getByTestId('deployed').textContent(), 60_000).toContain('3 agents created from v1');
    const agentIds = (await deploying.getByTestId('deployed').getByRole('link').allTextContents()).map((text) => text.trim());
    expect(agentIds).toHaveLength(3);
    await deploying.getByRole('button', { name: 'Done' }).click();

    // What each agent has learned about its user by now.
    for (const [index, agentId] of agentIds.entries()) {
      await ade.v1(`/agents/${agentId}/core-memory/blocks/human`, { method: 'PATCH', body: { value: `The user is Kim, customer number ${index + 1}.` } });
    }

    await editTemplateBlock('persona', { value: 'I am {{botName}}, version two.' });
    await saveVersion('a new persona', { migrate: true });
    await poll(() => page.getByTestId('template-version').textContent()).toBe('v2');
    const migrations = page.getByRole('dialog', { name: 'Migrations of support-template' });
    await poll(() => migrations.getByTestId('migration').first().getAttribute('data-status'), 120_000).toBe('completed');
    expect(await migrations.getByTestId('migration-counts').first().textContent()).toContain('3 of 3 migrated');
    await screenshot('migrations');
    await page.keyboard.press('Escape');

    await page.getByRole('button', { name: 'Versions' }).click();
    const versions = page.getByRole('dialog', { name: 'Versions of support-template' });
    await poll(() => versions.getByTestId('version-row').count()).toBe(2);
    const personaDiff = versions.getByTestId('diff-Block persona');
    await poll(() => personaDiff.locator('[data-kind="removed"]').textContent()).toContain('I am {{botName}}, version one.');
    expect(await personaDiff.locator('[data-kind="added"]').textContent()).toContain('I am {{botName}}, version two.');
    await screenshot('version-diff');
    await page.keyboard.press('Escape');
    await screenshot('editor');

    for (const [index, agentId] of agentIds.entries()) {
      await page.goto(`${remoteRoot}/${agentId}`);
      await page.getByRole('tab', { name: 'Memory' }).click();
      await poll(() => page.getByTestId('memory-block-persona').getByTestId('block-value').textContent()).toBe('I am Ava, version two.');
      expect(await page.getByTestId('memory-block-human').getByTestId('block-value').textContent()).toBe(`The user is Kim, customer number ${index + 1}.`);
    }
    expect(ade.pageErrors).toEqual([]);
    expect(ade.cspViolations).toEqual([]);
  });
});
