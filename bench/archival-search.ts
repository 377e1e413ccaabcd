/**
 * Archival search at scale: hybrid search p50/p99 over 100k passages in one archive, embedded by the
 * built-in local embedder, on the PostgreSQL server Engram would use (no pgvector needed). Also reports
 * the full-text and vector arms alone, how often the passage a query was written from comes back in the
 * top 10, and the recall@10 of the signature-shortlist vector search against exact brute-force cosine.
 *
 *   node --import tsx bench/archival-search.ts [--passages 100000] [--queries 200] [--warmup 20]
 *
 * Standalone: it creates a throwaway database, and drops it when done. `runArchivalSearchBench` is the same
 * measurement over a database that is already migrated, for bench/run.ts.
 */
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import {
  Archive,
  Organization,
  createDatabase,
  createDatabaseIfMissing,
  createSecretBox,
  databaseUrlFor,
  dropDatabase,
  migrateToLatest,
  newId,
  resolvePostgresServer,
  type Database,
} from '@engram/db';
import { createEmbedder, LOCAL_EMBEDDING_CONFIG, createPassageStore, type PassageStore, type SearchMode, decodeEmbedding, dot } from '@engram/integrations/archival';
import { summarize, type Summary } from './stats.js';
import { loopbackEgress } from '@engram/testing/egress';

export type ArchivalSearchBenchOptions = { passages: number; queries: number; warmup: number; topK: number; log: (line: string) => void };

export type ArchivalSearchBenchResult = {
  passages: number;
  pgvector: boolean;
  ingestPassagesPerSecond: number;
  latencyMs: Record<SearchMode, Summary>;
  /** Share of queries whose source passage is in the hybrid top k. */
  hybridHitRate: number;
  /** Mean overlap of the vector arm's top k with exact brute-force cosine's top k. */
  vectorRecallAtK: number;
  /** The host's 1/5/15-minute load averages when the timed searches began and ended: latencies on a shared machine move with them. */
  loadAverage: { start: number[]; end: number[] };
};

