import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { FILE_TOOL_NAMES, renderFileView } from '@engram/core';
import { SourceFile, newId, openFileForAgent, openFileInAttachedAgents } from '@engram/db';
import { startAgentTestContext } from '@engram/testing/agent-test-context';

const { stack, model, client, clientFor, api, patch, post, systemMessageText, stop } = await startAgentTestContext();
afterEach(() => model.reset());
afterAll(stop);

type AgentFile = {
  id: string;
  file_id: string;
  file_name: string;
  folder_id: string;
  folder_name: string;
  is_open: boolean;
  last_accessed_at: string;
  visible_content: string | null;
};

const newAgent = (body: Record<string, unknown> = {}) =>
  client.agents.create({ model: 'openai/gpt-4o-mini', max_files_open: 2, ...body } as Parameters<typeof client.agents.create>[0]);

/** A file as ingestion leaves it once parsed, written directly so these tests need no worker. */
async function parsedFile(folder: { id: string; name: string }, name: string, content: string | null, createdAt: Date) {
  const file = await SourceFile.query(stack.db).insert({
    id: newId('file'),
    organizationId: stack.tenant.organizationId,
    sourceId: folder.id,
    fileName: `${folder.name}/${name}`,
    originalFileName: name,
    fileType: 'text/markdown',
    fileSize: content?.length ?? 0,
    processingStatus: content === null ? 'parsing' : 'completed',
    content,
    createdAt,
  });
  return file;
}

let folderCount = 0;
/** A folder with three parsed files, created a second apart so "newest" is unambiguous. */
async function folderWithFiles(options: { description?: string; instructions?: string } = {}) {
  folderCount += 1;
  const folder = await client.folders.create({ name: `docs${folderCount}`, ...options });
  const base = Date.now() - 60_000;
  const files = [
    await parsedFile(folder, 'alpha.md', '# Alpha\nThe alpha plan ships in March.\nOwner: Ada', new Date(base)),
    await parsedFile(folder, 'beta.md', '# Beta\nBeta needs two reviewers.', new Date(base + 1000)),
    await parsedFile(folder, 'gamma.md', '# Gamma\nGamma is on hold.', new Date(base + 2000)),
  ];
  return { folder, files };
}

const listFiles = async (agentId: string, query = ''): Promise<{ files: AgentFile[]; next_cursor: string | null; has_more: boolean }> =>
  (await api(`/agents/${agentId}/files?${query}`)).json();

const openNames = async (agentId: string) =>
  (await listFiles(agentId, 'is_open=true')).files.map((file) => file.file_name).sort();

