import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createActivities, type ChunkBatch, type FileRef } from '@engram/activities';
import { createEmbedder, createPassageStore, LOCAL_EMBEDDING_CONFIG, type PassageStore } from '@engram/integrations/archival';
import { chunkPassageId } from '@engram/integrations/files';
import { minimalPdf } from '@engram/testing/fixtures/minimal-pdf';
import { insertFolder, insertUploadedFile, waitForFileStatus } from '@engram/testing/fixtures/uploaded-file';
import { createSecretBox, FileAgent, Passage, PassageVector, SourceFile, type Source } from '@engram/db';
import { attachFolderToAgent } from '@engram/db/queries/file-agents';
import { createFileIngestionClient, type FileIngestionClient } from '@engram/temporal/client';
import { startScriptedModelServer, startTestStack, type ScriptedModelServer, type TestStack } from '@engram/testing';
import { createAgent as createAgentWith } from '@engram/testing/factories/index';
import { fileIngestionWorkflowId } from './ids.js';
import { loopbackEgress } from '@engram/testing/egress';
import { sandboxedStdio } from '@engram/testing/mcp-stdio';

let stack: TestStack;
let model: ScriptedModelServer;
let ingestion: FileIngestionClient;
let store: PassageStore;
let organizationId: string;
let folder: Source;

/** Small chunks (100 tokens ≈ 400 characters), so a short text makes several. */
const SMALL_CHUNKS = { ...LOCAL_EMBEDDING_CONFIG, embedding_chunk_size: 100 };

const GUIDE = [
  '# Orchard guide',
  '',
  ...Array.from({ length: 12 }, (_, index) =>
    [
      `## Section ${index}`,
      '',
      `Lemon trees in section ${index} need water twice a week in summer. They flower in spring and fruit in winter.`,
      `The soil of row ${index} is sandy, so compost is added every autumn. Pruning happens after the harvest.`,
      '',
    ].join('\n'),
  ),
  '## Bees',
  '',
  'The beehives stand at the north fence; the beekeeper visits on Thursdays to collect honey.',
].join('\n');

beforeAll(async () => {
  model = await startScriptedModelServer({ models: ['gpt-4o-mini'] });
  stack = await startTestStack({ baseProviders: [{ name: 'openai', providerType: 'openai', apiKey: 'test', baseUrl: model.url }] });
  organizationId = stack.tenant.organizationId;
  ingestion = createFileIngestionClient({ client: stack.temporal, taskQueue: stack.taskQueue });
  store = createPassageStore({ db: stack.db, embedder: createEmbedder({ db: stack.db, baseProviders: [], secrets: createSecretBox(randomBytes(32).toString('base64')), egress: loopbackEgress() }) });
  folder = await insertFolder(stack.db, { organizationId, name: 'orchard', embeddingConfig: SMALL_CHUNKS });
});

afterAll(async () => {
  await stack?.stop();
  await model?.close();
});

const passagesOf = (fileId: string) => Passage.query(stack.db).forOrg(organizationId).where({ fileId }).orderBy('createdAt');

/** An agent of the stack's organization (the factory expects the 200). */
const createAgent = async (): Promise<string> => (await createAgentWith(stack)).id;

