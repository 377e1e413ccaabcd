import { Passage, PassageVector, type Database, type EmbeddingConfig } from '@engram/db';
import type { Knex } from 'knex';
import type { Embedder } from './embedder.js';
import { LOCAL_EMBEDDING_CONFIG } from './local-embedder.js';
import { fuseRankings, type FusedRank, type SearchMode } from './rank-fusion.js';
import { createSignatureHasher, SIGNATURE_BITS } from './signature.js';
import { decodeEmbeddingBase64, dot, encodeEmbedding } from './vectors.js';

/** An archive as the store needs it: where passages go, and how they (and queries against them) are embedded. */
export type ArchiveRef = { id: string; embeddingConfig: EmbeddingConfig | null };

export type NewPassage = {
  /** A caller-chosen id makes the insert idempotent: a retried write of the same id changes nothing. */
  id?: string;
  text: string;
  tags?: string[] | null;
  metadata?: Record<string, unknown> | null;
  createdAt?: Date | null;
  createdById?: string | null;
  /**
   * A unit vector the caller already has in the archive's embedding space (a migration keeping the source's
   * embeddings); the passage is embedded only without one.
   */
  vector?: Float32Array;
};

export type PassageFilter = {
  tags?: string[] | null;
  tagMatchMode?: 'any' | 'all';
  start?: Date | null;
  end?: Date | null;
};

export type PassageSearch = PassageFilter & {
  organizationId: string;
  archives: ArchiveRef[];
  query: string;
  mode: SearchMode;
  limit: number;
  signal?: AbortSignal;
};

export type RankedPassage = FusedRank & { passage: Passage; similarity: number | null };

/** A folder (source) as a search needs it: its id, and how its chunks (and queries against them) are embedded. */
export type SourceRef = { id: string; embeddingConfig: EmbeddingConfig | null };

export type SourceSearch = {
  organizationId: string;
  sources: SourceRef[];
  /** Only chunks of these files (of those sources), when given. */
  fileIds?: string[] | null;
  query: string;
  mode: SearchMode;
  limit: number;
  signal?: AbortSignal;
};

/** Where a file's chunks go: passages of the folder and the file, with no archive. */
export type FileTarget = { sourceId: string; fileId: string; fileName: string };

/** One chunk of a file, under the id derived from the file and its index, so a retried write changes nothing. */
export type FileChunkPassage = { id: string; text: string; metadata?: Record<string, unknown> | null; createdAt: Date };

/** A file's chunks ready to write: embedded, with their signatures. */
export type PreparedFileChunks = {
  organizationId: string;
  file: FileTarget;
  rows: PreparedPassages['rows'];
  /** Whether `passage_vectors` has pgvector's column, asked while preparing (see `PreparedPassages`). */
  pgvector: boolean;
};

/**
 * A search over one kind of collection: archives (archival memory) or sources (folders), optionally
 * narrowed to some files. Both kinds are passages, told apart by `collectionColumn`.
 */
type ScopedSearch = PassageFilter & {
  organizationId: string;
  collectionColumn: 'archive_id' | 'source_id';
  collections: ArchiveRef[];
  fileIds: string[] | null;
  query: string;
  mode: SearchMode;
  limit: number;
  signal?: AbortSignal;
};

/** Passages ready to write: embedded, with their signatures, so the write itself is quick and can join a transaction. */
export type PreparedPassages = {
  organizationId: string;
  archive: ArchiveRef;
  rows: Array<{ passage: Partial<Passage> & { id: string; createdAt: Date }; vector: Float32Array; signature: string }>;
  /**
   * Whether `passage_vectors` has pgvector's column, asked while preparing, on the pool: writing happens in the
   * caller's transaction, which holds a connection, and asking from there would take a second one (with as many
   * writes at once as the pool has connections, every one of them waits for a connection none will give back).
   */
  pgvector: boolean;
};

/** Every column but the generated `fts`, which no reader needs. */
export const PASSAGE_COLUMNS = [
  'id',
  'organization_id',
  'archive_id',
  'source_id',
  'file_id',
  'file_name',
  'text',
  'tags',
  'metadata',
  'embedding',
  'embedding_config',
  'created_by_id',
  'last_updated_by_id',
  'created_at',
  'updated_at',
].map((column) => `passages.${column}`);

/** The reference server's `archival_memory_token_limit`: one passage is one memory, not a document. */
export const ARCHIVAL_TOKEN_LIMIT = 8192;

