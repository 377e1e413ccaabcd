import { afterAll, describe, expect, it } from 'vitest';
import { toFile } from '@letta-ai/letta-client';
import { minimalPdf } from '@engram/testing/fixtures/minimal-pdf';
import { startAgentTestContext } from '@engram/testing/agent-test-context';
import { type ChatRequest, until } from '@engram/testing';

// The in-process worker runs both the ingestion workflow and the agent's runs.
const { model, client, stop } = await startAgentTestContext();
afterAll(stop);

const HANDBOOK = [
  '# Staff handbook',
  '',
  '## Leave',
  'Employees get 25 days of paid leave per year.',
  'Unused leave carries over to the next year, up to 5 days.',
  '',
  '## Equipment',
  'Laptops are replaced every three years; ask the IT desk for a loaner in the meantime.',
].join('\n');

const BILLING_TS = [
  'export type InvoiceLine = { description: string; cents: number };',
  '',
  'export function invoiceTotal(lines: InvoiceLine[]): number {',
  '  return lines.reduce((total, line) => total + line.cents, 0);',
  '}',
].join('\n');

function waitUntilProcessed(folderId: string, fileId: string) {
  return until(
    () => client.folders.files.retrieve(fileId, { folder_id: folderId }),
    (file) => file.processing_status === 'completed' || file.processing_status === 'error',
    { what: `file ${fileId} processed` },
  );
}

function lastToolResult(request: ChatRequest): string | undefined {
  const last = request.messages.at(-1);
  return last?.role === 'tool' ? String(last.content) : undefined;
}

describe('an agent reading the files of a folder', () => {
  it('ingests Markdown, TypeScript and PDF uploads, then finds a passage with semantic_search_files and opens its file', async () => {
    const folder = await client.folders.create({ name: 'company', instructions: 'Answer from these files and name the file you used.' });
    const upload = async (name: string, bytes: Uint8Array | string, type: string) =>
      client.folders.files.upload(folder.id, { file: await toFile(typeof bytes === 'string' ? Buffer.from(bytes) : bytes, name, { type }) });
    const handbook = await upload('handbook.md', HANDBOOK, 'text/markdown');
    const billing = await upload('billing.ts', BILLING_TS, 'text/typescript');
    const report = await upload('report.pdf', minimalPdf([['Quarterly report', 'Revenue grew 12 percent in the third quarter.']]), 'application/pdf');
    expect(handbook).toMatchObject({ file_name: 'company/handbook.md', processing_status: 'parsing' });

    await expect(upload('setup.exe', new Uint8Array([0x4d, 0x5a, 0, 1]), 'application/octet-stream')).rejects.toMatchObject({ status: 415 });

    for (const file of [handbook, billing, report]) {
      expect(await waitUntilProcessed(folder.id, file.id)).toMatchObject({ processing_status: 'completed', error_message: null });
    }

    // At most two files open: attaching opens the two newest, the TypeScript file and the PDF.
    const agent = await client.agents.create({ model: 'openai/gpt-4o-mini', max_files_open: 2 });
    await client.agents.folders.attach(folder.id, { agent_id: agent.id });
    const files = (await client.agents.files.list(agent.id)).files;
    expect(files.filter((file) => file.is_open).map((file) => file.file_name).sort()).toEqual(['company/billing.ts', 'company/report.pdf']);
    expect(files.find((file) => file.file_name === 'company/report.pdf')?.visible_content).toContain('Revenue grew 12 percent in the third quarter.');
    expect(files.find((file) => file.file_name === 'company/billing.ts')?.visible_content).toContain(
      '3: export function invoiceTotal(lines: InvoiceLine[]): number {',
    );

    // The scripted model searches, then opens whichever file the search put first, then answers.
    model.enqueue({ type: 'tool_calls', calls: [{ id: 'call_search', name: 'semantic_search_files', arguments: { query: 'how many days of paid leave do employees get' } }] });
    model.onRequest((request) => {
      const result = lastToolResult(request);
      const found = result?.match(/^=== (.+) ===$/m)?.[1];
      if (result?.startsWith('Found') && found) {
        return { type: 'tool_calls', calls: [{ id: 'call_open', name: 'open_files', arguments: { file_requests: [{ file_name: found }] } }] };
      }
      if (result?.startsWith('* Opened')) return { type: 'text', text: 'Employees get 25 days of paid leave a year (company/handbook.md).' };
      return undefined;
    });

    const response = await client.agents.messages.create(agent.id, { messages: [{ role: 'user', content: 'How much paid leave do we get?' }] });
    const returns = response.messages.filter((message) => message.message_type === 'tool_return_message') as Array<{ status: string; tool_return: string }>;
    expect(returns).toHaveLength(2);
    const [search, open] = returns as [{ status: string; tool_return: string }, { status: string; tool_return: string }];
    expect(search.status).toBe('success');
    expect(search.tool_return).toMatch(/^Found \d+ semantic matches in \d+ files for query: 'how many days of paid leave do employees get'\n\n=== company\/handbook\.md ===/);
    expect(search.tool_return).toContain('Employees get 25 days of paid leave per year.');
    expect(open).toMatchObject({ status: 'success' });
    // The search used the files it found, most relevant last-used; attaching opened the PDF after the TypeScript
    // file. So the least recently used of the two open files is the one the search ranked lower, or did not find.
    const ranking = [...search.tool_return.matchAll(/^=== (.+) ===$/gm)].map((match) => match[1]);
    const rank = (name: string) => (ranking.includes(name) ? ranking.indexOf(name) : ranking.length);
    const leastRecentlyUsed = rank('company/billing.ts') >= rank('company/report.pdf') ? 'company/billing.ts' : 'company/report.pdf';
    expect(open.tool_return).toBe(`* Opened company/handbook.md\nNote: Closed 1 least recently used file(s) due to open file limit: ${leastRecentlyUsed}`);

    // The model answered with the handbook open in its prompt, line-numbered.
    const answeredFrom = String(model.requests.at(-1)?.messages[0]?.content);
    expect(answeredFrom).toContain('<file status="open" name="company/handbook.md">\n<value>\n[Viewing file start (out of 8 lines)]\n1: # Staff handbook');
    expect(answeredFrom).toContain('4: Employees get 25 days of paid leave per year.');
    expect(answeredFrom).toContain('<instructions>\nAnswer from these files and name the file you used.\n</instructions>');
    expect(response.messages.at(-1)).toMatchObject({
      message_type: 'assistant_message',
      content: 'Employees get 25 days of paid leave a year (company/handbook.md).',
    });
    const openNow = (await client.agents.files.list(agent.id, { is_open: true })).files.map((file) => file.file_name);
    const keptOpen = leastRecentlyUsed === 'company/billing.ts' ? 'company/report.pdf' : 'company/billing.ts';
    expect(openNow.sort()).toEqual(['company/handbook.md', keptOpen].sort());
  });
});
