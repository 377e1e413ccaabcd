import type { Knex } from 'knex';

/**
 * Archival memory: archives (shared collections of passages), which agents use them, the passages
 * themselves, and the narrow `passage_vectors` table that vector search scans. Also a full-text index
 * over the text of stored messages, for `POST /v1/agents/messages/search`.
 *
 * Vector search works on stock PostgreSQL: each embedding is reduced to a 1024-bit random-hyperplane
 * signature (SimHash; `integrations/src/archival/signature.ts`), whose Hamming distance estimates the angle
 * between two embeddings. A search scans the signatures of one archive with `bit_count(signature # query)`,
 * keeps the nearest few hundred, and re-ranks those exactly by cosine over the full embeddings. The
 * signatures live apart from `passages` so that scan reads ~200 bytes a row instead of the text, the
 * tsvector and the full embedding.
 *
 * When the server has pgvector, the migration also adds `passage_vectors.embedding_vector` with HNSW
 * indexes for the common dimensions, and the passage store orders by `<=>` over it instead of scanning
 * signatures (`integrations/src/archival/passage-store.ts` checks for the column).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('archives', (t) => {
    t.text('id').primary();
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('description');
    /** What passages of this archive are embedded with; a search embeds its query the same way. */
    t.jsonb('embedding_config').notNullable();
    t.text('vector_db_provider').notNullable().defaultTo('native');
    t.jsonb('metadata').notNullable().defaultTo('{}');
    t.text('created_by_id');
    t.text('last_updated_by_id');
    t.timestamps(true, true);
    t.index(['organization_id', 'created_at']);
  });

  await knex.schema.createTable('archives_agents', (t) => {
    t.text('archive_id').notNullable().references('archives.id').onDelete('CASCADE');
    t.text('agent_id').notNullable().references('agents.id').onDelete('CASCADE').index();
    t.text('organization_id').notNullable();
    /** The archive was created for this agent, on its first archival insert. */
    t.boolean('is_owner').notNullable().defaultTo(false);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['archive_id', 'agent_id']);
  });

  await knex.schema.createTable('passages', (t) => {
    t.text('id').primary();
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    /** Archival passages belong to an archive; folder passages (file chunks) to a source and a file instead. */
    t.text('archive_id').references('archives.id').onDelete('CASCADE');
    t.text('source_id');
    t.text('file_id');
    t.text('file_name');
    t.text('text').notNullable();
    t.specificType('tags', 'text[]').notNullable().defaultTo('{}');
    t.jsonb('metadata').notNullable().defaultTo('{}');
    /** Little-endian float32, unit length: compact, and decoded in Node without parsing text arrays. */
    t.binary('embedding');
    t.jsonb('embedding_config');
    t.text('created_by_id');
    t.text('last_updated_by_id');
    t.timestamps(true, true);
    t.index(['archive_id', 'created_at', 'id']);
    t.index(['source_id', 'created_at', 'id']);
    t.index(['organization_id', 'created_at']);
  });
  await knex.raw(`alter table passages add column fts tsvector generated always as (to_tsvector('english', text)) stored`);
  await knex.raw('create index passages_fts_gin on passages using gin (fts)');
  await knex.raw('create index passages_tags_gin on passages using gin (tags)');

  await knex.schema.createTable('passage_vectors', (t) => {
    t.text('passage_id').primary().references('passages.id').onDelete('CASCADE');
    t.text('organization_id').notNullable();
    t.text('archive_id').references('archives.id').onDelete('CASCADE');
    t.text('source_id');
    t.integer('embedding_dim').notNullable();
    /** Copied from the passage so date-bounded searches filter without touching `passages`. */
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.specificType('signature', 'bit(1024)').notNullable();
    t.index(['archive_id']);
    t.index(['source_id']);
  });

  const pgvector = await knex.raw(`select 1 from pg_available_extensions where name = 'vector'`);
  if (pgvector.rows.length > 0) {
    await knex.raw('create extension if not exists vector');
    await knex.raw('alter table passage_vectors add column embedding_vector vector');
    // HNSW needs a fixed dimension, so one partial index per common embedding size (pgvector's documented
    // pattern for mixed dimensions): the local embedder's 256 and OpenAI's 1536.
    for (const dim of [256, 1536]) {
      await knex.raw(
        `create index passage_vectors_hnsw_${dim} on passage_vectors using hnsw ((embedding_vector::vector(${dim})) vector_cosine_ops) where embedding_dim = ${dim}`,
      );
    }
  }

  // The same expression as in the message search query, so PostgreSQL uses this index for it (`\\?` is knex's
  // escape for the jsonpath filter's literal `?`).
  await knex.raw(
    `create index messages_text_fts_gin on messages using gin (to_tsvector('english', jsonb_path_query_array(content, '$[*] \\? (@.type == "text").text')))`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists messages_text_fts_gin');
  for (const table of ['passage_vectors', 'passages', 'archives_agents', 'archives']) {
    await knex.schema.dropTableIfExists(table);
  }
}
