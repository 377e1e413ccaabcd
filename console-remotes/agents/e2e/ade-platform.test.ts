import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startFixtureHttpServer, type FixtureHttpServer } from '@engram/testing/mcp-fixture/index';
import { artifactsDir } from '../../../console-shell/e2e/browser.js';
import { poll, startAdeHarness, type AdeHarness } from './ade-harness.js';

/*
 * The platform screens of the agents remote in real Chromium against the real stack: writing a custom tool in
 * the ADE's tool editor (schema, test run, attach), a TypeScript tool from the Tools page, an MCP server (test,
 * its tools, run one, attach one, delete), a provider with its own key (masked, checked, deleted), identities,
 * the sandbox's variables, and what an analyst is not offered.
 */

const VIEWPORT = { width: 1280, height: 800 };

const CONVERT_TEMPERATURE = `def convert_temperature(celsius: float, unit: str = "fahrenheit") -> str:
    """Converts a temperature from degrees Celsius.

    Args:
        celsius: The temperature in degrees Celsius.
        unit: What to convert to: fahrenheit or kelvin.

    Returns:
        str: The converted temperature.
    """
    print(f"converting {celsius} C to {unit}")
    if unit == "kelvin":
        kelvin = celsius + 273.15
        if kelvin < 0:
            raise ValueError(f"{celsius} C is below absolute zero")
        return f"{kelvin:.2f} K"
    return f"{celsius * 9 / 5 + 32:.1f} F"
`;

let ade: AdeHarness;
let page: Page;
let fixture: FixtureHttpServer;
/** `/projects/<slug>/agents`: the remote's root. */
let remoteRoot: string;
const account = { name: 'Katherine Johnson', email: `katherine-${Date.now()}@example.com`, password: 'trajectory-1962' };

const v1 = <T>(pathname: string, init?: { method?: string; body?: unknown }) => ade.v1<T>(pathname, init);

/** A 1280×800 picture of what the window shows, beside the console's other screenshots. */
async function screenshot(name: string) {
  mkdirSync(artifactsDir, { recursive: true });
  await page.mouse.move(1, 1);
  await page.screenshot({ path: path.join(artifactsDir, `platform-${name}.png`) });
}

async function agentToolNames(): Promise<string[]> {
  return (await v1<Array<{ name: string }>>(`/agents/${ade.agentId}/tools/?limit=100`)).map((tool) => tool.name);
}

beforeAll(async () => {
  ade = await startAdeHarness({
    account,
    projectName: 'Platform',
    agent: { name: 'ade-bot', model: 'openai/gpt-4o-mini', memory_blocks: [{ label: 'persona', value: 'A precise assistant.' }] },
    failureScreenshot: 'platform-failure.png',
  });
  fixture = await startFixtureHttpServer({ transport: 'streamable_http' });
  page = ade.page;
  await page.setViewportSize(VIEWPORT);
  remoteRoot = ade.agentPath.slice(0, ade.agentPath.lastIndexOf('/'));
}, 300_000);

afterAll(async () => {
  await fixture?.stop();
  await ade?.close();
});