describe('file ingestion', () => {
  it('parses, chunks and embeds a markdown file into passages of its folder, each chunk once, and opens it in attached agents', async () => {
    const agentId = await createAgent();
    await attachFolderToAgent(stack.db, organizationId, agentId, folder.id, new Date());
    const file = await insertUploadedFile(stack.db, { organizationId, folder, name: 'guide.md', data: GUIDE });

    await ingestion.start({ organizationId, fileId: file.id });
    // Starting it again while it runs is not an error and starts nothing more.
    await ingestion.start({ organizationId, fileId: file.id });
    const done = await waitForFileStatus(stack.db, { organizationId, id: file.id }, ['completed', 'error']);

    expect(done).toMatchObject({ processingStatus: 'completed', errorMessage: null, content: GUIDE });
    expect(done.totalChunks).toBeGreaterThan(3);
    expect(done.chunksEmbedded).toBe(done.totalChunks);
    const stored = await passagesOf(file.id);
    expect(stored.map((passage) => passage.id)).toEqual(Array.from({ length: done.totalChunks! }, (_, index) => chunkPassageId(file.id, index)));
    expect(stored.every((passage) => passage.sourceId === folder.id && passage.archiveId === null && passage.fileName === 'orchard/guide.md')).toBe(true);
    expect(stored.map((passage) => passage.metadata)).toEqual(stored.map((_, index) => ({ chunk_index: index })));
    expect(stored.at(-1)!.text).toContain('beekeeper visits on Thursdays');
    const vectors = await PassageVector.query(stack.db).where({ sourceId: folder.id }).whereIn('passageId', stored.map((passage) => passage.id));
    expect(vectors).toHaveLength(stored.length);
    expect(vectors.every((vector) => vector.archiveId === null)).toBe(true);

    const view = await FileAgent.query(stack.db).forOrg(organizationId).findOne({ agentId, fileId: file.id });
    expect(view).toMatchObject({ isOpen: true, fileName: 'orchard/guide.md' });
    expect(view!.visibleContent).toContain('# Orchard guide');

    const history = await stack.temporal.workflow.getHandle(fileIngestionWorkflowId(file.id)).result();
    expect(history).toEqual({ status: 'completed', totalChunks: done.totalChunks });
  });

  it('finds the chunks with searchSources, in every mode, and narrows the search to some files', async () => {
    const other = await insertUploadedFile(stack.db, { organizationId, folder, name: 'bees.txt', data: 'Honey is collected from the beehives every Thursday by the beekeeper.' });
    const guide = await insertUploadedFile(stack.db, { organizationId, folder, name: 'guide-copy.md', data: GUIDE });
    await Promise.all([other, guide].map((file) => ingestion.start({ organizationId, fileId: file.id })));
    await Promise.all([other, guide].map((file) => waitForFileStatus(stack.db, { organizationId, id: file.id }, ['completed'])));

    const sources = [{ id: folder.id, embeddingConfig: folder.embeddingConfig }];
    for (const mode of ['hybrid', 'fts', 'vector'] as const) {
      const found = await store.searchSources({ organizationId, sources, fileIds: [guide.id], query: 'beekeeper honey Thursdays', mode, limit: 3 });
      expect(found[0]?.passage).toMatchObject({ fileId: guide.id, sourceId: folder.id });
      expect(found[0]!.passage.text).toContain('beekeeper');
      expect(found.every((item) => item.passage.fileId === guide.id)).toBe(true);
    }
    const everywhere = await store.searchSources({ organizationId, sources, query: 'beekeeper honey Thursday', mode: 'hybrid', limit: 10 });
    expect([...new Set(everywhere.map((item) => item.passage.fileId))]).toEqual(expect.arrayContaining([other.id, guide.id]));
    expect(everywhere.every((item) => item.passage.archiveId === null)).toBe(true);
    expect(await store.searchSources({ organizationId, sources, fileIds: [], query: 'honey', mode: 'hybrid', limit: 5 })).toEqual([]);
    expect(await store.searchSources({ organizationId: (await stack.createTenant()).organizationId, sources, query: 'honey', mode: 'hybrid', limit: 5 })).toEqual([]);
  });

  it('extracts the text of a PDF', async () => {
    const pdf = minimalPdf([['The orchard has forty lemon trees.'], ['Harvest starts in December.']]);
    const file = await insertUploadedFile(stack.db, { organizationId, folder, name: 'report.pdf', data: pdf });
    await ingestion.start({ organizationId, fileId: file.id });
    const done = await waitForFileStatus(stack.db, { organizationId, id: file.id }, ['completed', 'error']);
    expect(done).toMatchObject({ processingStatus: 'completed', content: 'The orchard has forty lemon trees.\n\nHarvest starts in December.', totalChunks: 1, chunksEmbedded: 1 });
  });

  it('leaves an unreadable PDF in error with the reason, without retrying it', async () => {
    const file = await insertUploadedFile(stack.db, { organizationId, folder, name: 'broken.pdf', data: '%PDF-1.7 not really' });
    await ingestion.start({ organizationId, fileId: file.id });
    const failed = await waitForFileStatus(stack.db, { organizationId, id: file.id }, ['completed', 'error'], 15_000);
    expect(failed.processingStatus).toBe('error');
    expect(failed.errorMessage).toMatch(/^The PDF could not be read: /);
    expect(await passagesOf(file.id)).toEqual([]);
  });

  it('leaves the file in error when its embedding provider cannot be reached', async () => {
    const remote = await insertFolder(stack.db, {
      organizationId,
      embeddingConfig: { ...LOCAL_EMBEDDING_CONFIG, embedding_endpoint_type: 'nowhere', embedding_model: 'missing', handle: 'nowhere/missing' },
    });
    const file = await insertUploadedFile(stack.db, { organizationId, folder: remote, name: 'notes.txt', data: 'Some notes to embed.' });
    await ingestion.start({ organizationId, fileId: file.id });
    const failed = await waitForFileStatus(stack.db, { organizationId, id: file.id }, ['completed', 'error'], 15_000);
    expect(failed).toMatchObject({ processingStatus: 'error', totalChunks: 1, chunksEmbedded: 0 });
    expect(failed.errorMessage).toMatch(/^Embedding the file's chunks failed: No provider is configured for the embedding model 'nowhere\/missing'/);
  });

  it('stops quietly when the file is deleted before or while it is ingested', async () => {
    const file = await insertUploadedFile(stack.db, { organizationId, folder, name: 'gone.md', data: GUIDE });
    await SourceFile.query(stack.db).forOrg(organizationId).deleteById(file.id);
    await ingestion.start({ organizationId, fileId: file.id });
    expect(await stack.temporal.workflow.getHandle(fileIngestionWorkflowId(file.id)).result()).toEqual({ status: 'file_deleted' });
    expect(await passagesOf(file.id)).toEqual([]);

    const large = await insertUploadedFile(stack.db, { organizationId, folder, name: 'deleted-midway.md', data: GUIDE.repeat(60) });
    await ingestion.start({ organizationId, fileId: large.id });
    await waitForFileStatus(stack.db, { organizationId, id: large.id }, ['embedding']);
    await SourceFile.query(stack.db).forOrg(organizationId).deleteById(large.id);
    expect(await stack.temporal.workflow.getHandle(fileIngestionWorkflowId(large.id)).result()).toEqual({ status: 'file_deleted' });
    expect(await passagesOf(large.id)).toEqual([]);
  });
});

describe('a retried embedding batch', () => {
  it('writes no chunk twice when the activity fails after its batch was written', async () => {
    const taskQueue = `retry-${randomBytes(4).toString('hex')}`;
    const activities = createActivities({ db: stack.db, baseProviders: [], secrets: createSecretBox(randomBytes(32).toString('base64')), egress: loopbackEgress(), mcpStdio: sandboxedStdio(loopbackEgress()) });
    const calls: number[] = [];
    const connection = await NativeConnection.connect({ address: inject('temporalAddress') });
    const worker = await Worker.create({
      connection,
      namespace: 'default',
      taskQueue,
      workflowBundle: { codePath: inject('workflowBundlePath') },
      activities: {
        ...activities,
        // The first attempt of the first batch writes its chunks, then fails as if its worker lost the connection.
        async embedFileChunks(input: FileRef & ChunkBatch) {
          calls.push(input.index);
          const result = await activities.embedFileChunks(input);
          if (input.index === 0 && calls.filter((index) => index === 0).length === 1) throw new Error('connection lost after the write');
          return result;
        },
      },
    });
    const file = await insertUploadedFile(stack.db, { organizationId, folder, name: 'retried.md', data: GUIDE.repeat(30) });
    try {
      await worker.runUntil(async () => {
        await createFileIngestionClient({ client: stack.temporal, taskQueue }).start({ organizationId, fileId: file.id });
        await waitForFileStatus(stack.db, { organizationId, id: file.id }, ['completed', 'error']);
      });
    } finally {
      await connection.close();
    }
    const done = await SourceFile.query(stack.db).forOrg(organizationId).findById(file.id);
    expect(done).toMatchObject({ processingStatus: 'completed' });
    expect(calls.filter((index) => index === 0)).toHaveLength(2);
    expect(calls.length).toBeGreaterThan(2);
    const stored = await passagesOf(file.id);
    expect(stored).toHaveLength(done!.totalChunks!);
    expect(new Set(stored.map((passage) => passage.id)).size).toBe(done!.totalChunks);
    expect(done!.chunksEmbedded).toBe(done!.totalChunks);
  });
});
