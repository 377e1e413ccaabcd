import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Letta, { toFile } from '@letta-ai/letta-client';
import { AgentTool, FileUpload, SourceAgent, SourceFile, Tool, attachFolderToAgent, newId } from '@engram/db';
import { LOCAL_EMBEDDING_CONFIG } from '@engram/integrations/archival';
import { startScriptedModelServer, startTestStack, type ScriptedModelServer, type TestStack, until } from '@engram/testing';
import { buildApp } from '../../app.js';
import { parseApiConfig } from '../../config.js';
import { createFolderService } from '../../services/folders/folder-service.js';
import { createTierLimitGuard } from '../../services/tenancy/tier-limits.js';

let stack: TestStack;
let model: ScriptedModelServer;
let client: Letta;

beforeAll(async () => {
  model = await startScriptedModelServer({ models: ['gpt-4o-mini', 'text-embedding-3-small'] });
  // The in-process worker ingests what the tests upload.
  stack = await startTestStack({ baseProviders: [{ name: 'openai', providerType: 'openai', apiKey: 'test', baseUrl: model.url }] });
  client = new Letta({ apiKey: stack.apiKey, baseURL: stack.baseUrl, maxRetries: 0 });
});

afterAll(async () => {
  await stack?.stop();
  await model?.close();
});

/** Response bodies are checked field by field, so they are read untyped. */
type JsonResponse = Omit<Response, 'json'> & { json(): Promise<any> };

const api = (path: string, init: RequestInit & { key?: string } = {}, baseUrl = stack.baseUrl): Promise<JsonResponse> =>
  fetch(`${baseUrl}/v1${path}`, {
    ...init,
    headers: {
      authorization: `Bearer ${init.key ?? stack.apiKey}`,
      ...(typeof init.body === 'string' ? { 'content-type': 'application/json' } : {}),
    },
  });

const post = (path: string, body: unknown, key?: string) => api(path, { method: 'POST', body: JSON.stringify(body), key });

/** A multipart upload as a browser or curl sends one, for what the client cannot express. */
function uploadForm(name: string, text: string | Buffer, type: string): FormData {
  const form = new FormData();
  form.append('file', new Blob([text], { type }), name);
  return form;
}

type UploadOptions = { type?: string; duplicate_handling?: 'suffix' | 'skip' | 'error' | 'replace'; name?: string };

const upload = async (folderId: string, name: string, text: string, options: UploadOptions = {}) =>
  client.folders.files.upload(folderId, {
    file: await toFile(Buffer.from(text), name, { type: options.type ?? 'text/markdown' }),
    duplicate_handling: options.duplicate_handling,
    name: options.name,
  });

let folderCount = 0;
const newFolder = (name = `folder-${++folderCount}-${Date.now()}`) => client.folders.create({ name });

function waitForFile(folderId: string, fileId: string, done: (file: any) => boolean): Promise<any> {
  return until(() => client.folders.files.retrieve(fileId, { folder_id: folderId }), done, { what: `file ${fileId} processed` });
}