describe('the platform screens of the agents remote', () => {
  it('writes a Python tool in the ADE, shows the schema derived from it, test-runs it (result, output, error) and attaches it', { timeout: 240_000 }, async () => {
    ade.saveFailureScreenshot();
    await page.goto(ade.agentPath);
    await page.getByRole('tab', { name: 'Tools' }).click();
    await page.getByRole('button', { name: 'New tool' }).click();
    const editor = page.getByRole('dialog', { name: 'New tool' });
    await editor.getByRole('textbox', { name: 'Source', exact: true }).fill(CONVERT_TEMPERATURE);

    // The schema follows the source: the API derives it from the signature and the docstring.
    const schema = editor.getByTestId('tool-schema');
    await poll(() => schema.textContent()).toContain('"name": "convert_temperature"');
    const derived = JSON.parse((await schema.textContent()) ?? '{}') as { description: string; parameters: { properties: Record<string, { type: string }>; required: string[] } };
    expect(derived.description).toBe('Converts a temperature from degrees Celsius.');
    expect(derived.parameters.properties.celsius?.type).toBe('number');
    expect(derived.parameters.required).toEqual(['celsius']);
    expect(await editor.getByTestId('tool-editor-name').textContent()).toBe('convert_temperature');

    // A test run of the unsaved source, with arguments from a form made from the schema.
    const form = editor.getByRole('form', { name: 'Test convert_temperature' });
    await form.getByRole('button', { name: 'Run', exact: true }).click();
    await poll(() => form.getByText('Required').isVisible()).toBe(true);
    await form.getByLabel('celsius').fill('100');
    await form.getByRole('button', { name: 'Run', exact: true }).click();
    const result = form.getByTestId('tool-run-result');
    await poll(() => result.getAttribute('data-status'), 30_000).toBe('success');
    expect(await result.textContent()).toContain('212.0 F');
    expect(await result.textContent()).toContain('converting 100 C to fahrenheit');
    await screenshot('01-tool-editor-test-run');

    // A tool that raises shows the error, and what it printed before.
    await form.getByLabel('celsius').fill('-300');
    await form.getByLabel('unit').fill('kelvin');
    await form.getByRole('button', { name: 'Run', exact: true }).click();
    await poll(() => result.getAttribute('data-status'), 30_000).toBe('error');
    // The form sends -300 as a JSON number, which Python reads as an int.
    expect(await result.textContent()).toContain('ValueError: -300 C is below absolute zero');
    expect(await result.textContent()).toContain('converting -300 C to kelvin');
    await screenshot('02-tool-editor-error');

    await editor.getByRole('button', { name: 'Create and attach' }).click();
    await poll(() => editor.isVisible()).toBe(false);
    await poll(() => page.getByTestId('tool-convert_temperature').isVisible()).toBe(true);
    expect(await agentToolNames()).toContain('convert_temperature');
    await screenshot('03-ade-tools-panel');

    // Edited from the panel: a description of its own replaces the docstring's.
    await page.getByRole('button', { name: 'Edit convert_temperature' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit tool' });
    await poll(() => edit.getByRole('textbox', { name: 'Source', exact: true }).inputValue()).toBe(CONVERT_TEMPERATURE);
    await edit.getByRole('textbox', { name: 'Description' }).fill('Converts Celsius to Fahrenheit or Kelvin.');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await poll(() => edit.isVisible()).toBe(false);
    const [stored] = await v1<Array<{ description: string; source_type: string }>>('/tools/?name=convert_temperature');
    expect(stored).toMatchObject({ description: 'Converts Celsius to Fahrenheit or Kelvin.', source_type: 'python' });
  });

  it('writes a TypeScript tool with its schema on the Tools page, test-runs it, and attaches it from its page', { timeout: 240_000 }, async () => {
    ade.saveFailureScreenshot();
    await page.goto(`${remoteRoot}/tools`);
    await poll(() => page.getByTestId('tool-row').filter({ hasText: 'convert_temperature' }).isVisible()).toBe(true);
    await page.getByRole('link', { name: 'New tool' }).click();
    await page.locator('label', { hasText: 'TypeScript' }).click();
    // The TypeScript starter comes with the schema it needs.
    await poll(() => page.getByRole('textbox', { name: 'Source', exact: true }).inputValue()).toContain('export function roll_dice');
    await poll(() => page.getByRole('textbox', { name: 'JSON schema' }).inputValue()).toContain('"name": "roll_dice"');

    const form = page.getByRole('form', { name: 'Test roll_dice' });
    await form.getByLabel('sides').fill('6');
    await form.getByLabel('count').fill('3');
    await form.getByRole('button', { name: 'Run', exact: true }).click();
    const result = form.getByTestId('tool-run-result');
    await poll(() => result.getAttribute('data-status'), 30_000).toBe('success');
    expect(await result.textContent()).toMatch(/rolled \d, \d, \d/);
    await result.scrollIntoViewIfNeeded();
    await screenshot('04-typescript-tool');

    // A schema that names no tool cannot be saved.
    const schemaField = page.getByRole('textbox', { name: 'JSON schema' });
    const schemaText = await schemaField.inputValue();
    await schemaField.fill('{"description": "nameless"}');
    await poll(() => page.getByText('The schema needs a "name": it is the name of the tool').isVisible()).toBe(true);
    expect(await page.getByRole('button', { name: 'Create tool' }).isDisabled()).toBe(true);
    await schemaField.fill(schemaText);

    await page.getByRole('button', { name: 'Create tool' }).click();
    await poll(() => page.getByRole('heading', { name: 'Edit tool' }).isVisible()).toBe(true);
    const [created] = await v1<Array<{ id: string; source_type: string; json_schema: { name: string } }>>('/tools/?name=roll_dice');
    expect(created).toMatchObject({ source_type: 'typescript', json_schema: { name: 'roll_dice' } });
    expect(page.url()).toContain(`/tools/${created?.id}`);

    await page.getByRole('combobox', { name: 'Attach roll_dice to an agent' }).click();
    await page.getByRole('option', { name: 'ade-bot' }).click();
    await page.getByRole('button', { name: 'Attach', exact: true }).click();
    await poll(() => page.getByTestId('attached-notice').textContent()).toBe('Attached to ade-bot.');
    expect(await agentToolNames()).toContain('roll_dice');
  });

  it('adds an MCP server after testing it, lists its tools, runs one, attaches one to the agent, and deletes the server', { timeout: 240_000 }, async () => {
    ade.saveFailureScreenshot();
    await page.goto(`${remoteRoot}/mcp-servers`);
    await page.getByRole('button', { name: 'Add server' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add an MCP server' });
    // Nothing is tried until the fields make a config.
    await dialog.getByRole('button', { name: 'Test connection' }).click();
    await poll(() => dialog.getByText('Enter an http(s) URL').isVisible()).toBe(true);
    await dialog.getByLabel('Name', { exact: true }).fill('fixture');
    await dialog.getByLabel('URL').fill(fixture.url);
    await dialog.getByRole('button', { name: 'Test connection' }).click();
    const live = dialog.getByTestId('mcp-live-tools');
    await poll(() => live.getByTestId('mcp-live-tool').count(), 30_000).toBe(4);
    expect(await live.textContent()).toContain('Connected: 4 tools');
    await screenshot('05-mcp-test-connection');

    await dialog.getByRole('button', { name: 'Add server' }).click();
    await poll(() => page.getByTestId('mcp-server-name').textContent(), 30_000).toBe('fixture');
    for (const name of ['add', 'crash', 'echo', 'slow']) await poll(() => page.getByTestId(`mcp-tool-${name}`).isVisible()).toBe(true);

    await page.getByRole('button', { name: 'Test connection' }).click();
    await poll(() => page.getByTestId('mcp-live-tools').textContent(), 30_000).toContain('Connected: 4 tools');

    const add = page.getByTestId('mcp-tool-add');
    await add.getByRole('button', { name: 'Use add' }).click();
    const form = add.getByRole('form', { name: 'Run add' });
    // Required fields are labelled with an asterisk ("a *"), so the names match from their start.
    await form.getByRole('textbox', { name: /^a\b/ }).fill('2');
    await form.getByRole('textbox', { name: /^b\b/ }).fill('40');
    await form.getByRole('button', { name: 'Run', exact: true }).click();
    await poll(() => form.getByTestId('tool-run-result').getAttribute('data-status'), 30_000).toBe('success');
    expect(await form.getByTestId('tool-run-result').textContent()).toContain('42');

    await add.getByRole('combobox', { name: 'Attach add to an agent' }).click();
    await page.getByRole('option', { name: 'ade-bot' }).click();
    await add.getByRole('button', { name: 'Attach', exact: true }).click();
    await poll(() => add.getByTestId('attached-notice').textContent()).toBe('Attached to ade-bot.');
    expect(await agentToolNames()).toContain('add');
    await add.getByTestId('attached-notice').scrollIntoViewIfNeeded();
    await screenshot('06-mcp-server');

    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByRole('dialog', { name: 'Delete fixture?' }).getByRole('button', { name: 'Delete server' }).click();
    await poll(() => page.getByText('No MCP servers yet').isVisible()).toBe(true);
    expect(await v1<unknown[]>('/mcp-servers/')).toEqual([]);
    expect(await agentToolNames()).not.toContain('add');
  });

  it('adds a provider with its own key after checking it, lists it with the key masked, checks it again and deletes it', { timeout: 240_000 }, async () => {
    ade.saveFailureScreenshot();
    const apiKey = 'sk-own-key-5f3a9c2e7b41';
    await page.goto(`${remoteRoot}/providers`);
    await page.getByRole('button', { name: 'Add provider' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add a provider' });
    await dialog.getByLabel('Name', { exact: true }).fill('my-openai');
    await dialog.getByLabel('API key', { exact: true }).fill(apiKey);
    await dialog.getByLabel('Base URL').fill(ade.model.url);
    await dialog.getByRole('button', { name: 'Check' }).click();
    await poll(() => dialog.getByTestId('provider-key-valid').isVisible(), 30_000).toBe(true);
    await dialog.getByRole('button', { name: 'Add provider' }).click();

    const row = page.getByTestId('provider-my-openai');
    await poll(() => row.getByTestId('provider-key').textContent()).toBe('sk-o****7b41');
    expect(await page.content()).not.toContain(apiKey);
    await row.getByRole('button', { name: 'Check' }).click();
    await poll(() => row.getByTestId('provider-check-ok').isVisible(), 30_000).toBe(true);
    // Its models are offered to agents under its name.
    expect((await v1<Array<{ handle: string }>>('/models/')).map((model) => model.handle)).toContain('my-openai/gpt-4o-mini');
    await screenshot('07-providers');

    await row.getByRole('button', { name: 'More for my-openai' }).click();
    await page.getByRole('menuitem', { name: 'Delete' }).click();
    await page.getByRole('dialog', { name: 'Delete my-openai?' }).getByRole('button', { name: 'Delete provider' }).click();
    await poll(() => row.count()).toBe(0);
    expect(await v1<unknown[]>('/providers/')).toEqual([]);
  });

  it('creates an identity with properties for the agent, edits it, and deletes it', { timeout: 240_000 }, async () => {
    ade.saveFailureScreenshot();
    await page.goto(`${remoteRoot}/identities`);
    await page.getByRole('button', { name: 'New identity' }).click();
    const dialog = page.getByRole('dialog', { name: 'New identity' });
    await dialog.getByLabel('Name', { exact: true }).fill('Ada Lovelace');
    await dialog.getByLabel('Identifier key').fill('user-ada');
    await dialog.getByRole('button', { name: 'Add property' }).click();
    await dialog.getByLabel('Property 1 key').fill('plan');
    await dialog.getByLabel('Property 1 value').fill('pro');
    await dialog.getByRole('button', { name: 'Add property' }).click();
    await dialog.getByLabel('Property 2 key').fill('seats');
    await dialog.getByLabel('Property 2 type').selectOption('number');
    await dialog.getByLabel('Property 2 value').fill('twelve');
    await dialog.getByRole('button', { name: 'Create identity' }).click();
    await poll(() => dialog.getByText('Enter a number').isVisible()).toBe(true);
    await dialog.getByLabel('Property 2 value').fill('12');
    await dialog.getByRole('combobox', { name: 'Agents' }).click();
    await page.getByRole('option', { name: 'ade-bot' }).click();
    // The picker stays open for more agents until the focus moves on.
    await dialog.getByLabel('Identifier key').click();
    await dialog.getByRole('button', { name: 'Create identity' }).click();

    const row = page.getByTestId('identity-user-ada');
    await poll(() => row.getByTestId('identity-agent-count').textContent()).toBe('1');
    const [identity] = await v1<Array<{ id: string; agent_ids: string[]; properties: unknown[] }>>('/identities/?identifier_key=user-ada');
    expect(identity).toMatchObject({
      agent_ids: [ade.agentId],
      properties: [
        { key: 'plan', type: 'string', value: 'pro' },
        { key: 'seats', type: 'number', value: 12 },
      ],
    });
    await screenshot('08-identities');

    // Removing a property and the agent takes them away (properties are replaced, not merged).
    await row.getByRole('button', { name: 'Edit Ada Lovelace' }).click();
    const edit = page.getByRole('dialog', { name: 'Identity Ada Lovelace' });
    await edit.getByRole('button', { name: 'Remove property 1' }).click();
    await edit.getByRole('combobox', { name: 'Agents' }).press('Backspace');
    await edit.getByLabel('Identifier key').click();
    await edit.getByRole('button', { name: 'Save identity' }).click();
    await poll(() => row.getByTestId('identity-agent-count').textContent()).toBe('0');
    expect(await v1(`/identities/${identity?.id}`)).toMatchObject({ agent_ids: [], properties: [{ key: 'seats', type: 'number', value: 12 }] });

    await row.getByRole('button', { name: 'Delete Ada Lovelace' }).click();
    await page.getByRole('dialog', { name: 'Delete Ada Lovelace?' }).getByRole('button', { name: 'Delete identity' }).click();
    await poll(() => page.getByText('No identities yet').isVisible()).toBe(true);
  });

  it('keeps sandbox variables masked, and saves the local sandbox settings', { timeout: 240_000 }, async () => {
    ade.saveFailureScreenshot();
    await page.goto(`${remoteRoot}/sandbox`);
    const add = page.getByRole('form', { name: 'Add a sandbox variable' });
    await add.getByLabel('Name').fill('WEATHER_API_KEY');
    await add.getByLabel('Value').fill('weather-secret-0042');
    await add.getByLabel('Description').fill('For the forecast tool');
    await add.getByRole('button', { name: 'Add variable' }).click();
    const row = page.getByTestId('sandbox-variable-WEATHER_API_KEY');
    await poll(() => row.getByTestId('sandbox-variable-value').textContent()).toBe('weat****0042');
    expect(await page.content()).not.toContain('weather-secret-0042');

    const settings = page.getByRole('form', { name: 'Local sandbox settings' });
    await settings.getByLabel('Timeout (seconds per tool call)').fill('60');
    await settings.getByRole('button', { name: 'Save settings' }).click();
    await poll(async () => (await v1<Array<{ type: string; config: { timeout?: number } }>>('/sandbox-config/?sandbox_type=local'))[0]?.config.timeout).toBe(60);
    await screenshot('09-sandbox');
  });

  it('offers an analyst of the organization nothing their role cannot do', { timeout: 240_000 }, async () => {
    ade.saveFailureScreenshot();
    const analyst = { name: 'Dorothy Vaughan', email: `dorothy-${Date.now()}@example.com`, password: 'fortran-1961' };
    const invited = await page.request.post('/api/organizations/self/invited-members', { data: { email: analyst.email, role: 'analyst' } });
    expect(invited.status()).toBe(201);
    const { inviteCode } = (await invited.json()) as { inviteCode: string };
    const browser = page.context().browser();
    if (!browser) throw new Error('The page has no browser');
    const context = await browser.newContext({ viewport: VIEWPORT, baseURL: ade.stack.baseUrl, reducedMotion: 'reduce' });
    const analystPage = await context.newPage();
    try {
      expect((await context.request.post('/api/user/new-with-invite', { data: { ...analyst, inviteCode } })).status()).toBe(201);
      const [tool] = await v1<Array<{ id: string }>>('/tools/?name=convert_temperature');
      await analystPage.goto(`${remoteRoot}/tools/${tool?.id}`);
      await poll(() => analystPage.getByText('Your role can read this tool but not change it.').isVisible()).toBe(true);
      await poll(() => analystPage.getByTestId('tool-schema').textContent()).toContain('"name": "convert_temperature"');
      for (const name of ['Save changes', 'Delete', 'Attach']) expect(await analystPage.getByRole('button', { name, exact: true }).count(), name).toBe(0);
      expect(await analystPage.getByText('Your role cannot run tool source.').isVisible()).toBe(true);

      // The permissions are known by now (the tool page waited for them), so a missing button is a refusal, not a
      // screen still loading.
      const sections = analystPage.getByRole('navigation', { name: 'Agent platform' });
      const refused: Array<[section: string, missing: string]> = [
        ['Tools', 'New tool'],
        ['MCP servers', 'Add server'],
        ['Providers', 'Add provider'],
        ['Identities', 'New identity'],
        ['Sandbox', 'Add variable'],
        ['Sandbox', 'Save settings'],
      ];
      for (const [section, missing] of refused) {
        await sections.getByRole('link', { name: section }).click();
        await poll(() => analystPage.getByRole('heading', { name: section, exact: true, level: 2 }).isVisible()).toBe(true);
        expect(await analystPage.getByRole(missing === 'New tool' ? 'link' : 'button', { name: missing }).count(), `${section}: ${missing}`).toBe(0);
      }
      await poll(() => analystPage.getByTestId('sandbox-variable-WEATHER_API_KEY').isVisible()).toBe(true);
      expect(await analystPage.getByRole('button', { name: 'Set WEATHER_API_KEY' }).count()).toBe(0);

      await analystPage.goto(ade.agentPath);
      await analystPage.getByRole('tab', { name: 'Tools' }).click();
      await poll(() => analystPage.getByTestId('tool-convert_temperature').isVisible()).toBe(true);
      for (const name of ['Attach a tool', 'New tool', 'Detach convert_temperature', 'Try convert_temperature']) {
        expect(await analystPage.getByRole('button', { name }).count(), name).toBe(0);
      }
      await analystPage.getByRole('button', { name: 'Read convert_temperature' }).click();
      await poll(() => analystPage.getByRole('dialog', { name: 'Edit tool' }).getByText('Your role can read this tool but not change it.').isVisible()).toBe(true);
    } catch (error) {
      await analystPage.screenshot({ path: path.join(artifactsDir, 'platform-analyst-failure.png'), fullPage: true }).catch(() => undefined);
      throw error;
    } finally {
      await context.close();
    }
  });
});
