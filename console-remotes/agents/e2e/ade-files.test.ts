import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { screenshots } from '../../../console-shell/e2e/browser.js';
import { poll, startAdeHarness, type AdeHarness } from './ade-harness.js';

/*
 * The Files tab of the agent development environment in real Chromium against the real stack (with its
 * in-process worker, which ingests the uploads): folders attached and detached, uploads with the server's
 * refusals, live ingestion, and the files open in the agent's context.
 */

let ade: AdeHarness;
let page: Page;
let agentId: string;
let agentPath: string;

const FIELD_NOTES = `# Field notes

The heron returned to the north pond on Monday.
Water level: 42 cm, falling slowly.
`;

type AgentFilePage = { files: Array<{ file_name: string; is_open: boolean }> };

const v1 = <T>(pathname: string, init?: { method?: string; body?: unknown }) => ade.v1<T>(pathname, init);

beforeAll(async () => {
  ade = await startAdeHarness({
    account: { name: 'Rachel Carson', email: `rachel-${Date.now()}@example.com`, password: 'silent-spring-1962' },
    projectName: 'ADE files',
    agent: { name: 'files-bot', model: 'openai/gpt-4o-mini', memory_blocks: [{ label: 'persona', value: 'A careful reader.' }] },
    failureScreenshot: 'ade-files-failure.png',
  });
  ({ page, agentId, agentPath } = ade);
  // A folder that exists before the page opens, to attach from the picker.
  await v1('/folders/', { method: 'POST', body: { name: 'handbook' } });
}, 300_000);

afterAll(() => ade?.close());

const saveFailureScreenshot = () => ade.saveFailureScreenshot();

const attachedFolderNames = async () => (await v1<Array<{ name: string }>>(`/agents/${agentId}/folders/`)).map((folder) => folder.name).sort();