describe('folders', () => {
  it('creates a folder with the local embedder by default, reads, updates, lists, counts and deletes it', async () => {
    const before = await (await api('/folders/count')).json();
    const folder = await client.folders.create({ name: 'handbook', description: 'the staff handbook', instructions: 'Cite the section', metadata: { team: 'ops' } });
    expect(folder).toMatchObject({
      id: expect.stringMatching(/^source-[0-9a-f-]{36}$/),
      name: 'handbook',
      description: 'the staff handbook',
      instructions: 'Cite the section',
      metadata: { team: 'ops' },
      embedding_config: LOCAL_EMBEDDING_CONFIG,
      organization_id: stack.tenant.organizationId,
      created_by_id: stack.tenant.userId,
    });
    expect(await client.folders.retrieve(folder.id)).toEqual(folder);
    expect(await (await api('/folders/count')).json()).toBe(before + 1);
    expect(await (await api(`/folders/name/handbook`)).json()).toBe(folder.id);

    const updated = await client.folders.update(folder.id, { name: 'staff-handbook', instructions: 'Quote it' });
    expect(updated).toMatchObject({ name: 'staff-handbook', description: 'the staff handbook', instructions: 'Quote it' });
    expect((await client.folders.list({ name: 'staff-handbook' })).items.map((item) => item.id)).toEqual([folder.id]);

    const deleted = await api(`/folders/${folder.id}`, { method: 'DELETE' });
    expect(deleted.status).toBe(200);
    expect(await deleted.text()).toBe('null');
    expect((await api(`/folders/${folder.id}`)).status).toBe(404);
    expect(await (await api('/folders/count')).json()).toBe(before);
  });

  it('lists oldest first by default and pages with before/after/limit/order', async () => {
    const tag = `page-${Date.now()}`;
    const created: Array<{ id: string }> = [];
    for (const suffix of ['a', 'b', 'c']) created.push(await client.folders.create({ name: `${tag}-${suffix}` }));
    const ours = (items: Array<{ id: string }>) => items.map((item) => item.id).filter((id) => created.some((folder) => folder.id === id));
    const ids = created.map((folder) => folder.id);

    expect(ours(await (await api('/folders/?limit=1000')).json())).toEqual(ids);
    expect(ours(await (await api('/folders/?limit=1000&order=desc')).json())).toEqual([...ids].reverse());
    expect(await (await api(`/folders/?after=${ids[0]}&limit=1`)).json()).toMatchObject([{ id: ids[1] }]);
    expect(await (await api(`/folders/?before=${ids[2]}&limit=1`)).json()).toMatchObject([{ id: ids[1] }]);
  });

  it('refuses a folder without a name, with unknown fields, or with a name the organization already uses', async () => {
    expect((await post('/folders/', { description: 'no name' })).status).toBe(422);
    expect((await post('/folders/', { name: 'x', surprise: true })).status).toBe(422);
    const folder = await newFolder();
    const duplicate = await post('/folders/', { name: folder.name });
    expect(duplicate.status).toBe(409);
    expect((await duplicate.json()).detail).toContain(folder.name);
    const other = await newFolder();
    expect((await api(`/folders/${other.id}`, { method: 'PATCH', body: JSON.stringify({ name: folder.name }) })).status).toBe(409);
  });

  it('changes the embedding of an empty folder only: the chunks of a folder with files were embedded with the old one', async () => {
    const resized = { ...LOCAL_EMBEDDING_CONFIG, embedding_chunk_size: 100 };
    const empty = await newFolder();
    const changed = await api(`/folders/${empty.id}`, { method: 'PATCH', body: JSON.stringify({ embedding_config: resized }) });
    expect((await changed.json()).embedding_config).toEqual(resized);
    const filled = await newFolder();
    await upload(filled.id, 'a.md', '# a');
    const refused = await api(`/folders/${filled.id}`, { method: 'PATCH', body: JSON.stringify({ embedding_config: resized }) });
    expect(refused.status).toBe(400);
    expect((await client.folders.retrieve(filled.id)).embedding_config).toEqual(LOCAL_EMBEDDING_CONFIG);
  });

  it('resolves an embedding handle through the providers and applies the chunk size asked for', async () => {
    const folder = await client.folders.create({ name: `embedded-${Date.now()}`, embedding: 'openai/text-embedding-3-small', embedding_chunk_size: 512 });
    expect(folder.embedding_config).toMatchObject({ embedding_model: 'text-embedding-3-small', handle: 'openai/text-embedding-3-small', embedding_chunk_size: 512 });
    expect((await post('/folders/', { name: `nowhere-${Date.now()}`, embedding: 'nowhere/model' })).status).toBe(400);
  });

  it('answers another organization 404 for a folder and its files', async () => {
    const folder = await newFolder();
    const file = await upload(folder.id, 'private.md', '# private');
    const other = await stack.createTenant();
    const key = other.apiKey.key;
    expect((await api(`/folders/${folder.id}`, { key })).status).toBe(404);
    expect((await api(`/folders/${folder.id}/files`, { key })).status).toBe(404);
    expect((await api(`/folders/${folder.id}/files/${file.id}`, { key })).status).toBe(404);
    expect((await api(`/folders/${folder.id}/passages`, { key })).status).toBe(404);
    expect((await api(`/folders/${folder.id}/${file.id}`, { method: 'DELETE', key })).status).toBe(404);
    expect((await api(`/folders/${folder.id}/upload`, { method: 'POST', body: uploadForm('x.md', '# x', 'text/markdown'), key })).status).toBe(404);
    expect((await api(`/folders/name/${folder.name}`, { key })).status).toBe(404);
    expect(await (await api('/folders/?limit=1000', { key })).json()).toEqual([]);
    // A file of another folder is not found through this one.
    const elsewhere = await newFolder();
    expect((await api(`/folders/${elsewhere.id}/files/${file.id}`)).status).toBe(404);
  });
});

