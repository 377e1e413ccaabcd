import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { screenshots } from '../../../console-shell/e2e/browser.js';
import { poll, startAdeHarness, type AdeHarness } from './ade-harness.js';

/*
 * Where features meet, in real Chromium against the real stack (billing off, no Stripe: a self-hosted server): every
 * section of the agents area reachable at 1280×800 and 1024×768, the template editor's header, the skip link to the
 * message box, a tool's parameters and source, a dataset run that asks for the version's variables, the billing
 * screen telling a self-hoster the truth, getting started ticking itself after real actions, and the organization
 * settings (rename, leave, delete).
 */

const ACCOUNT = { name: 'Margaret Hamilton', email: `margaret-${Date.now()}@example.com`, password: 'apollo-guidance-1969' };
const VIEWPORTS = [
  { width: 1280, height: 800 },
  { width: 1024, height: 768 },
];
const SECTIONS = [
  'Agents',
  'Templates',
  'Block templates',
  'Datasets',
  'A/B tests',
  'Groups',
  'Runs',
  'Tools',
  'MCP servers',
  'Providers',
  'Identities',
  'Sandbox',
  'Agent files',
];
const TOOL_SOURCE = `def add_numbers(a: int, b: int) -> int:
    """Add two numbers.

    Args:
        a: The first number.
        b: The second number.

    Returns:
        int: The sum.
    """
    return a + b
`;

let ade: AdeHarness;
let page: Page;
/** `/projects/<slug>/agents`: the remote's root. */
let remoteRoot: string;
let projectId: string;

beforeAll(async () => {
  ade = await startAdeHarness({
    account: ACCOUNT,
    projectName: 'Seams',
    agent: {
      name: 'concierge',
      model: 'openai/gpt-4o-mini',
      memory_blocks: [
        { label: 'persona', value: 'I help {{customer}}.', limit: 2000 },
        { label: 'human', value: 'Nothing known yet.', limit: 2000 },
      ],
    },
    failureScreenshot: 'seams-failure.png',
  });
  page = ade.page;
  remoteRoot = ade.agentPath.slice(0, ade.agentPath.lastIndexOf('/'));
  projectId = (await ade.v1<{ project_id: string }>(`/agents/${ade.agentId}`)).project_id;
  const tool = await ade.v1<{ id: string }>('/tools/', { method: 'POST', body: { source_code: TOOL_SOURCE } });
  await ade.v1(`/agents/${ade.agentId}/tools/attach/${tool.id}`, { method: 'PATCH' });
}, 300_000);

afterAll(() => ade?.close());

/** The element lies wholly inside the window, and its text is not cut off. */
async function whollyShown(selector: ReturnType<Page['getByTestId']>, viewport: { width: number; height: number }) {
  const box = await selector.boundingBox();
  expect(box).not.toBeNull();
  expect(box!.x).toBeGreaterThanOrEqual(0);
  expect(box!.x + box!.width).toBeLessThanOrEqual(viewport.width);
  expect(box!.y + box!.height).toBeLessThanOrEqual(viewport.height);
  expect(await selector.evaluate((element) => element.scrollWidth <= element.clientWidth + 1)).toBe(true);
}

describe('the agents area', () => {
  it('shows every section tab inside the window and opens each by mouse, at 1280×800 and 1024×768', { timeout: 300_000 }, async () => {
    ade.saveFailureScreenshot();
    for (const viewport of VIEWPORTS) {
      await page.setViewportSize(viewport);
      await page.goto(remoteRoot);
      const nav = page.getByRole('navigation', { name: 'Agent platform' });
      for (const label of SECTIONS) {
        const link = nav.getByRole('link', { name: label, exact: true });
        await poll(() => link.isVisible()).toBe(true);
        await whollyShown(link, viewport);
        await link.click();
        await poll(() => link.getAttribute('aria-current')).toBe('page');
      }
    }
  });

  it('reaches the message box from the page start in one Tab press through the skip link', async () => {
    ade.saveFailureScreenshot();
    await page.setViewportSize(VIEWPORTS[0]!);
    await page.goto(ade.agentPath);
    await poll(() => page.getByRole('textbox', { name: 'Message' }).isEnabled()).toBe(true);
    let presses = 0;
    while (presses < 5 && (await page.evaluate('document.activeElement?.textContent')) !== 'Skip to content') {
      await page.keyboard.press('Tab');
      presses++;
    }
    expect(presses).toBeLessThanOrEqual(5);
    await page.keyboard.press('Enter');
    // Strings run in the page, whose globals (document) the Node-side types do not know.
    expect(await page.evaluate("document.activeElement?.getAttribute('aria-label')")).toBe('Message');
  });

  it("opens an agent's tool to show its parameters and source, and ?panel=archive opens the Archive", async () => {
    ade.saveFailureScreenshot();
    await page.goto(`${ade.agentPath}?panel=tools`);
    const tool = page.getByTestId('tool-add_numbers');
    await tool.getByRole('button', { name: 'add_numbers: show its parameters and source' }).click();
    const parameters = tool.getByTestId('tool-parameters');
    await poll(() => parameters.textContent()).toContain('The first number.');
    expect(await parameters.textContent()).toContain('The second number.');
    expect(await tool.getByTestId('tool-source').textContent()).toContain('def add_numbers(a: int, b: int) -> int:');

    await page.goto(`${ade.agentPath}?panel=archive`);
    await poll(() => page.getByRole('tab', { name: 'Archive' }).getAttribute('aria-selected')).toBe('true');
  });
});