describe('the Files tab of the agent development environment', () => {
  it('shows an agent without folders', async () => {
    saveFailureScreenshot();
    await page.goto(agentPath);
    await poll(() => page.getByTestId('agent-name').textContent()).toBe('files-bot');
    await page.getByRole('tab', { name: 'Files' }).click();
    await poll(() => page.getByText('No folders attached.', { exact: false }).isVisible()).toBe(true);
    expect(await page.getByTestId('agent-files').getByText('No files yet', { exact: false }).isVisible()).toBe(true);
  });

  it('creates a folder and attaches it, and attaches an existing folder from the picker', async () => {
    saveFailureScreenshot();
    await page.getByRole('button', { name: 'New folder' }).click();
    await page.getByRole('textbox', { name: 'New folder' }).fill('field-notes');
    await page.getByRole('button', { name: 'Create and attach' }).click();
    await poll(() => page.getByTestId('folder-field-notes').isVisible()).toBe(true);

    await page.getByRole('button', { name: 'Attach a folder' }).click();
    await page.getByRole('combobox', { name: 'Attach a folder' }).click();
    // The folder just attached is not offered again.
    expect(await page.getByRole('option', { name: 'field-notes' }).count()).toBe(0);
    await page.getByRole('option', { name: 'handbook' }).click();
    await poll(() => page.getByTestId('folder-handbook').isVisible()).toBe(true);

    expect(await attachedFolderNames()).toEqual(['field-notes', 'handbook']);
    // Attaching gives the agent the file tools.
    const tools = await v1<Array<{ name: string }>>(`/agents/${agentId}/tools/?limit=100`);
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['open_files', 'grep_files', 'semantic_search_files']));
  });

  it('uploads a Markdown file and an .exe at once: the .exe is refused with the reason, the Markdown is ingested and opens for the agent', async () => {
    saveFailureScreenshot();
    const folder = page.getByTestId('folder-field-notes');
    const chooser = page.waitForEvent('filechooser');
    await folder.getByRole('button', { name: 'Choose files' }).click();
    await (
      await chooser
    ).setFiles([
      { name: 'pond.md', mimeType: 'text/markdown', buffer: Buffer.from(FIELD_NOTES) },
      { name: 'virus.exe', mimeType: 'application/x-msdownload', buffer: Buffer.from('MZ not really a program') },
    ]);

    // The server's 415 names the file and what it accepts.
    const refusal = folder.getByRole('alert').filter({ hasText: 'virus.exe was not uploaded' });
    await poll(() => refusal.isVisible()).toBe(true);
    expect(await refusal.textContent()).toContain('Unsupported file type: application/x-msdownload (filename: virus.exe). Supported types:');

    const markdown = folder.getByTestId('folder-file-pond.md');
    await poll(() => markdown.getAttribute('data-status'), 60_000).toBe('completed');
    expect(await markdown.getByTestId('file-status').textContent()).toBe('completed');
    expect(await markdown.textContent()).toMatch(/· 1 chunk$/);
    expect(await folder.getByTestId('folder-file-virus.exe').count()).toBe(0);
    const [fieldNotes] = await v1<Array<{ id: string }>>('/folders/?name=field-notes');
    const stored = await v1<Array<{ file_name: string; processing_status: string; chunks_embedded: number; total_chunks: number }>>(`/folders/${fieldNotes!.id}/files`);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ file_name: 'pond.md', processing_status: 'completed', chunks_embedded: stored[0]!.total_chunks });

    // Ingestion opened it for the agent: its view in the prompt shows, numbered, under its folder's name.
    const agentFile = page.getByTestId('agent-file-field-notes/pond.md');
    await poll(() => agentFile.getAttribute('data-open')).toBe('true');
    expect(await agentFile.getByRole('switch', { name: 'field-notes/pond.md open' }).isChecked()).toBe(true);
    const preview = await agentFile.getByTestId('file-preview').textContent();
    expect(preview).toContain('[Viewing file start (out of');
    expect(preview).toContain('The heron returned to the north pond on Monday.');
    await screenshots(page, 'ade-files-01-ingested', {
      phone: async (phone) => {
        await phone.getByRole('tab', { name: 'Files' }).click();
        await poll(() => phone.getByTestId('agent-file-field-notes/pond.md').getAttribute('data-open')).toBe('true');
        await phone.getByTestId('folder-field-notes').scrollIntoViewIfNeeded();
      },
    });
  });

  it("closes the file in the agent's context, and the API has it closed", async () => {
    saveFailureScreenshot();
    const agentFile = page.getByTestId('agent-file-field-notes/pond.md');
    await agentFile.getByRole('switch', { name: 'field-notes/pond.md open' }).uncheck({ force: true });
    await poll(() => agentFile.getAttribute('data-open')).toBe('false');
    expect(await agentFile.getByTestId('file-preview').count()).toBe(0);
    const { files } = await v1<AgentFilePage>(`/agents/${agentId}/files/`);
    expect(files.map(({ file_name, is_open }) => ({ file_name, is_open }))).toEqual([{ file_name: 'field-notes/pond.md', is_open: false }]);
    await screenshots(page, 'ade-files-02-closed', {
      phone: async (phone) => {
        await phone.getByRole('tab', { name: 'Files' }).click();
        await phone.getByTestId('agent-file-field-notes/pond.md').scrollIntoViewIfNeeded();
      },
    });
  });

  it('uploads a file dropped on a folder', async () => {
    saveFailureScreenshot();
    const folder = page.getByTestId('folder-handbook');
    // What the browser hands a drop of a file from the desktop. A string: it runs in the page, whose globals the Node-side types do not know.
    const dataTransfer = await page.evaluateHandle(
      "(() => { const data = new DataTransfer(); data.items.add(new File(['# Glossary\\n\\nHeron: a wading bird.\\n'], 'glossary.md', { type: 'text/markdown' })); return data; })()",
    );
    const zone = folder.getByTestId('upload-zone');
    await zone.dispatchEvent('dragover', { dataTransfer });
    await zone.dispatchEvent('drop', { dataTransfer });
    await poll(() => folder.getByTestId('folder-file-glossary.md').getAttribute('data-status'), 60_000).toBe('completed');
    await poll(() => page.getByTestId('agent-file-handbook/glossary.md').getAttribute('data-open')).toBe('true');
  });

  it('detaches both folders: the agent loses their files, the folders stay', async () => {
    saveFailureScreenshot();
    for (const name of ['field-notes', 'handbook']) {
      await page.getByRole('button', { name: `Detach ${name}` }).click();
      await poll(() => page.getByTestId(`folder-${name}`).count()).toBe(0);
    }
    await poll(() => page.getByText('No folders attached.', { exact: false }).isVisible()).toBe(true);
    await poll(() => page.getByTestId('agent-file-field-notes/pond.md').count()).toBe(0);
    expect(await attachedFolderNames()).toEqual([]);
    expect((await v1<AgentFilePage>(`/agents/${agentId}/files/`)).files).toEqual([]);
    const folders = await v1<Array<{ name: string }>>('/folders/');
    expect(folders.map((folder) => folder.name).sort()).toEqual(['field-notes', 'handbook']);
  });

  it('raised no page error and no Content-Security-Policy violation', () => {
    expect(ade.pageErrors).toEqual([]);
    expect(ade.cspViolations).toEqual([]);
  });
});
