import type { Knex } from 'knex';

/**
 * Agent templates: a template's working state and its immutable numbered versions (each a snapshot), the
 * deployments that created agents from a version, block templates, and template migrations with one row per
 * agent recording how far that agent got (so a migration resumed after a worker died migrates nobody twice).
 * Agents remember the template, version, deployment and memory variables they came from.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('agent_templates', (t) => {
    t.text('id').primary();
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.text('project_id').notNullable().references('projects.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('description');
    t.jsonb('working_snapshot').notNullable();
    t.integer('latest_version').notNullable().defaultTo(0);
    t.text('simulated_agent_id');
    t.timestamps(true, true);
    t.unique(['organization_id', 'name']);
  });

  await knex.schema.createTable('agent_template_versions', (t) => {
    t.text('id').primary();
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.text('template_id').notNullable().references('agent_templates.id').onDelete('CASCADE');
    t.integer('version').notNullable();
    t.text('message');
    t.jsonb('snapshot').notNullable();
    t.timestamps(true, true);
    t.unique(['template_id', 'version']);
  });

  await knex.schema.createTable('template_deployments', (t) => {
    t.text('id').primary();
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.text('project_id').references('projects.id').onDelete('SET NULL');
    t.text('template_id').notNullable().references('agent_templates.id').onDelete('CASCADE');
    t.text('template_version_id').notNullable().references('agent_template_versions.id').onDelete('CASCADE');
    t.timestamps(true, true);
  });

  await knex.schema.createTable('block_templates', (t) => {
    t.text('id').primary();
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.text('project_id').references('projects.id').onDelete('SET NULL');
    t.text('label').notNullable();
    t.text('value').notNullable().defaultTo('');
    t.integer('limit').notNullable().defaultTo(1);
    t.text('description');
    t.boolean('read_only').notNullable().defaultTo(false);
    t.boolean('preserve_on_migration').notNullable().defaultTo(false);
    t.timestamps(true, true);
  });

  await knex.schema.createTable('template_migrations', (t) => {
    t.text('id').primary();
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.text('template_id').notNullable().references('agent_templates.id').onDelete('CASCADE');
    t.text('to_version_id').notNullable().references('agent_template_versions.id').onDelete('CASCADE');
    /** running, completed, aborted or failed. */
    t.text('status').notNullable();
    t.text('block_reconciliation_strategy').notNullable();
    t.boolean('preserve_core_memories').notNullable().defaultTo(false);
    t.boolean('abort_requested').notNullable().defaultTo(false);
    t.timestamp('started_at', { useTz: true }).notNullable();
    t.timestamp('completed_at', { useTz: true });
    t.timestamps(true, true);
    t.index(['organization_id', 'started_at']);
  });

  await knex.schema.createTable('template_migration_agents', (t) => {
    t.text('migration_id').notNullable().references('template_migrations.id').onDelete('CASCADE');
    t.text('agent_id').notNullable().references('agents.id').onDelete('CASCADE');
    t.text('organization_id').notNullable();
    /** pending, busy (mid-run when its turn came), migrated, failed, or untouched (the migration was aborted first). */
    t.text('status').notNullable();
    t.text('failure_reason');
    t.timestamp('migrated_at', { useTz: true });
    t.primary(['migration_id', 'agent_id']);
    t.index(['migration_id', 'status']);
  });

  await knex.schema.alterTable('agents', (t) => {
    t.text('template_id');
    t.text('base_template_id');
    t.text('template_version_id');
    t.text('deployment_id');
    t.jsonb('memory_variables');
    t.index(['organization_id', 'template_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('agents', (t) => {
    t.dropIndex(['organization_id', 'template_id']);
    t.dropColumns('template_id', 'base_template_id', 'template_version_id', 'deployment_id', 'memory_variables');
  });
  await knex.schema.dropTable('template_migration_agents');
  await knex.schema.dropTable('template_migrations');
  await knex.schema.dropTable('block_templates');
  await knex.schema.dropTable('template_deployments');
  await knex.schema.dropTable('agent_template_versions');
  await knex.schema.dropTable('agent_templates');
}