/** Why a text cannot be one archival passage, or null. Tokens are estimated at four characters each. */
export function archivalTextProblem(text: string): string | null {
  const tokens = Math.ceil(text.length / 4);
  return tokens > ARCHIVAL_TOKEN_LIMIT
    ? `the text is about ${tokens} tokens long, over the archival memory limit of ${ARCHIVAL_TOKEN_LIMIT} tokens per passage`
    : null;
}

/**
 * How many signature-nearest passages are re-ranked exactly by cosine. A signature's Hamming distance is
 * an estimate, so it picks a generous shortlist and the exact re-rank orders it: at 100k passages a
 * shortlist of 400 keeps 86% of the exact top 10 (100: 64%, 200: 77%) for ~400 KB of embeddings read.
 */
const VECTOR_SHORTLIST = 400;

/**
 * A word in a larger share of passages than this, and in more passages than COMMON_WORD_PASSAGES, is too
 * common to select full-text candidates by. Below that many passages ranking them all is cheap, and in a
 * small table every word is "frequent".
 */
const COMMON_WORD_FREQUENCY = 0.01;
const COMMON_WORD_PASSAGES = 1000;

/** Each arm of a hybrid search ranks this many more than it returns, so fusion can promote what both arms agree on. */
const armDepth = (limit: number) => Math.min(Math.max(limit * 3, 50), 500);

export type PassageStoreDeps = { db: Database; embedder: Embedder };

/**
 * Archival passages: embedding and writing them, and hybrid search (PostgreSQL full-text search and
 * vector search, fused by reciprocal rank). Vector search scans 1024-bit signatures on stock PostgreSQL
 * (see `signature.ts` and the archival migration) or, when the server has pgvector, uses its HNSW index.
 */