describe('attaching folders to agents', () => {
  it('gives new agents no file tools', async () => {
    const agent = await newAgent();
    expect(agent.tools.map((tool) => tool.name).sort()).toEqual(['conversation_search', 'memory_insert', 'memory_replace']);
    expect(await systemMessageText(agent.id)).not.toContain('<directories>');
    expect(agent.sources).toEqual([]);
  });

  it('attaches a folder: its files, the newest open up to max_files_open, the file tools and a <directories> prompt', async () => {
    const { folder } = await folderWithFiles({ description: 'Project docs', instructions: 'Cite the file you used.' });
    const agent = await newAgent();
    const attached = await client.agents.folders.attach(folder.id, { agent_id: agent.id });
    expect(attached?.sources.map((source) => source.id)).toEqual([folder.id]);
    expect(attached?.tools.filter((tool) => tool.tool_type === 'letta_files_core').map((tool) => tool.name).sort()).toEqual(
      [...FILE_TOOL_NAMES].sort(),
    );

    const { files, has_more } = await listFiles(agent.id);
    expect(has_more).toBe(false);
    expect(files.map((file) => [file.file_name, file.is_open]).sort()).toEqual([
      [`${folder.name}/alpha.md`, false],
      [`${folder.name}/beta.md`, true],
      [`${folder.name}/gamma.md`, true],
    ]);
    expect(files.every((file) => file.folder_id === folder.id && file.folder_name === folder.name)).toBe(true);
    const gamma = files.find((file) => file.file_name.endsWith('gamma.md'))!;
    expect(gamma.visible_content).toBe('[Viewing file start (out of 2 lines)]\n1: # Gamma\n2: Gamma is on hold.');

    const prompt = await systemMessageText(agent.id);
    expect(prompt).toContain('<directories>\n<file_limits>\n- current_files_open=2\n- max_files_open=2\n</file_limits>');
    expect(prompt).toContain(`<directory name="${folder.name}">\n<description>\nProject docs\n</description>\n<instructions>\nCite the file you used.\n</instructions>`);
    expect(prompt).toContain(`<file status="closed" name="${folder.name}/alpha.md"></file>`);
    expect(prompt).toContain(`<file status="open" name="${folder.name}/gamma.md">\n<value>\n[Viewing file start (out of 2 lines)]\n1: # Gamma`);

    const context = await (await api(`/agents/${agent.id}/context`)).json();
    expect(JSON.stringify(context)).toContain('<directories>');
    expect((await client.agents.folders.list(agent.id)).items.map((item) => item.id)).toEqual([folder.id]);
  });

  it('opens with LRU eviction at max_files_open, closes one and closes all', async () => {
    const { folder, files } = await folderWithFiles();
    const [alpha, beta, gamma] = files as [SourceFile, SourceFile, SourceFile];
    const agent = await newAgent();
    await client.agents.folders.attach(folder.id, { agent_id: agent.id });

    // Attaching opened beta and gamma, the newer counting as used last; opening alpha closes beta.
    expect(await client.agents.files.open(alpha.id, { agent_id: agent.id })).toEqual([beta.fileName]);
    expect(await openNames(agent.id)).toEqual([alpha.fileName, gamma.fileName]);
    // Reopening beta evicts the least recently used: gamma, not alpha.
    expect(await client.agents.files.open(beta.id, { agent_id: agent.id })).toEqual([gamma.fileName]);
    expect(await openNames(agent.id)).toEqual([alpha.fileName, beta.fileName]);
    // Opening what is already open closes nothing.
    expect(await client.agents.files.open(alpha.id, { agent_id: agent.id })).toEqual([]);

    expect(await client.agents.files.close(alpha.id, { agent_id: agent.id })).toEqual({ message: `File id=${alpha.id} successfully closed` });
    expect(await openNames(agent.id)).toEqual([beta.fileName]);
    expect(await systemMessageText(agent.id)).toContain(`<file status="closed" name="${alpha.fileName}"></file>`);

    expect(await client.agents.files.closeAll(agent.id)).toEqual([beta.fileName]);
    expect(await openNames(agent.id)).toEqual([]);
    expect(await systemMessageText(agent.id)).toContain('- current_files_open=0');
    expect(await client.agents.files.closeAll(agent.id)).toEqual([]);
  });

  it('pages the agent files with next_cursor, and accepts the deprecated cursor', async () => {
    const { folder } = await folderWithFiles();
    const agent = await newAgent();
    await client.agents.folders.attach(folder.id, { agent_id: agent.id });
    const first = await listFiles(agent.id, 'limit=2');
    expect(first.files).toHaveLength(2);
    expect(first.has_more).toBe(true);
    expect(first.next_cursor).toBe(first.files[1]!.id);
    const rest = await listFiles(agent.id, `limit=2&cursor=${first.next_cursor}`);
    expect(rest).toMatchObject({ has_more: false, next_cursor: null });
    expect(rest.files).toHaveLength(1);
    const all = new Set([...first.files, ...rest.files].map((file) => file.file_id));
    expect(all.size).toBe(3);
    const paged = [];
    for await (const file of client.agents.files.list(agent.id, { limit: 1 })) paged.push(file.id);
    expect(paged).toHaveLength(3);
  });

  it('detaches: the files leave the prompt, and with the last folder the file tools go', async () => {
    const one = await folderWithFiles();
    const two = await folderWithFiles();
    const agent = await newAgent();
    await client.agents.folders.attach(one.folder.id, { agent_id: agent.id });
    // The deprecated spelling, which the 1.x client no longer has.
    expect((await patch(`/agents/${agent.id}/sources/attach/${two.folder.id}`)).status).toBe(200);

    const afterFirst = await client.agents.folders.detach(one.folder.id, { agent_id: agent.id });
    expect(afterFirst?.sources.map((source) => source.id)).toEqual([two.folder.id]);
    expect(afterFirst?.tools.filter((tool) => tool.tool_type === 'letta_files_core')).toHaveLength(3);
    expect((await listFiles(agent.id)).files.every((file) => file.folder_id === two.folder.id)).toBe(true);
    expect(await systemMessageText(agent.id)).not.toContain(`<directory name="${one.folder.name}">`);

    const afterLast = await (await patch(`/agents/${agent.id}/sources/detach/${two.folder.id}`)).json();
    expect(afterLast.sources).toEqual([]);
    expect(afterLast.tools.filter((tool: { tool_type: string }) => tool.tool_type === 'letta_files_core')).toEqual([]);
    expect((await listFiles(agent.id)).files).toEqual([]);
    expect(await systemMessageText(agent.id)).not.toContain('<directories>');
    // Detaching again is no error.
    expect((await patch(`/agents/${agent.id}/folders/detach/${one.folder.id}`)).status).toBe(200);
  });

  it('attaches folders given at creation, under either name', async () => {
    const one = await folderWithFiles();
    const two = await folderWithFiles();
    const agent = await newAgent({ folder_ids: [one.folder.id], source_ids: [two.folder.id] });
    expect(agent.sources.map((source) => source.id).sort()).toEqual([one.folder.id, two.folder.id].sort());
    expect(agent.tools.map((tool) => tool.name)).toEqual(expect.arrayContaining([...FILE_TOOL_NAMES]));
    expect(await openNames(agent.id)).toHaveLength(2);
    expect(await systemMessageText(agent.id)).toContain(`<directory name="${two.folder.name}">`);
    const sources = await (await api(`/agents/${agent.id}/sources`)).json();
    expect(sources.map((source: { vector_db_provider: string }) => source.vector_db_provider)).toEqual(['native', 'native']);
  });

  it("answers 404 for another organization's folder, agent or file, and for a file the agent does not have", async () => {
    const other = await stack.createTenant();
    const foreign = await clientFor(other.apiKey.key).folders.create({ name: 'theirs' });
    const { folder, files } = await folderWithFiles();
    const agent = await newAgent();
    expect((await patch(`/agents/${agent.id}/folders/attach/${foreign.id}`)).status).toBe(404);
    expect((await patch(`/agents/${agent.id}/sources/attach/source-00000000-0000-4000-8000-000000000000`)).status).toBe(404);
    expect((await patch(`/agents/${agent.id}/folders/attach/${folder.id}`, undefined, other.apiKey.key)).status).toBe(404);
    expect((await patch(`/agents/${agent.id}/files/${files[0]!.id}/open`)).status).toBe(404);
    expect((await post('/agents/', { model: 'openai/gpt-4o-mini', folder_ids: [foreign.id] })).status).toBe(404);

    await client.agents.folders.attach(folder.id, { agent_id: agent.id });
    expect((await patch(`/agents/${agent.id}/files/${files[0]!.id}/open`, undefined, other.apiKey.key)).status).toBe(404);
    expect((await api(`/agents/${agent.id}/files`, { key: other.apiKey.key })).status).toBe(404);
    expect((await api(`/agents/${agent.id}/folders`, { key: other.apiKey.key })).status).toBe(404);
  });

  it('opens a newly parsed file in every attached agent, evicting past the limit (the ingestion hook)', async () => {
    const { folder } = await folderWithFiles();
    const [first, second] = [await newAgent(), await newAgent({ max_files_open: 5 })];
    await client.agents.folders.attach(folder.id, { agent_id: first.id });
    await client.agents.folders.attach(folder.id, { agent_id: second.id });
    const pending = await parsedFile(folder, 'delta.md', null, new Date());
    // Uploaded after the attach and not parsed yet: the agent does not see it until ingestion opens it.
    expect((await listFiles(first.id)).files.map((file) => file.file_id)).not.toContain(pending.id);

    await SourceFile.query(stack.db).findById(pending.id).patch({ content: 'Delta\nnew line', processingStatus: 'embedding' });
    const changed = await stack.db.transaction((trx) => openFileInAttachedAgents(trx, stack.tenant.organizationId, pending.id, new Date()));
    expect(changed.sort()).toEqual([first.id, second.id].sort());
    expect(await openNames(first.id)).toHaveLength(2);
    expect(await openNames(first.id)).toContain(pending.fileName);
    expect(await openNames(second.id)).toHaveLength(4);
    expect(await systemMessageText(first.id)).toContain(`<file status="open" name="${pending.fileName}">\n<value>\n[Viewing file start (out of 2 lines)]\n1: Delta\n2: new line`);
  });
});