describe('templates and evaluation', () => {
  it("shows the editor's name and badges at both sizes, asks for the variables, and runs a dataset with them", { timeout: 300_000 }, async () => {
    ade.saveFailureScreenshot();
    const name = 'concierge-template-with-a-long-name';
    const created = await page.request.post('/api/agent-templates', { data: { name, agentId: ade.agentId, projectId } });
    expect(created.status()).toBe(201);
    const templateId = ((await created.json()) as { id: string }).id;

    for (const viewport of VIEWPORTS) {
      await page.setViewportSize(viewport);
      await page.goto(`${remoteRoot}/templates/${templateId}`);
      await poll(() => page.getByTestId('template-name').textContent()).toBe(name);
      await whollyShown(page.getByTestId('template-name'), viewport);
      await whollyShown(page.getByTestId('template-version'), viewport);
      await whollyShown(page.getByTestId('unsaved-changes'), viewport);
    }
    await screenshots(page, 'seams-template-header');

    // {{customer}} has no default: nothing is built with the placeholder in it until the simulation has a value.
    await poll(() => page.getByTestId('simulated-corrupted').textContent()).toContain('Missing memory variable without a default: customer');
    await page.getByRole('textbox', { name: 'Simulated customer' }).fill('the test pilot');
    await page.getByRole('button', { name: 'Apply to the simulation' }).click();
    await poll(() => page.getByTestId('simulated-corrupted').count()).toBe(0);
    await page.getByRole('button', { name: 'Save version', exact: true }).click();
    const saving = page.getByRole('dialog', { name: 'Save a version' });
    await saving.getByRole('button', { name: 'Save version' }).click();
    await poll(() => page.getByTestId('template-version').textContent()).toBe('v1');

    const dataset = (await (await page.request.post('/api/datasets', { data: { name: 'greetings', projectId } })).json()) as { id: string };
    expect((await page.request.post(`/api/datasets/${dataset.id}/items`, { data: { createMessage: { role: 'user', content: 'Whom do you help?' } } })).status()).toBe(201);
    ade.model.onRequest(() => ({ type: 'text', text: 'I help Acme.' }));
    await page.goto(`${remoteRoot}/datasets/${dataset.id}`);
    await page.getByRole('button', { name: 'Run against…' }).click();
    const running = page.getByRole('dialog', { name: 'Run greetings' });
    await running.getByRole('combobox', { name: 'Template' }).click();
    await page.getByRole('option', { name }).click();
    await running.getByRole('combobox', { name: 'Version' }).click();
    await page.getByRole('option', { name: /^v1 · .*needs customer$/ }).click();
    // The console says the version cannot run without the value, and will not start it.
    await poll(() => running.getByTestId('missing-variables').textContent()).toContain('{{customer}}');
    expect(await running.getByRole('button', { name: 'Start run' }).isDisabled()).toBe(true);
    await running.getByRole('textbox', { name: 'Memory variable customer' }).fill('Acme');
    await running.getByRole('button', { name: 'Start run' }).click();
    await poll(() => running.count()).toBe(0);

    const runs = async () => ((await (await page.request.get(`/api/datasets/${dataset.id}/runs`)).json()) as { runs: Array<{ id: string; status: string }> }).runs;
    await poll(async () => (await runs())[0]?.status, 60_000).toBe('completed');
    const results = (await (await page.request.get(`/api/dataset-runs/${(await runs())[0]!.id}`)).json()) as { results: Array<{ agentId: string }> };
    const evaluated = await ade.v1<{ blocks: Array<{ label: string; value: string }> }>(`/agents/${results.results[0]!.agentId}?include=agent.blocks`);
    expect(evaluated.blocks.find((block) => block.label === 'persona')?.value).toBe('I help Acme.');
  });
});

