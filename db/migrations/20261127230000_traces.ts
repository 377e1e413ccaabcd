import type { Knex } from 'knex';

/**
 * Engram's own span store. `traces` holds one summary row per trace, the row every read is scoped by: spans
 * come from several processes (the API, the worker, the workflow sandbox) and only some carry the
 * organization's id, so a trace's organization is known once any of its spans names it.
 * The summary columns are maintained by the exporter as batches arrive, so listing and filtering traces
 * never reads spans.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('traces', (t) => {
    t.text('trace_id').primary();
    t.text('organization_id').references('organizations.id').onDelete('CASCADE');
    t.text('project_id');
    t.text('agent_id');
    t.text('run_id');
    t.text('template_family');
    t.text('root_span_name');
    t.timestamp('started_at', { useTz: true }).notNullable();
    t.timestamp('ended_at', { useTz: true }).notNullable();
    t.bigInteger('duration_ms').notNullable().defaultTo(0);
    t.integer('span_count').notNullable().defaultTo(0);
    t.integer('agent_steps').notNullable().defaultTo(0);
    t.boolean('has_tool_error').notNullable().defaultTo(false);
    t.boolean('has_api_error').notNullable().defaultTo(false);
    t.specificType('function_names', 'text[]').notNullable().defaultTo('{}');
    t.index(['organization_id', 'started_at']);
    t.index(['organization_id', 'run_id']);
  });

  await knex.schema.createTable('trace_spans', (t) => {
    t.text('trace_id').notNullable().references('traces.trace_id').onDelete('CASCADE');
    t.text('span_id').notNullable();
    t.text('parent_span_id');
    /** Null on spans that name no organization (Temporal's own spans); reads go through `traces`. */
    t.text('organization_id');
    t.text('name').notNullable();
    t.text('kind').notNullable();
    t.text('service_name').notNullable();
    t.timestamp('started_at', { useTz: true }).notNullable();
    t.bigInteger('start_unix_nano').notNullable();
    t.bigInteger('duration_ns').notNullable();
    t.text('status_code').notNullable();
    t.text('status_message');
    t.jsonb('attributes').notNullable().defaultTo('{}');
    t.jsonb('events').notNullable().defaultTo('[]');
    t.text('run_id');
    t.text('step_id');
    t.primary(['trace_id', 'span_id']);
    t.index(['step_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('trace_spans');
  await knex.schema.dropTable('traces');
}