describe('folders and file limits through agent update', () => {
  const fileToolNames = (agent: { tools: Array<{ tool_type?: string | null; name?: string | null }> }) =>
    agent.tools.filter((tool) => tool.tool_type === 'letta_files_core').map((tool) => tool.name);

  it('makes the attached folders exactly folder_ids (with source_ids joined), and a foreign folder is a 404 that changes nothing', async () => {
    const one = await folderWithFiles();
    const two = await folderWithFiles();
    const other = await stack.createTenant();
    const foreign = await clientFor(other.apiKey.key).folders.create({ name: 'theirs' });
    const agent = await newAgent({ folder_ids: [one.folder.id] });

    const swapped = await client.agents.update(agent.id, { folder_ids: [two.folder.id] });
    expect(swapped.sources.map((source) => source.id)).toEqual([two.folder.id]);
    expect(fileToolNames(swapped).sort()).toEqual([...FILE_TOOL_NAMES].sort());
    expect((await listFiles(agent.id)).files.map((file) => file.folder_id)).toEqual([two.folder.id, two.folder.id, two.folder.id]);
    expect(await openNames(agent.id)).toEqual([`${two.folder.name}/beta.md`, `${two.folder.name}/gamma.md`]);
    const swappedPrompt = await systemMessageText(agent.id);
    expect(swappedPrompt).toContain(`<directory name="${two.folder.name}">`);
    expect(swappedPrompt).not.toContain(`<directory name="${one.folder.name}">`);

    const both = await client.agents.update(agent.id, { folder_ids: [two.folder.id], source_ids: [one.folder.id] });
    expect(both.sources.map((source) => source.id).sort()).toEqual([one.folder.id, two.folder.id].sort());
    expect((await listFiles(agent.id)).files).toHaveLength(6);

    const filesBefore = await listFiles(agent.id);
    const promptBefore = await systemMessageText(agent.id);
    await expect(
      client.agents.update(agent.id, { folder_ids: [one.folder.id, foreign.id], description: 'not kept' }),
    ).rejects.toMatchObject({ status: 404 });
    await expect(client.agents.update(agent.id, { folder_ids: ['source-00000000-0000-4000-8000-000000000000'] })).rejects.toMatchObject({
      status: 404,
    });
    const unchanged = await client.agents.retrieve(agent.id, { include: ['agent.sources'] });
    expect(unchanged.sources.map((source) => source.id).sort()).toEqual([one.folder.id, two.folder.id].sort());
    expect(unchanged.description).toBe(agent.description);
    expect(await listFiles(agent.id)).toEqual(filesBefore);
    expect(await systemMessageText(agent.id)).toBe(promptBefore);

    const none = await client.agents.update(agent.id, { folder_ids: [] });
    expect(none.sources).toEqual([]);
    expect(fileToolNames(none)).toEqual([]);
    expect((await listFiles(agent.id)).files).toEqual([]);
    expect(await systemMessageText(agent.id)).not.toContain('<directories>');
  });

  it('shows the agent files as memory.file_blocks, matching its files list, on get and list alike', async () => {
    const { folder } = await folderWithFiles();
    const tag = `file-blocks-${newId('agent')}`;
    const [first, second] = [await newAgent({ tags: [tag] }), await newAgent({ tags: [tag], max_files_open: 1 })];
    await client.agents.folders.attach(folder.id, { agent_id: first.id });
    await client.agents.folders.attach(folder.id, { agent_id: second.id });

    const expectedFileBlocks = async (agentId: string, limit: number) =>
      (await listFiles(agentId)).files
        .map((file) => ({
          id: file.id,
          label: file.file_name,
          value: file.visible_content ?? '',
          limit,
          read_only: true,
          file_id: file.file_id,
          source_id: folder.id,
          is_open: file.is_open,
          last_accessed_at: file.last_accessed_at,
        }))
        .sort((a, b) => a.label.localeCompare(b.label));

    const retrieved = await client.agents.retrieve(first.id, { include: ['agent.blocks'] });
    const firstBlocks = await expectedFileBlocks(first.id, retrieved.per_file_view_window_char_limit!);
    expect(firstBlocks.filter((block) => block.is_open)).toHaveLength(2);
    expect(retrieved.memory.file_blocks).toEqual(firstBlocks.map((block) => expect.objectContaining(block)));
    // Like the blocks beside them, file blocks come with `agent.blocks` only.
    expect((await client.agents.retrieve(first.id)).memory.file_blocks).toEqual([]);
    const coreMemory = (await (await api(`/agents/${first.id}/core-memory`)).json()) as { file_blocks: unknown[] };
    expect(coreMemory.file_blocks).toEqual(retrieved.memory.file_blocks);

    const listed = await client.agents.list({ tags: [tag], include: ['agent.blocks'] });
    const byId = new Map(listed.items.map((agent) => [agent.id, agent]));
    expect(byId.get(first.id)?.memory.file_blocks).toEqual(firstBlocks.map((block) => expect.objectContaining(block)));
    const secondBlocks = await expectedFileBlocks(second.id, retrieved.per_file_view_window_char_limit!);
    expect(secondBlocks.filter((block) => block.is_open).map((block) => block.label)).toEqual([`${folder.name}/gamma.md`]);
    expect(byId.get(second.id)?.memory.file_blocks).toEqual(secondBlocks.map((block) => expect.objectContaining(block)));
  });

  it('applies lowered limits at once: open views are cut to the new char limit over their range, the least recently used close, and the prompt shows it', async () => {
    const { folder, files } = await folderWithFiles();
    const [alpha, beta, gamma] = files as [SourceFile, SourceFile, SourceFile];
    const agent = await newAgent();
    await client.agents.folders.attach(folder.id, { agent_id: agent.id });
    // Open alpha on its second line only, as the open_files tool does for a range; that closes beta.
    const ranged = renderFileView(alpha.fileName, alpha.content!, { offset: 1, length: 1, charLimit: 50_000 });
    if (!ranged.ok) throw new Error(ranged.error);
    await stack.db.transaction((trx) => openFileForAgent(trx, stack.tenant.organizationId, agent.id, alpha, ranged.view, 2, new Date()));
    expect(await openNames(agent.id)).toEqual([alpha.fileName, gamma.fileName]);

    const narrowed = await client.agents.update(agent.id, { per_file_view_window_char_limit: 60 });
    expect(narrowed.per_file_view_window_char_limit).toBe(60);
    const views = new Map((await listFiles(agent.id, 'is_open=true')).files.map((file) => [file.file_name, file.visible_content]));
    expect(views.get(alpha.fileName)).toBe('[Viewing lines 2 to 2 (out of 3 lines)]\n2: The...[TRUNCATED]');
    expect(views.get(gamma.fileName)).toBe('[Viewing file start (out of 2 lines)]\n1: # Gam...[TRUNCATED]');
    expect(await systemMessageText(agent.id)).toContain(
      `<file status="open" name="${alpha.fileName}">\n<value>\n[Viewing lines 2 to 2 (out of 3 lines)]\n2: The...[TRUNCATED]`,
    );

    await client.agents.update(agent.id, { max_files_open: 1 });
    expect(await openNames(agent.id)).toEqual([alpha.fileName]);
    const prompt = await systemMessageText(agent.id);
    expect(prompt).toContain('<file_limits>\n- current_files_open=1\n- max_files_open=1\n</file_limits>');
    expect(prompt).toContain(`<file status="closed" name="${gamma.fileName}"></file>`);
    expect(prompt).toContain(`<file status="closed" name="${beta.fileName}"></file>`);

    // Raising the char limit shows the whole range again.
    await client.agents.update(agent.id, { per_file_view_window_char_limit: 50_000 });
    expect((await listFiles(agent.id, 'is_open=true')).files.map((file) => file.visible_content)).toEqual([
      '[Viewing lines 2 to 2 (out of 3 lines)]\n2: The alpha plan ships in March.',
    ]);
  });
});