describe('a self-hosted server', () => {
  it('says on the billing screen that nothing is enforced, and sells no plan and asks for no card', async () => {
    ade.saveFailureScreenshot();
    await page.goto('/billing');
    await page.waitForURL('**/billing');
    const notice = page.getByTestId('billing-not-enforced');
    await poll(() => notice.textContent()).toContain('no plan limit, monthly allowance or credit balance refuses anything');
    await poll(() => page.getByTestId('credit-balance').isVisible()).toBe(true);
    expect(await page.getByTestId('no-card-payments').isVisible()).toBe(true);
    expect(await page.getByRole('button', { name: /^Upgrade to/ }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /^Buy for/ }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Add card' }).count()).toBe(0);
    await screenshots(page, 'seams-billing-off');
  });

  it('ticks getting started from what was done: a message sent, a version saved, Billing opened', { timeout: 120_000 }, async () => {
    ade.saveFailureScreenshot();
    await page.goto('/projects');
    const checklist = page.getByTestId('onboarding-checklist');
    const step = (id: string) => checklist.getByTestId(`onboarding-step-${id}`);
    // The agent and the API key were made before; a template version was saved above.
    await poll(() => step('create_template').getAttribute('data-done')).toBe('true');
    expect(await step('deploy_agent').getAttribute('data-done')).toBe('true');
    expect(await step('save_version').getAttribute('data-done')).toBe('true');
    // The simulated agent and the evaluation talked, but no one messaged an agent yet.
    expect(await step('explore_ade').getAttribute('data-done')).toBe('false');
    expect(await checklist.textContent()).not.toMatch(/\/v1|GET |POST /);

    ade.model.enqueue({ type: 'text', text: 'Hello!' });
    await step('explore_ade').getByRole('link', { name: 'Send it a first message' }).click();
    await page.waitForURL(`**${ade.agentPath}`);
    await page.getByRole('textbox', { name: 'Message' }).fill('Hello there');
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    await poll(() => page.getByTestId('assistant-message').allTextContents(), 30_000).toContain('Hello!');
    await page.goto('/projects');
    await poll(() => step('explore_ade').getAttribute('data-done')).toBe('true');

    await step('about_credits').getByRole('link', { name: 'Look at Billing' }).click();
    await page.waitForURL('**/billing');
    await page.goto('/projects');
    await poll(() => step('about_credits').getAttribute('data-done')).toBe('true');
    expect(await checklist.getByTestId('onboarding-progress').textContent()).toBe('5 of 5 done');
    await poll(() => checklist.getByRole('button', { name: 'Finish' }).isVisible()).toBe(true);
  });
});

describe('organization settings', () => {
  it('renames the organization, leaves one, and deletes one its owner typed the name of', { timeout: 180_000 }, async () => {
    ade.saveFailureScreenshot();
    // Another account's organization, which the user is added to.
    const other = await ade.browser.newContext({ baseURL: ade.stack.baseUrl });
    expect((await other.request.post('/api/user/new', { data: { name: 'Other Owner', email: `other-${Date.now()}@example.com`, password: 'another-password-1' } })).status()).toBe(201);
    expect((await other.request.post('/api/organizations', { data: { name: 'Shared Org' } })).status()).toBe(201);
    expect((await other.request.post('/api/organizations/self/invited-members', { data: { email: ACCOUNT.email, role: 'editor' } })).status()).toBe(200);
    await other.close();

    await page.goto('/settings/organization');
    const rename = page.getByTestId('rename-organization');
    await rename.getByRole('textbox', { name: 'Organization name' }).fill('Hamilton Labs');
    await rename.getByRole('button', { name: 'Rename' }).click();
    await poll(() => page.getByTestId('current-organization').textContent()).toBe('Hamilton Labs');

    // Leaving the shared organization: the user then acts in their own again.
    await page.getByRole('button', { name: 'Switch organization' }).click();
    await page.getByRole('menuitem', { name: 'Shared Org' }).click();
    await poll(() => page.getByTestId('current-organization').textContent()).toBe('Shared Org');
    await page.goto('/settings/organization');
    expect(await page.getByTestId('delete-organization').getByRole('button', { name: 'Delete organization' }).isDisabled()).toBe(true);
    await page.getByTestId('leave-organization').getByRole('button', { name: 'Leave organization' }).click();
    await page.getByRole('dialog', { name: 'Leave Shared Org?' }).getByRole('button', { name: 'Leave' }).click();
    await page.waitForURL('**/projects');
    await poll(() => page.getByTestId('current-organization').textContent()).toBe('Hamilton Labs');

    // A new organization, deleted by its owner once its name is typed; what goes is said first.
    expect((await page.request.post('/api/organizations', { data: { name: 'Doomed Org' } })).status()).toBe(201);
    await page.goto('/settings/organization');
    await poll(() => page.getByTestId('current-organization').textContent()).toBe('Doomed Org');
    await page.getByTestId('delete-organization').getByRole('button', { name: 'Delete organization' }).click();
    const deleting = page.getByRole('dialog', { name: 'Delete Doomed Org?' });
    await poll(() => deleting.getByTestId('deletion-impact').textContent()).toContain('its 0 agents, 0 templates, 1 project and 0 API keys');
    const confirm = deleting.getByRole('button', { name: 'Delete organization' });
    expect(await confirm.isDisabled()).toBe(true);
    await deleting.getByRole('textbox', { name: 'Organization name to confirm' }).fill('Doomed Org');
    await confirm.click();
    await page.waitForURL('**/projects');
    await poll(() => page.getByTestId('current-organization').textContent()).toBe('Hamilton Labs');
    const organizations = (await (await page.request.get('/api/user/self/organizations')).json()) as { organizations: Array<{ name: string }> };
    expect(organizations.organizations.map((organization) => organization.name)).toEqual(['Hamilton Labs']);
    expect(ade.pageErrors).toEqual([]);
    expect(ade.cspViolations).toEqual([]);
  });
});
