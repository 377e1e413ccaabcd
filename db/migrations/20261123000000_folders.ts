import type { Knex } from 'knex';

/**
 * Folders of files (the wire calls them folders and, in the deprecated routes, sources; both use the
 * `source-` id prefix), the uploaded files and their ingestion state, which agents use which folders, and
 * each agent's view of each file (open or closed, and the window it shows).
 *
 * A file's chunks are rows of `passages` with `source_id` and `file_id` set (and no `archive_id`), so
 * folder search reuses the archival passage store. Chunk ids are derived from the file id and the chunk's
 * index, which makes a retried ingestion step write the same rows instead of duplicates.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('sources', (t) => {
    t.text('id').primary();
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('description');
    /** Shown to agents beside the folder in their prompt. */
    t.text('instructions');
    t.jsonb('metadata').notNullable().defaultTo('{}');
    t.jsonb('embedding_config').notNullable();
    t.text('vector_db_provider').notNullable().defaultTo('native');
    t.text('created_by_id');
    t.text('last_updated_by_id');
    t.timestamps(true, true);
    t.unique(['organization_id', 'name']);
    t.index(['organization_id', 'created_at']);
  });

  await knex.schema.createTable('files', (t) => {
    t.text('id').primary();
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.text('source_id').notNullable().references('sources.id').onDelete('CASCADE');
    /** `<folder name>/<file name>`: the path an agent passes to open_files. Unique within a folder. */
    t.text('file_name').notNullable();
    t.text('original_file_name').notNullable();
    t.text('file_path');
    /** The MIME type the upload was accepted as. */
    t.text('file_type').notNullable();
    t.bigInteger('file_size').notNullable();
    t.timestamp('file_creation_date', { useTz: true });
    t.timestamp('file_last_modified_date', { useTz: true });
    /** pending | parsing | embedding | completed | error */
    t.text('processing_status').notNullable().defaultTo('pending');
    t.text('error_message');
    t.integer('total_chunks');
    t.integer('chunks_embedded');
    /** The parsed text, once parsing is done. */
    t.text('content');
    t.timestamps(true, true);
    t.unique(['source_id', 'file_name']);
    t.index(['organization_id', 'created_at']);
    t.index(['source_id', 'created_at', 'id']);
  });

  /** The uploaded bytes, apart from `files` so listing files never reads them; kept so a retried parse can start over. */
  await knex.schema.createTable('file_uploads', (t) => {
    t.text('file_id').primary().references('files.id').onDelete('CASCADE');
    t.text('organization_id').notNullable();
    t.binary('data').notNullable();
  });

  await knex.schema.createTable('sources_agents', (t) => {
    t.text('source_id').notNullable().references('sources.id').onDelete('CASCADE');
    t.text('agent_id').notNullable().references('agents.id').onDelete('CASCADE').index();
    t.text('organization_id').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['source_id', 'agent_id']);
  });

  await knex.schema.createTable('files_agents', (t) => {
    t.text('id').primary();
    t.text('organization_id').notNullable();
    t.text('agent_id').notNullable().references('agents.id').onDelete('CASCADE');
    t.text('file_id').notNullable().references('files.id').onDelete('CASCADE');
    t.text('source_id').notNullable().references('sources.id').onDelete('CASCADE');
    t.text('file_name').notNullable();
    t.boolean('is_open').notNullable().defaultTo(false);
    /** What the agent's prompt shows of an open file: line-numbered, within the agent's view window. */
    t.text('visible_content');
    /** The 1-based line range `visible_content` shows; null when the whole file fits. */
    t.integer('start_line');
    t.integer('end_line');
    /** Least recently used open files are closed first when the agent opens more than it may keep open. */
    t.timestamp('last_accessed_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamps(true, true);
    t.unique(['agent_id', 'file_id']);
    t.index(['file_id']);
    t.index(['agent_id', 'is_open', 'last_accessed_at']);
  });

  await knex.schema.alterTable('passages', (t) => {
    t.foreign('source_id').references('sources.id').onDelete('CASCADE');
    t.foreign('file_id').references('files.id').onDelete('CASCADE');
    t.index(['file_id']);
  });
  await knex.schema.alterTable('passage_vectors', (t) => {
    t.foreign('source_id').references('sources.id').onDelete('CASCADE');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('passage_vectors', (t) => {
    t.dropForeign('source_id');
  });
  await knex.schema.alterTable('passages', (t) => {
    t.dropIndex(['file_id']);
    t.dropForeign('file_id');
    t.dropForeign('source_id');
  });
  for (const table of ['files_agents', 'sources_agents', 'file_uploads', 'files', 'sources']) {
    await knex.schema.dropTableIfExists(table);
  }
}