export function createPassageStore(deps: PassageStoreDeps) {
  const { db, embedder } = deps;
  const hasher = createSignatureHasher();
  let pgvectorCheck: Promise<boolean> | undefined;

  /** Whether the migration found pgvector and added `passage_vectors.embedding_vector`; asked once. */
  function hasPgvector(): Promise<boolean> {
    pgvectorCheck ??= db
      .raw(`select 1 from information_schema.columns where table_name = 'passage_vectors' and column_name = 'embedding_vector'`)
      .then((result: { rows: unknown[] }) => result.rows.length > 0);
    return pgvectorCheck;
  }

  const vectorLiteral = (vector: Float32Array) => `[${Array.from(vector).join(',')}]`;
  const configOf = (archive: ArchiveRef) => archive.embeddingConfig ?? LOCAL_EMBEDDING_CONFIG;

  function applyFilter(query: Knex.QueryBuilder | ReturnType<typeof Passage.query>, filter: PassageFilter, table: 'passages' | 'passage_vectors'): void {
    if (filter.start) query.where(`${table}.created_at`, '>=', filter.start);
    if (filter.end) query.where(`${table}.created_at`, '<=', filter.end);
    if (filter.tags && filter.tags.length > 0) {
      const operator = filter.tagMatchMode === 'all' ? '@>' : '&&';
      if (table === 'passages') query.whereRaw(`passages.tags ${operator} ?::text[]`, [filter.tags]);
      else query.whereRaw(`exists (select 1 from passages where passages.id = passage_vectors.passage_id and passages.tags ${operator} ?::text[])`, [filter.tags]);
    }
  }

  /**
   * Full-text arm: passages containing any selective word of the query, by ts_rank. A word found in more
   * than 1% (and 1000) of the passages (PostgreSQL's own statistics of `passages.fts`) is left out unless
   * it is the query's rarest: ranking every passage that contains a common word reads most of the table (140 ms at
   * 100k passages, against a few ms), and such a word says little about relevance anyway. The chosen
   * lexemes are already stemmed, so they are quoted into a `simple` tsquery as they are.
   */
  async function rankByText(search: ScopedSearch, depth: number): Promise<string[]> {
    const query = db('passages')
      .with(
        'text_query',
        db.raw(
          `select to_tsquery('simple', string_agg(quoted, ' | ')) as q from (
             select distinct '''' || replace(replace(lexeme, '\\', '\\\\'), '''', '''''') || '''' as quoted
             from (
               select lexeme, frequency, rank() over (order by frequency) as rarity
               from (
                 select words.lexeme, coalesce(stats.frequencies[array_position(stats.lexemes, words.lexeme)], 0) as frequency
                 from unnest(tsvector_to_array(to_tsvector('english', ?))) as words(lexeme)
                 left join (
                   select most_common_elems::text::text[] as lexemes, most_common_elem_freqs as frequencies
                   from pg_stats where schemaname = current_schema() and tablename = 'passages' and attname = 'fts'
                 ) as stats on true
               ) as scored
             ) as ranked
             where frequency <= ? or frequency * (select reltuples from pg_class where oid = 'passages'::regclass) <= ? or rarity = 1
           ) as chosen`,
          [search.query, COMMON_WORD_FREQUENCY, COMMON_WORD_PASSAGES],
        ),
      )
      .select('passages.id')
      .crossJoin(db.raw('text_query'))
      .where('passages.organization_id', search.organizationId)
      .whereIn(`passages.${search.collectionColumn}`, search.collections.map((collection) => collection.id))
      .whereRaw('passages.fts @@ text_query.q')
      .orderByRaw('ts_rank(passages.fts, text_query.q) desc, passages.created_at desc, passages.id')
      .limit(depth);
    if (search.fileIds) query.whereIn('passages.file_id', search.fileIds);
    applyFilter(query, search, 'passages');
    return (await query).map((row: { id: string }) => row.id);
  }

  /**
   * Signature-nearest (or, with pgvector, HNSW-nearest) passages of the collections, with their full embeddings.
   * Without pgvector the signature scan is most of a vector search (at 100k passages, ~40 ms of server CPU
   * against ~5 for fetching the 400 embeddings): PostgreSQL's per-row executor work, not the 1024-bit XOR,
   * so neither shorter signatures nor a narrower table make it much cheaper; only scanning fewer rows would.
   */
  async function shortlist(search: ScopedSearch, collectionIds: string[], queryVector: Float32Array) {
    const dim = queryVector.length;
    const nearest = db('passage_vectors')
      .select('passage_vectors.passage_id')
      .where('passage_vectors.organization_id', search.organizationId)
      .whereIn(`passage_vectors.${search.collectionColumn}`, collectionIds)
      // The dimension is an integer from our own vector, written inline so the planner can match pgvector's partial indexes.
      .whereRaw(`passage_vectors.embedding_dim = ${dim}`)
      .limit(VECTOR_SHORTLIST);
    if (search.fileIds) {
      nearest.whereRaw('exists (select 1 from passages where passages.id = passage_vectors.passage_id and passages.file_id = any(?::text[]))', [search.fileIds]);
    }
    applyFilter(nearest, search, 'passage_vectors');
    // The embeddings come as base64 text: a third less to send and parse than bytea's hex for the ~400 KB of a shortlist.
    const withEmbeddings = (runner: Knex): Promise<Array<{ id: string; embedding: string }>> =>
      runner
        .with('nearest', nearest)
        .select('passages.id', db.raw(`encode(passages.embedding, 'base64') as embedding`))
        .from('nearest')
        .join('passages', 'passages.id', 'nearest.passage_id');
    if (!(await hasPgvector())) {
      nearest.orderByRaw(`bit_count(passage_vectors.signature # ?::bit(${SIGNATURE_BITS}))`, [hasher.signature(queryVector)]);
      return withEmbeddings(db);
    }
    nearest.orderByRaw(`passage_vectors.embedding_vector::vector(${dim}) <=> ?::vector(${dim})`, [vectorLiteral(queryVector)]);
    // An HNSW scan returns at most ef_search rows (40 by default): let it find the whole shortlist.
    return db.transaction(async (trx) => {
      await trx.raw(`set local hnsw.ef_search = ${VECTOR_SHORTLIST}`);
      return withEmbeddings(trx);
    });
  }

  /** Vector arm: the shortlist of each embedding space, re-ranked exactly by cosine similarity. */
  async function rankByVector(search: ScopedSearch, depth: number): Promise<Array<{ id: string; similarity: number }>> {
    const bySpace = new Map<string, { config: EmbeddingConfig; collectionIds: string[] }>();
    for (const collection of search.collections) {
      const config = configOf(collection);
      const key = `${config.embedding_endpoint_type}|${config.handle ?? config.embedding_model}|${config.embedding_dim}`;
      const space = bySpace.get(key) ?? { config, collectionIds: [] };
      space.collectionIds.push(collection.id);
      bySpace.set(key, space);
    }
    const scored: Array<{ id: string; similarity: number }> = [];
    for (const { config, collectionIds } of bySpace.values()) {
      const [queryVector] = await embedder.embed({
        organizationId: search.organizationId,
        texts: [search.query],
        embeddingConfig: config,
        signal: search.signal,
      });
      for (const row of await shortlist(search, collectionIds, queryVector!)) {
        scored.push({ id: row.id, similarity: dot(queryVector!, decodeEmbeddingBase64(row.embedding)) });
      }
    }
    return scored.sort((a, b) => b.similarity - a.similarity).slice(0, depth);
  }

  /** Both arms (or one, by mode), fused, with the passages loaded: the search behind archives and folders alike. */
  async function searchScope(search: ScopedSearch): Promise<RankedPassage[]> {
    if (search.collections.length === 0 || search.limit <= 0 || search.fileIds?.length === 0) return [];
    const depth = armDepth(search.limit);
    const [fts, vector] = await Promise.all([
      search.mode === 'vector' ? [] : rankByText(search, depth),
      search.mode === 'fts' ? [] : rankByVector(search, depth),
    ]);
    const similarity = new Map(vector.map((item) => [item.id, item.similarity]));
    const fused = fuseRankings(search.mode, { fts, vector: vector.map((item) => item.id) }).slice(0, search.limit);
    if (fused.length === 0) return [];
    const rows = await Passage.query(db)
      .forOrg(search.organizationId)
      .whereIn('passages.id', fused.map((item) => item.id))
      .select(PASSAGE_COLUMNS);
    const byId = new Map(rows.map((passage) => [passage.id, passage]));
    return fused.flatMap((item) => {
      const passage = byId.get(item.id);
      return passage ? [{ ...item, passage, similarity: similarity.get(item.id) ?? null }] : [];
    });
  }

  /** Embeds texts with their signatures; I/O with the embedding provider, so never inside a transaction. */
  async function embedRows(organizationId: string, config: EmbeddingConfig, texts: string[], signal?: AbortSignal) {
    const vectors = await embedder.embed({ organizationId, texts, embeddingConfig: config, signal });
    return vectors.map((vector) => ({ vector, embedding: encodeEmbedding(vector), signature: hasher.signature(vector) }));
  }

  /** Inserts passages and their vector rows; ids already present are left as they are. */
  async function insertRows(
    trx: Knex,
    { organizationId, rows, pgvector }: Pick<PreparedPassages, 'organizationId' | 'rows' | 'pgvector'>,
    owner: { archiveId: string | null; sourceId: string | null },
  ): Promise<void> {
    await Passage.query(trx)
      .insert(rows.map((row) => row.passage) as Passage[])
      .onConflict('id')
      .ignore();
    await PassageVector.query(trx)
      .insert(
        rows.map((row) => ({
          passageId: row.passage.id,
          organizationId,
          archiveId: owner.archiveId,
          sourceId: owner.sourceId,
          embeddingDim: row.vector.length,
          createdAt: row.passage.createdAt,
          signature: row.signature,
          ...(pgvector ? { embeddingVector: trx.raw('?::vector', [vectorLiteral(row.vector)]) } : {}),
        })) as unknown as PassageVector[],
      )
      .onConflict('passageId')
      .ignore();
  }

  return {
    hasPgvector,

    /** Embeds new passages for an archive (I/O with the embedding provider; keep it out of transactions). */
    async prepare(input: { organizationId: string; archive: ArchiveRef; passages: NewPassage[]; signal?: AbortSignal }): Promise<PreparedPassages> {
      const config = configOf(input.archive);
      const toEmbed = input.passages.filter((passage) => !passage.vector);
      const fresh = await embedRows(
        input.organizationId,
        config,
        toEmbed.map((passage) => passage.text),
        input.signal,
      );
      let next = 0;
      const embedded = input.passages.map((passage) =>
        passage.vector ? { vector: passage.vector, embedding: encodeEmbedding(passage.vector), signature: hasher.signature(passage.vector) } : fresh[next++]!,
      );
      const now = Date.now();
      const rows = input.passages.map((passage, index) => {
        const { vector, embedding, signature } = embedded[index]!;
        return {
          passage: {
            id: passage.id ?? Passage.newId(),
            organizationId: input.organizationId,
            archiveId: input.archive.id,
            text: passage.text,
            tags: [...new Set(passage.tags ?? [])],
            metadata: passage.metadata ?? {},
            embedding,
            embeddingConfig: config,
            createdById: passage.createdById ?? null,
            lastUpdatedById: passage.createdById ?? null,
            // One millisecond apart, so a batch lists in the order it was given.
            createdAt: passage.createdAt ?? new Date(now + index),
          },
          vector,
          signature,
        };
      });
      return { organizationId: input.organizationId, archive: input.archive, rows, pgvector: await hasPgvector() };
    },

    /** Writes prepared passages; ids already present are left as they are. Returns the stored rows, in input order. */
    async write(trx: Knex, prepared: PreparedPassages): Promise<Passage[]> {
      if (prepared.rows.length === 0) return [];
      await insertRows(trx, prepared, { archiveId: prepared.archive.id, sourceId: null });
      const ids = prepared.rows.map((row) => row.passage.id);
      const stored = await Passage.query(trx).forOrg(prepared.organizationId).whereIn('passages.id', ids).select(PASSAGE_COLUMNS);
      const byId = new Map(stored.map((passage) => [passage.id, passage]));
      return ids.flatMap((id) => byId.get(id) ?? []);
    },

    /** The newest passages of the archives that pass the filter: what a search without a query lists. */
    async newest(input: PassageFilter & { organizationId: string; archives: ArchiveRef[]; limit: number }): Promise<Passage[]> {
      const query = Passage.query(db)
        .forOrg(input.organizationId)
        .whereIn('passages.archive_id', input.archives.map((archive) => archive.id))
        .select(PASSAGE_COLUMNS)
        .orderBy([{ column: 'passages.created_at', order: 'desc' }, { column: 'passages.id', order: 'desc' }])
        .limit(input.limit);
      applyFilter(query, input, 'passages');
      return query;
    },

    /**
     * The passages of the archives that best match `query`, best first, at most `limit`. `fts` ranks by
     * PostgreSQL full-text search (any word of the query), `vector` by cosine similarity of embeddings,
     * `hybrid` fuses both by reciprocal rank (k = 60). Tags and the date range filter both arms.
     */
    async search(search: PassageSearch): Promise<RankedPassage[]> {
      return searchScope({ ...search, collectionColumn: 'archive_id', collections: search.archives, fileIds: null });
    },

    /** Embeds chunks of a file for its folder, with the folder's embedding config (keep it out of transactions). */
    async prepareFileChunks(input: {
      organizationId: string;
      file: FileTarget;
      embeddingConfig: EmbeddingConfig | null;
      chunks: FileChunkPassage[];
      signal?: AbortSignal;
    }): Promise<PreparedFileChunks> {
      const config = input.embeddingConfig ?? LOCAL_EMBEDDING_CONFIG;
      const embedded = await embedRows(
        input.organizationId,
        config,
        input.chunks.map((chunk) => chunk.text),
        input.signal,
      );
      const rows = input.chunks.map((chunk, index) => {
        const { vector, embedding, signature } = embedded[index]!;
        return {
          passage: {
            id: chunk.id,
            organizationId: input.organizationId,
            archiveId: null,
            sourceId: input.file.sourceId,
            fileId: input.file.fileId,
            fileName: input.file.fileName,
            text: chunk.text,
            tags: [],
            metadata: chunk.metadata ?? {},
            embedding,
            embeddingConfig: config,
            createdAt: chunk.createdAt,
          },
          vector,
          signature,
        };
      });
      return { organizationId: input.organizationId, file: input.file, rows, pgvector: await hasPgvector() };
    },

    /** Writes a file's prepared chunks; chunks already written (a retried batch) are left as they are. */
    async writeFileChunks(trx: Knex, prepared: PreparedFileChunks): Promise<void> {
      if (prepared.rows.length === 0) return;
      await insertRows(trx, prepared, { archiveId: null, sourceId: prepared.file.sourceId });
    },

    /**
     * The file chunks of the folders (optionally of some of their files only) that best match `query`,
     * best first: the same hybrid, fts and vector modes and fusion as the archival search.
     */
    async searchSources(search: SourceSearch): Promise<RankedPassage[]> {
      return searchScope({
        organizationId: search.organizationId,
        collectionColumn: 'source_id',
        collections: search.sources,
        fileIds: search.fileIds ?? null,
        query: search.query,
        mode: search.mode,
        limit: search.limit,
        signal: search.signal,
      });
    },
  };
}

export type PassageStore = ReturnType<typeof createPassageStore>;
