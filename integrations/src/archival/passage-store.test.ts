import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Archive, Organization, PassageVector, createDatabase, createSecretBox, newId, type Database } from '@engram/db';
import { createEmbedder } from './embedder.js';
import { LOCAL_EMBEDDING_CONFIG } from './local-embedder.js';
import { createPassageStore, type PassageStore } from './passage-store.js';
import { loopbackEgress } from '@engram/testing/egress';

let db: Database;
let store: PassageStore;
let organizationId: string;
let archive: Archive;

const TEXTS = [
  'Grandma Rosa bakes lemon cake every Sunday.',
  'The lemon tree in the garden needs more water in summer.',
  'Rosa moved to Porto in 1998.',
  'Baking bread needs patience and a warm kitchen.',
  'The team ships the release on Thursday.',
];

beforeAll(async () => {
  db = createDatabase({ url: inject('databaseUrl'), pool: { max: 4 } });
  store = createPassageStore({ db, embedder: createEmbedder({ db, baseProviders: [], secrets: createSecretBox(randomBytes(32).toString('base64')), egress: loopbackEgress() }) });
  organizationId = newId('organization');
  await Organization.query(db).insert({ id: organizationId, name: 'passage store' });
  archive = await Archive.query(db)
    .insert({ id: Archive.newId(), organizationId, name: 'family', embeddingConfig: LOCAL_EMBEDDING_CONFIG, vectorDbProvider: 'native', metadata: {} })
    .returning('*');
  const prepared = await store.prepare({
    organizationId,
    archive,
    passages: TEXTS.map((text, index) => ({ text, tags: index < 3 ? ['family', index === 0 ? 'food' : 'place'] : ['other'], createdAt: new Date(Date.UTC(2024, index, 1)) })),
  });
  await db.transaction((trx) => store.write(trx, prepared));
});

afterAll(async () => {
  await db?.destroy();
});

const search = (query: string, options: Partial<Parameters<PassageStore['search']>[0]> = {}) =>
  store.search({ organizationId, archives: [archive], query, mode: 'hybrid', limit: 5, ...options });

describe('the passage store', () => {
  it('writes passages with their embeddings and signatures, and a repeated id changes nothing', async () => {
    const prepared = await store.prepare({ organizationId, archive, passages: [{ id: `passage-${crypto.randomUUID()}`, text: 'once only' }] });
    const [first] = await db.transaction((trx) => store.write(trx, prepared));
    const [again] = await db.transaction((trx) => store.write(trx, prepared));
    expect(again).toEqual(first);
    expect(first?.embedding).toHaveLength(256 * 4);
    expect(await PassageVector.query(db).where({ passageId: first!.id }).resultSize()).toBe(1);
  });

  it('writes inside a transaction that holds every connection of the pool', async () => {
    // A write asks nothing of the pool: with as many writes at once as connections, one that did would wait forever.
    const oneConnection = createDatabase({ url: inject('databaseUrl'), pool: { max: 1 } });
    try {
      const embedder = createEmbedder({ db: oneConnection, baseProviders: [], secrets: createSecretBox(randomBytes(32).toString('base64')), egress: loopbackEgress() });
      const freshStore = createPassageStore({ db: oneConnection, embedder });
      const prepared = await freshStore.prepare({ organizationId, archive, passages: [{ text: 'written on the only connection' }] });
      const [stored] = await oneConnection.transaction((trx) => freshStore.write(trx, prepared));
      expect(stored?.text).toBe('written on the only connection');
    } finally {
      await oneConnection.destroy();
    }
  });

  it('ranks by words in fts mode, by meaning in vector mode, and fuses both in hybrid mode', async () => {
    const fts = await search('lemon cake', { mode: 'fts' });
    expect(fts.map((item) => item.passage.text)).toEqual([TEXTS[0], TEXTS[1]]);
    expect(fts.map((item) => [item.ftsRank, item.vectorRank])).toEqual([[1, null], [2, null]]);

    const vector = await search('baking cakes', { mode: 'vector' });
    expect(vector[0]?.passage.text).toBe(TEXTS[0]);
    expect(vector.map((item) => item.vectorRank)).toEqual(vector.map((_, index) => index + 1));
    expect(vector.every((item) => item.ftsRank === null && item.similarity !== null)).toBe(true);
    const similarities = vector.map((item) => item.similarity!);
    expect(similarities).toEqual([...similarities].sort((a, b) => b - a));

    const hybrid = await search('Rosa lemon cake');
    expect(hybrid[0]).toMatchObject({ ftsRank: 1, vectorRank: 1, passage: { text: TEXTS[0] } });
    const scores = hybrid.map((item) => item.rrfScore);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });

  it('filters both arms by tags (any or all) and by date', async () => {
    const any = await search('Rosa', { tags: ['food', 'place'], tagMatchMode: 'any' });
    expect(any.every((item) => item.passage.tags.includes('family'))).toBe(true);
    expect(any.map((item) => item.passage.text).sort()).toEqual([TEXTS[0], TEXTS[1], TEXTS[2]].sort());
    const all = await search('Rosa', { tags: ['family', 'food'], tagMatchMode: 'all' });
    expect(all.map((item) => item.passage.text)).toEqual([TEXTS[0]]);
    const spring = await search('lemon Rosa', { start: new Date(Date.UTC(2024, 1, 1)), end: new Date(Date.UTC(2024, 2, 15)) });
    expect(spring.map((item) => item.passage.text).sort()).toEqual([TEXTS[1], TEXTS[2]].sort());
  });

  it('lists the newest passages that pass a filter, and finds nothing without archives', async () => {
    const newest = await store.newest({ organizationId, archives: [archive], limit: 2, tags: ['family'] });
    expect(newest.map((passage) => passage.text)).toEqual([TEXTS[2], TEXTS[1]]);
    expect(await store.search({ organizationId, archives: [], query: 'Rosa', mode: 'hybrid', limit: 5 })).toEqual([]);
  });
});
