import type { Knex } from 'knex';

/**
 * Datasets of messages to send an agent (each optionally with the answer expected of it), and runs of a dataset
 * against a template version: one result row per item and run, keyed by both, so a run resumed after its worker
 * died records each item once.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('datasets', (t) => {
    t.text('id').primary();
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.text('project_id').notNullable().references('projects.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('description');
    t.timestamps(true, true);
    t.unique(['project_id', 'name']);
    t.index(['organization_id', 'created_at']);
  });

  await knex.schema.createTable('dataset_items', (t) => {
    t.text('id').primary();
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.text('dataset_id').notNullable().references('datasets.id').onDelete('CASCADE');
    /** The message sent: `{role, content}` as /v1 message creation takes it. */
    t.jsonb('create_message').notNullable();
    t.text('expected_answer');
    /** exact, contains or llm; null when nothing is expected. */
    t.text('scorer');
    /** What the LLM grader is told to look for, besides the expected answer. */
    t.text('grader_note');
    t.timestamps(true, true);
    t.index(['dataset_id', 'created_at']);
  });

  await knex.schema.createTable('dataset_runs', (t) => {
    t.text('id').primary();
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.text('dataset_id').notNullable().references('datasets.id').onDelete('CASCADE');
    t.text('template_id').notNullable().references('agent_templates.id').onDelete('CASCADE');
    t.text('template_version_id').notNullable().references('agent_template_versions.id').onDelete('CASCADE');
    /** running, completed or failed. */
    t.text('status').notNullable();
    t.integer('concurrency').notNullable();
    t.integer('item_count').notNullable();
    t.timestamp('started_at', { useTz: true }).notNullable();
    t.timestamp('completed_at', { useTz: true });
    t.timestamps(true, true);
    t.index(['dataset_id', 'started_at']);
  });

  await knex.schema.createTable('dataset_run_results', (t) => {
    t.text('dataset_run_id').notNullable().references('dataset_runs.id').onDelete('CASCADE');
    t.text('item_id').notNullable();
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    /** The item's own hidden agent, made from the version for it alone. */
    t.text('agent_id');
    t.text('run_id');
    /** pending, running, grading, completed or failed. */
    t.text('status').notNullable();
    t.text('answer');
    t.integer('latency_ms');
    t.integer('steps');
    t.integer('prompt_tokens');
    t.integer('completion_tokens');
    t.integer('total_tokens');
    /** Credits charged for the item's steps. */
    t.bigInteger('cost');
    t.integer('tool_errors');
    /** 0 to 1; null when the item expects nothing. */
    t.double('score');
    t.text('score_reason');
    t.text('error');
    t.timestamp('completed_at', { useTz: true });
    t.timestamps(true, true);
    t.primary(['dataset_run_id', 'item_id']);
    t.index(['dataset_run_id', 'status']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('dataset_run_results');
  await knex.schema.dropTable('dataset_runs');
  await knex.schema.dropTable('dataset_items');
  await knex.schema.dropTable('datasets');
}