describe('the file tools in the agent loop', () => {
  type ToolReturn = { message_type: string; status: string; tool_return: string };
  const toolReturns = (messages: unknown[]) =>
    (messages as ToolReturn[]).filter((message) => message.message_type === 'tool_return_message');
  const say = (agentId: string, content: string) => client.agents.messages.create(agentId, { messages: [{ role: 'user', content }] });

  it('open_files opens ranges, says what it closed, and refuses more files than the limit or unknown names', async () => {
    const { folder } = await folderWithFiles();
    const agent = await newAgent();
    await client.agents.folders.attach(folder.id, { agent_id: agent.id });
    const alpha = `${folder.name}/alpha.md`;
    const beta = `${folder.name}/beta.md`;

    model.enqueue(
      { type: 'tool_calls', calls: [{ name: 'open_files', arguments: { file_requests: [{ file_name: alpha, offset: 1, length: 1 }] } }] },
      { type: 'tool_calls', calls: [{ name: 'open_files', arguments: { file_requests: [{ file_name: beta }], close_all_others: true } }] },
      {
        type: 'tool_calls',
        calls: [
          { name: 'open_files', arguments: { file_requests: ['alpha', 'beta', 'gamma'].map((name) => ({ file_name: `${folder.name}/${name}.md` })) } },
          { name: 'open_files', arguments: { file_requests: [{ file_name: 'nope.md' }] } },
          { name: 'open_files', arguments: { file_requests: [{ file_name: alpha, offset: 10 }] } },
        ],
      },
      { type: 'text', text: 'Done reading.' },
    );
    const response = await say(agent.id, 'Read the alpha plan.');
    const [ranged, onlyBeta, tooMany, missing, pastEnd] = toolReturns(response.messages);
    expect(ranged?.status).toBe('success');
    expect(ranged?.tool_return).toBe(`* Opened ${alpha} (lines 2-2)\nNote: Closed 1 least recently used file(s) due to open file limit: ${beta}`);
    expect(onlyBeta?.tool_return).toBe(`* Opened ${beta}\nNote: Closed 2 file(s) due to close_all_others=True: ${alpha}, ${folder.name}/gamma.md`);
    expect(tooMany).toMatchObject({ status: 'error', tool_return: expect.stringContaining('Cannot open 3 files: you may keep at most 2 files open at once') });
    expect(missing?.tool_return).toContain(`File 'nope.md' not found. Available files: ${alpha}`);
    expect(pastEnd?.tool_return).toContain('has only 3 lines');
    expect(await openNames(agent.id)).toEqual([beta]);

    // The model saw the ranged view in its prompt on the step after opening it.
    const secondRequest = model.requests.at(-3)!;
    const prompt = String(secondRequest.messages[0]?.content);
    expect(prompt).toContain(`<file status="open" name="${alpha}">\n<value>\n[Viewing lines 2 to 2 (out of 3 lines)]\n2: The alpha plan ships in March.`);
    expect(await systemMessageText(agent.id)).toContain(`<file status="open" name="${beta}">`);
    expect(response.messages.at(-1)).toMatchObject({ message_type: 'assistant_message', content: 'Done reading.' });
  });

  it('grep_files finds lines across the files with context', async () => {
    const { folder } = await folderWithFiles();
    const agent = await newAgent();
    await client.agents.folders.attach(folder.id, { agent_id: agent.id });
    model.enqueue(
      {
        type: 'tool_calls',
        calls: [
          { name: 'grep_files', arguments: { pattern: 'ships|reviewers', context_lines: 0 } },
          { name: 'grep_files', arguments: { pattern: 'ships|reviewers', include: 'beta' } },
          { name: 'grep_files', arguments: { pattern: '(' } },
        ],
      },
      { type: 'text', text: 'Found them.' },
    );
    const [both, filtered, invalid] = toolReturns((await say(agent.id, 'Who reviews?')).messages);
    expect(both?.status).toBe('success');
    expect(both?.tool_return).toContain('Found 2 total matches across 2 files (showing matches 1-2 of 2)');
    expect(both?.tool_return).toContain(`=== ${folder.name}/alpha.md:2 ===\n> 2: The alpha plan ships in March.`);
    expect(both?.tool_return).toContain(`=== ${folder.name}/beta.md:2 ===\n> 2: Beta needs two reviewers.`);
    expect(filtered?.tool_return).toContain('Found 1 total matches across 1 files');
    expect(invalid).toMatchObject({ status: 'error', tool_return: expect.stringContaining('not a valid regular expression') });
  });
});