describe('folder uploads', () => {
  it('stores the upload as parsing and names it <folder>/<file>; listings drop the folder prefix', async () => {
    const folder = await newFolder();
    const file = await upload(folder.id, 'notes.md', '# Notes\n\nHello.');
    expect(file).toMatchObject({
      id: expect.stringMatching(/^file-[0-9a-f-]{36}$/),
      source_id: folder.id,
      file_name: `${folder.name}/notes.md`,
      original_file_name: 'notes.md',
      file_type: 'text/markdown',
      file_size: 15,
      processing_status: 'parsing',
      content: null,
    });
    const stored = await FileUpload.query(stack.db).findById(file.id);
    expect(stored!.data.toString()).toBe('# Notes\n\nHello.');
    const listed = (await client.folders.files.list(folder.id)).items;
    expect(listed).toMatchObject([{ id: file.id, file_name: 'notes.md' }]);
  });

  it('suffixes a duplicate name by default, and skips, refuses or replaces it when asked', async () => {
    const folder = await newFolder();
    const first = await upload(folder.id, 'guide.md', 'v1');
    const second = await upload(folder.id, 'guide.md', 'v2');
    const third = await upload(folder.id, 'guide.md', 'v3', { duplicate_handling: 'suffix' });
    expect([first.file_name, second.file_name, third.file_name]).toEqual([`${folder.name}/guide.md`, `${folder.name}/guide_(1).md`, `${folder.name}/guide_(2).md`]);
    expect(second.original_file_name).toBe('guide.md');

    const { data: skipped, response } = await client.folders.files
      .upload(folder.id, { file: await toFile(Buffer.from('v4'), 'guide.md', { type: 'text/markdown' }), duplicate_handling: 'skip' })
      .withResponse();
    expect(response.headers.get('x-upload-result')).toBe('skipped');
    expect(skipped.id).toBe(first.id);

    const refused = await api(`/folders/${folder.id}/upload?duplicate_handling=error`, { method: 'POST', body: uploadForm('guide.md', 'v5', 'text/markdown') });
    expect(refused.status).toBe(400);
    expect((await refused.json()).detail).toBe(`File 'guide.md' already exists in folder '${folder.name}'`);

    const other = await upload(folder.id, 'other.md', 'x');
    const replaced = await upload(folder.id, 'other.md', 'y', { duplicate_handling: 'replace' });
    expect(replaced.id).not.toBe(other.id);
    expect(replaced.file_name).toBe(`${folder.name}/other.md`);
    expect((await api(`/folders/${folder.id}/files/${other.id}`)).status).toBe(404);

    // A file renamed by `name` into a taken suffix does not collide with the next copy.
    await upload(folder.id, 'source.txt', 'z', { name: 'report_(1).md' });
    await upload(folder.id, 'a.md', 'a', { name: 'report.md' });
    const copy = await upload(folder.id, 'b.md', 'b', { name: 'report.md' });
    expect(copy).toMatchObject({ file_name: `${folder.name}/report_(2).md`, original_file_name: 'report.md' });
  });

  it('decides the type by extension when the declared one is generic, and refuses unsupported files with 415', async () => {
    const folder = await newFolder();
    const generic = await api(`/folders/${folder.id}/upload`, { method: 'POST', body: uploadForm('main.py', 'print(1)', 'application/octet-stream') });
    expect(generic.status).toBe(200);
    expect(await generic.json()).toMatchObject({ file_type: 'text/x-python', original_file_name: 'main.py' });

    const binary = await api(`/folders/${folder.id}/upload`, { method: 'POST', body: uploadForm('setup.exe', Buffer.from([0x4d, 0x5a, 0, 1]), 'application/octet-stream') });
    expect(binary.status).toBe(415);
    expect((await binary.json()).detail).toMatch(/^Unsupported file type: application\/octet-stream \(filename: setup\.exe\)/);
    expect(await SourceFile.query(stack.db).where({ sourceId: folder.id, originalFileName: 'setup.exe' })).toEqual([]);

    expect((await api(`/folders/${folder.id}/upload`, { method: 'POST', body: new FormData() })).status).toBe(422);
    expect((await post(`/folders/${folder.id}/upload`, {})).status).toBe(422);
  });

  it('refuses a file over the configured maximum with 413 and stores nothing', async () => {
    const small = await buildApp({ config: { ...parseApiConfig({ ENGRAM_MAX_UPLOAD_BYTES: '1024' }), logLevel: 'silent' }, services: stack.services, logger: false });
    const baseUrl = await small.listen({ port: 0, host: '127.0.0.1' });
    try {
      const folder = await newFolder();
      const fits = await api(`/folders/${folder.id}/upload`, { method: 'POST', body: uploadForm('fits.txt', 'x'.repeat(1024), 'text/plain') }, baseUrl);
      expect(fits.status).toBe(200);
      const tooLarge = await api(`/folders/${folder.id}/upload`, { method: 'POST', body: uploadForm('big.txt', 'x'.repeat(1025), 'text/plain') }, baseUrl);
      expect(tooLarge.status).toBe(413);
      expect((await tooLarge.json()).detail).toBe('File is larger than the maximum upload size of 1 KB (1024 bytes)');
      expect((await SourceFile.query(stack.db).where({ sourceId: folder.id })).map((file) => file.originalFileName)).toEqual(['fits.txt']);
    } finally {
      await small.close();
    }
  });

  it('marks the file error, with the reason, when its ingestion cannot be started', async () => {
    const folders = createFolderService({
      db: stack.db,
      models: stack.services.models,
      fileIngestion: {
        start: async () => {
          throw new Error('Temporal is unreachable');
        },
        progress: async () => ({ running: true as const }),
      },
      limits: createTierLimitGuard({ mode: 'off' }),
    });
    const folder = await newFolder();
    const ctx = { organizationId: stack.tenant.organizationId, userId: stack.tenant.userId, role: 'admin' as const, requestId: 'req-test', project: {} };
    const { file } = await folders.upload(ctx, folder.id, { uploadedName: 'a.md', declaredMime: 'text/markdown', data: Buffer.from('# a'), duplicateHandling: 'suffix' });
    expect(file).toMatchObject({ processingStatus: 'error', errorMessage: 'File processing could not be started: Temporal is unreachable' });
    expect((await client.folders.files.retrieve(file.id, { folder_id: folder.id })).processing_status).toBe('error');
  });

  it('marks a file error when its ingestion stopped without finishing it, unless check_status_updates is off', async () => {
    const folder = await newFolder();
    // A file left mid-ingestion by a workflow that no longer exists (an operator terminated it long ago, say).
    const fileId = newId('file');
    const quietSince = new Date(Date.now() - 5 * 60_000);
    await SourceFile.query(stack.db).insert({
      id: fileId,
      organizationId: stack.tenant.organizationId,
      sourceId: folder.id,
      fileName: `${folder.name}/stalled.md`,
      originalFileName: 'stalled.md',
      fileType: 'text/markdown',
      fileSize: 10,
      processingStatus: 'embedding',
      createdAt: quietSince,
      updatedAt: quietSince,
    });

    const unchecked = await api(`/sources/${folder.id}/files?check_status_updates=false`);
    expect(((await unchecked.json()) as Array<{ processing_status: string }>).map((file) => file.processing_status)).toEqual(['embedding']);

    const listed = (await client.folders.files.list(folder.id)).items;
    expect(listed).toEqual([
      expect.objectContaining({ id: fileId, processing_status: 'error', error_message: expect.stringContaining('Ingestion stopped before the file was ready') }),
    ]);
    expect(await SourceFile.query(stack.db).findById(fileId)).toMatchObject({ processingStatus: 'error' });
  });

  it('ingests an uploaded Markdown file to completed, with its chunks listed as the folder passages', async () => {
    const folder = await newFolder();
    const text = ['# Onboarding', '', 'New hires get a laptop on day one.', '', '## Holidays', '', 'Everyone has twenty-five days of paid leave.'].join('\n');
    const uploaded = await upload(folder.id, 'onboarding.md', text);
    const done = await waitForFile(folder.id, uploaded.id, (file) => file.processing_status === 'completed' || file.processing_status === 'error');
    expect(done).toMatchObject({ processing_status: 'completed', error_message: null });
    expect(done.total_chunks).toBeGreaterThan(0);
    expect(done.chunks_embedded).toBe(done.total_chunks);

    const withContent = await client.folders.files.retrieve(uploaded.id, { folder_id: folder.id, include_content: true });
    expect(withContent.content).toContain('twenty-five days of paid leave');

    const passages = await (await api(`/folders/${folder.id}/passages`)).json();
    expect(passages).toHaveLength(done.total_chunks);
    for (const passage of passages) {
      expect(passage).toMatchObject({ source_id: folder.id, file_id: uploaded.id, file_name: `${folder.name}/onboarding.md`, archive_id: null });
    }
    expect(passages.map((passage: { text: string }) => passage.text).join('\n')).toContain('paid leave');
  });
});

