import type { Knex } from 'knex';

/**
 * Migrations of a whole organization from another server that speaks the Letta `/v1` API.
 *
 * `letta_imports`: one row per run (dry or real), with the source's key sealed (`_enc`, so a secret-key rotation
 * re-seals it), what the source holds (`plan`) and what could not move (`problems`); what did move is counted from the two tables below.
 * `letta_import_agents`: the per-agent work queue of a run, with the paging cursors that let a worker that died
 * mid-agent resume where the last committed page ended.
 * `letta_import_mappings`: source id → target id per organization and source, so a second run (or a retried
 * activity) finds what an earlier one created instead of creating it again.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('letta_imports', (t) => {
    t.text('id').primary();
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.text('project_id').notNullable();
    t.text('created_by_id');
    t.text('source_url').notNullable();
    t.text('api_key_enc').notNullable();
    t.boolean('dry_run').notNullable().defaultTo(false);
    /** running, completed or failed. */
    t.text('status').notNullable();
    /** planning, shared, agents, links, done. */
    t.text('phase').notNullable();
    t.jsonb('plan');
    t.jsonb('problems').notNullable().defaultTo('[]');
    t.text('error');
    t.timestamp('completed_at', { useTz: true });
    t.timestamps(true, true);
    t.index(['organization_id', 'created_at']);
  });

  await knex.schema.createTable('letta_import_agents', (t) => {
    t.text('import_id').notNullable().references('letta_imports.id').onDelete('CASCADE');
    t.text('source_agent_id').notNullable();
    t.text('organization_id').notNullable();
    t.text('name').notNullable();
    /** pending, done or failed. */
    t.text('status').notNullable();
    t.text('messages_cursor');
    t.integer('messages_done').notNullable().defaultTo(0);
    t.text('passages_cursor');
    t.integer('passages_done').notNullable().defaultTo(0);
    t.text('failure_reason');
    t.primary(['import_id', 'source_agent_id']);
    t.index(['import_id', 'status']);
  });

  await knex.schema.createTable('letta_import_mappings', (t) => {
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    /** The source server's normalized URL: ids are only unique within one source. */
    t.text('source_url').notNullable();
    /** agent, block, tool, identity, group, folder, file, mcp_server, conversation. */
    t.text('kind').notNullable();
    t.text('source_id').notNullable();
    t.text('target_id').notNullable();
    t.text('import_id').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['organization_id', 'source_url', 'kind', 'source_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('letta_import_mappings');
  await knex.schema.dropTable('letta_import_agents');
  await knex.schema.dropTable('letta_imports');
}
