import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Archive, Organization, Passage, PassageVector, createDatabase, createSecretBox, newId, type Database, type Source, type SourceFile } from '@engram/db';
import { insertFolder, insertUploadedFile } from '@engram/testing/fixtures/uploaded-file';
import { chunkPassageId } from '../files/chunker.js';
import { createEmbedder } from './embedder.js';
import { LOCAL_EMBEDDING_CONFIG } from './local-embedder.js';
import { createPassageStore, type PassageStore } from './passage-store.js';
import { loopbackEgress } from '@engram/testing/egress';

let db: Database;
let store: PassageStore;
let organizationId: string;
let folder: Source;
let recipes: SourceFile;
let travel: SourceFile;
let archive: Archive;

const RECIPES = ['Lemon cake needs three lemons and a cup of sugar.', 'Bake the bread for forty minutes in a hot oven.'];
const TRAVEL = ['The train to Porto leaves at nine and stops in Coimbra.', 'Lemon trees line the road to the coast.'];

async function writeChunks(file: SourceFile, texts: string[]): Promise<void> {
  const prepared = await store.prepareFileChunks({
    organizationId,
    file: { sourceId: folder.id, fileId: file.id, fileName: file.fileName },
    embeddingConfig: folder.embeddingConfig,
    chunks: texts.map((text, index) => ({ id: chunkPassageId(file.id, index), text, metadata: { chunk_index: index }, createdAt: new Date(Date.UTC(2025, 0, 1, 0, 0, index)) })),
  });
  await db.transaction((trx) => store.writeFileChunks(trx, prepared));
}

beforeAll(async () => {
  db = createDatabase({ url: inject('databaseUrl'), pool: { max: 4 } });
  store = createPassageStore({ db, embedder: createEmbedder({ db, baseProviders: [], secrets: createSecretBox(randomBytes(32).toString('base64')), egress: loopbackEgress() }) });
  organizationId = newId('organization');
  await Organization.query(db).insert({ id: organizationId, name: 'source search' });
  folder = await insertFolder(db, { organizationId, name: 'kitchen' });
  recipes = await insertUploadedFile(db, { organizationId, folder, name: 'recipes.txt', data: RECIPES.join('\n') });
  travel = await insertUploadedFile(db, { organizationId, folder, name: 'travel.txt', data: TRAVEL.join('\n') });
  await writeChunks(recipes, RECIPES);
  await writeChunks(travel, TRAVEL);
  archive = await Archive.query(db)
    .insert({ id: Archive.newId(), organizationId, name: 'memories', embeddingConfig: LOCAL_EMBEDDING_CONFIG, vectorDbProvider: 'native', metadata: {} })
    .returning('*');
  const prepared = await store.prepare({ organizationId, archive, passages: [{ text: 'Grandma always baked lemon cake on Sundays.' }] });
  await db.transaction((trx) => store.write(trx, prepared));
});

afterAll(async () => {
  await db?.destroy();
});

const sources = () => [{ id: folder.id, embeddingConfig: folder.embeddingConfig }];

describe('file chunks in the passage store', () => {
  it('are passages of the folder and the file, with vector rows of the folder, written once however often a batch is retried', async () => {
    await writeChunks(recipes, RECIPES);
    const stored = await Passage.query(db).forOrg(organizationId).where({ fileId: recipes.id }).orderBy('createdAt');
    expect(stored.map((passage) => [passage.id, passage.text, passage.sourceId, passage.archiveId, passage.fileName])).toEqual(
      RECIPES.map((text, index) => [chunkPassageId(recipes.id, index), text, folder.id, null, 'kitchen/recipes.txt']),
    );
    const vectors = await PassageVector.query(db).whereIn('passageId', stored.map((passage) => passage.id));
    expect(vectors.map((vector) => [vector.sourceId, vector.archiveId])).toEqual(RECIPES.map(() => [folder.id, null]));
  });

  it('are found by searchSources in each mode, narrowed to files on request, and never by an archive search', async () => {
    for (const mode of ['hybrid', 'fts', 'vector'] as const) {
      const found = await store.searchSources({ organizationId, sources: sources(), query: 'lemon cake sugar', mode, limit: 4 });
      expect(found[0]?.passage.text).toBe(RECIPES[0]);
      expect(found.every((item) => item.passage.sourceId === folder.id)).toBe(true);
    }
    const onlyTravel = await store.searchSources({ organizationId, sources: sources(), fileIds: [travel.id], query: 'lemon', mode: 'hybrid', limit: 4 });
    expect(onlyTravel[0]?.passage.text).toBe(TRAVEL[1]);
    expect(onlyTravel.every((item) => item.passage.fileId === travel.id)).toBe(true);
    const fromArchive = await store.search({ organizationId, archives: [archive], query: 'lemon cake', mode: 'hybrid', limit: 10 });
    expect(fromArchive.map((item) => item.passage.text)).toEqual(['Grandma always baked lemon cake on Sundays.']);
  });

  it('are found with a similarity and fused ranks, as archival results are', async () => {
    const [best] = await store.searchSources({ organizationId, sources: sources(), query: 'train to Porto', mode: 'hybrid', limit: 1 });
    expect(best).toMatchObject({ ftsRank: 1, vectorRank: 1, passage: { text: TRAVEL[0], fileId: travel.id } });
    expect(best!.similarity).toBeGreaterThan(0);
    expect(await store.searchSources({ organizationId, sources: [], query: 'train', mode: 'hybrid', limit: 5 })).toEqual([]);
  });
});