describe('folder metadata, agents and deletion', () => {
  it('sums files and sizes per folder, with the per-file detail only when asked for', async () => {
    const other = await stack.createTenant();
    const otherClient = new Letta({ apiKey: other.apiKey.key, baseURL: stack.baseUrl, maxRetries: 0 });
    const a = await otherClient.folders.create({ name: 'b-folder' });
    const b = await otherClient.folders.create({ name: 'a-folder' });
    const first = await otherClient.folders.files.upload(a.id, { file: await toFile(Buffer.from('12345'), 'one.txt', { type: 'text/plain' }) });
    await otherClient.folders.files.upload(a.id, { file: await toFile(Buffer.from('123'), 'two.txt', { type: 'text/plain' }) });

    const metadataOf = async (query = '') =>
      (await fetch(`${stack.baseUrl}/v1/folders/metadata${query}`, { headers: { authorization: `Bearer ${other.apiKey.key}` } })).json();
    expect(await metadataOf()).toEqual({ total_sources: 2, total_files: 2, total_size: 8, sources: [] });
    expect(await metadataOf('?include_detailed_per_source_metadata=true')).toEqual({
      total_sources: 2,
      total_files: 2,
      total_size: 8,
      sources: [
        { source_id: b.id, source_name: 'a-folder', file_count: 0, total_size: 0, files: [] },
        {
          source_id: a.id,
          source_name: 'b-folder',
          file_count: 2,
          total_size: 8,
          files: [
            { file_id: first.id, file_name: 'b-folder/one.txt', file_size: 5 },
            { file_id: expect.stringMatching(/^file-/), file_name: 'b-folder/two.txt', file_size: 3 },
          ],
        },
      ],
    });
  });

  it("lists the folder's agents, moves file names with a rename, and detaches agents (and their file tools) on delete", async () => {
    const folder = await newFolder();
    const file = await upload(folder.id, 'faq.md', '# FAQ\n\nAsk away.');
    await waitForFile(folder.id, file.id, (current) => current.processing_status === 'completed');
    const agent = await client.agents.create({ model: 'openai/gpt-4o-mini', include_base_tools: false });
    await stack.db.transaction((trx) => attachFolderToAgent(trx, stack.tenant.organizationId, agent.id, folder.id, new Date()));
    expect(await client.folders.agents.list(folder.id)).toEqual([agent.id]);
    const fileTools = () =>
      AgentTool.query(stack.db).where('agent_tools.agent_id', agent.id).join('tools', 'tools.id', 'agent_tools.tool_id').where('tools.tool_type', 'letta_files_core');
    expect((await fileTools()).length).toBeGreaterThan(0);

    const renamed = `${folder.name}-renamed`;
    await client.folders.update(folder.id, { name: renamed });
    expect((await SourceFile.query(stack.db).findById(file.id))!.fileName).toBe(`${renamed}/faq.md`);
    expect((await client.folders.files.list(folder.id)).items[0]!.file_name).toBe('faq.md');
    const passages = await (await api(`/folders/${folder.id}/passages`)).json();
    expect(passages.map((passage: { file_name: string }) => passage.file_name)).toEqual(passages.map(() => `${renamed}/faq.md`));

    expect((await api(`/folders/${folder.id}`, { method: 'DELETE' })).status).toBe(200);
    expect(await SourceAgent.query(stack.db).where({ agentId: agent.id })).toEqual([]);
    expect(await fileTools()).toEqual([]);
    expect(await Tool.query(stack.db).where({ organizationId: stack.tenant.organizationId, toolType: 'letta_files_core' }).resultSize()).toBeGreaterThan(0);
    expect((await client.agents.retrieve(agent.id)).id).toBe(agent.id);
  });

  it('deletes one file with 204, its chunks with it', async () => {
    const folder = await newFolder();
    const file = await upload(folder.id, 'gone.md', '# Gone\n\nSoon.');
    await waitForFile(folder.id, file.id, (current) => current.processing_status === 'completed');
    await client.folders.files.delete(file.id, { folder_id: folder.id });
    expect((await api(`/folders/${folder.id}/files/${file.id}`)).status).toBe(404);
    expect(await (await api(`/folders/${folder.id}/passages`)).json()).toEqual([]);
    expect((await api(`/folders/${folder.id}/${file.id}`, { method: 'DELETE' })).status).toBe(404);
  });
});

describe('folder API documentation', () => {
  it('documents the folder and source routes, the upload as a multipart form', async () => {
    const spec = (await (await fetch(`${stack.baseUrl}/openapi.json`)).json()) as any;
    expect(spec.paths['/v1/folders/'].post.requestBody.content['application/json'].schema.required).toEqual(['name']);
    const upload = spec.paths['/v1/folders/{folder_id}/upload'].post;
    expect(Object.keys(upload.requestBody.content)).toEqual(['multipart/form-data']);
    expect(upload.parameters.map((parameter: { name: string }) => parameter.name)).toEqual(expect.arrayContaining(['folder_id', 'duplicate_handling', 'name']));
    expect(spec.paths['/v1/sources/{source_id}/files/{file_id}'].get).toBeDefined();
  });
});