/** Deterministic, so runs are comparable. */
function randomSource(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** 324 syllables; words of two or three of them, so trigrams are as varied as in real text. */
const SYLLABLES = 'bcdfghjklmnprstvwz'.split('').flatMap((consonant) => 'aeiouy'.split('').flatMap((vowel) => [consonant + vowel, `${consonant}${vowel}n`, `${consonant}${vowel}r`]));

/**
 * A synthetic corpus with topical structure: 500 topics of 60 words each and a general vocabulary of
 * 20,000 words drawn with a Zipf-like skew (a few very common words, a long tail); a passage of 15–40
 * words draws half of them from its topic.
 */
function corpus(count: number, random: () => number): string[] {
  const word = () => Array.from({ length: 2 + Math.floor(random() * 2) }, () => SYLLABLES[Math.floor(random() * SYLLABLES.length)]).join('');
  const general = Array.from({ length: 20_000 }, word);
  const topics = Array.from({ length: 500 }, () => Array.from({ length: 60 }, word));
  const pick = <T>(items: T[]) => items[Math.floor(random() * items.length)]!;
  const common = () => general[Math.min(general.length, Math.floor(Math.exp(random() * Math.log(general.length)))) - 1]!;
  return Array.from({ length: count }, () => {
    const topic = pick(topics);
    const length = 15 + Math.floor(random() * 26);
    return Array.from({ length }, () => (random() < 0.5 ? pick(topic) : common())).join(' ');
  });
}

/** A query written from a passage: a few of its words, plus one the passage does not have. */
function queryFrom(text: string, random: () => number, noise: string): string {
  const words = text.split(' ');
  const chosen = Array.from({ length: 4 + Math.floor(random() * 4) }, () => words[Math.floor(random() * words.length)]!);
  return [...chosen, noise].join(' ');
}

export async function runArchivalSearchBench(db: Database, options: ArchivalSearchBenchOptions): Promise<ArchivalSearchBenchResult> {
  const { log } = options;
  const embedder = createEmbedder({ db, baseProviders: [], secrets: createSecretBox(randomBytes(32).toString('base64')), egress: loopbackEgress() });
  const store: PassageStore = createPassageStore({ db, embedder });
  const organizationId = newId('organization');
  await Organization.query(db).insert({ id: organizationId, name: 'archival bench' });
  const archive = await Archive.query(db)
    .insert({ id: Archive.newId(), organizationId, name: 'bench', embeddingConfig: LOCAL_EMBEDDING_CONFIG, vectorDbProvider: 'native', metadata: {} })
    .returning('*');

  const random = randomSource(42);
  const texts = corpus(options.passages, random);
  log(`inserting ${options.passages} passages (local embedder)…`);
  const ingestStarted = performance.now();
  const BATCH = 1000;
  for (let start = 0; start < texts.length; start += BATCH) {
    const prepared = await store.prepare({
      organizationId,
      archive,
      passages: texts.slice(start, start + BATCH).map((text) => ({ text })),
    });
    await db.transaction((trx) => store.write(trx, prepared));
  }
  const ingestPassagesPerSecond = options.passages / ((performance.now() - ingestStarted) / 1000);
  // As autovacuum would leave a live table: visibility map set, statistics fresh.
  await db.raw('vacuum analyze passages');
  await db.raw('vacuum analyze passage_vectors');
  log(`inserted at ${ingestPassagesPerSecond.toFixed(0)} passages/s`);

  const sources = Array.from({ length: options.queries + options.warmup }, () => Math.floor(random() * texts.length));
  const queries = sources.map((index) => queryFrom(texts[index]!, random, texts[Math.floor(random() * texts.length)]!.split(' ')[0]!));
  const search = (query: string, mode: SearchMode) =>
    store.search({ organizationId, archives: [archive], query, mode, limit: options.topK });

  const latencyMs = {} as Record<SearchMode, Summary>;
  const loadAtStart = loadavg();
  let hits = 0;
  for (const mode of ['hybrid', 'fts', 'vector'] as const) {
    for (const query of queries.slice(0, options.warmup)) await search(query, mode);
    const samples: number[] = [];
    for (const [index, query] of queries.slice(options.warmup).entries()) {
      const started = performance.now();
      const results = await search(query, mode);
      samples.push(performance.now() - started);
      if (mode === 'hybrid' && results.some((result) => result.passage.text === texts[sources[options.warmup + index]!])) hits += 1;
    }
    latencyMs[mode] = summarize(samples);
    log(`${mode}: p50 ${latencyMs[mode].p50.toFixed(1)} ms, p99 ${latencyMs[mode].p99.toFixed(1)} ms`);
  }
  const loadAtEnd = loadavg();
  log(`load average: ${loadAtStart.map((value) => value.toFixed(2)).join(' ')} at start, ${loadAtEnd.map((value) => value.toFixed(2)).join(' ')} at end`);

  log('exact brute-force cosine for recall…');
  const stored: Array<{ id: string; embedding: Buffer }> = await db('passages').where('archive_id', archive.id).select('id', 'embedding');
  const vectors = stored.map((row) => ({ id: row.id, vector: decodeEmbedding(row.embedding) }));
  const recallQueries = queries.slice(options.warmup, options.warmup + 50);
  let overlap = 0;
  for (const query of recallQueries) {
    const [queryVector] = await embedder.embed({ organizationId, texts: [query], embeddingConfig: null });
    const exact = new Set(
      vectors
        .map((item) => ({ id: item.id, score: dot(queryVector!, item.vector) }))
        .sort((a, b) => b.score - a.score)
        .slice(0, options.topK)
        .map((item) => item.id),
    );
    const found = await search(query, 'vector');
    overlap += found.filter((result) => exact.has(result.id)).length / options.topK;
  }

  return {
    passages: options.passages,
    pgvector: await store.hasPgvector(),
    ingestPassagesPerSecond,
    latencyMs,
    hybridHitRate: hits / options.queries,
    vectorRecallAtK: overlap / recallQueries.length,
    loadAverage: { start: loadAtStart, end: loadAtEnd },
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      passages: { type: 'string', default: '100000' },
      queries: { type: 'string', default: '200' },
      warmup: { type: 'string', default: '20' },
    },
  });
  const log = (line: string) => console.log(line);
  const pgServer = await resolvePostgresServer({ databaseUrl: process.env.DATABASE_URL, dataDir: path.join(process.cwd(), '.data') });
  const databaseName = `engram_bench_archival_${randomBytes(4).toString('hex')}`;
  await createDatabaseIfMissing(pgServer.adminUrl, databaseName);
  const db = createDatabase({ url: databaseUrlFor(pgServer.adminUrl, databaseName), pool: { max: 4 } });
  try {
    await migrateToLatest(db);
    const result = await runArchivalSearchBench(db, {
      passages: Number(values.passages),
      queries: Number(values.queries),
      warmup: Number(values.warmup),
      topK: 10,
      log,
    });
    console.log(JSON.stringify(result, null, 2));
  } finally {
    await db.destroy();
    await dropDatabase(pgServer.adminUrl, databaseName);
    await pgServer.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
