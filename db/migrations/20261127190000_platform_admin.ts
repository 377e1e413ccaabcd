import type { Knex } from 'knex';

/**
 * The platform admin area (spec 000 §3, §4): bans of organizations, the registry of inference and
 * embedding models (disable, step costs, default rate limits), per-organization rate-limit overrides
 * and the requests counted against them, content violations, whitelisted emails and SSO configurations.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('organizations', (t) => {
    /** Set while banned: every credential of the organization is refused. */
    t.timestamp('banned_at', { useTz: true }).nullable();
    t.timestamp('enabled_cloud_at', { useTz: true }).nullable();
  });

  for (const table of ['inference_models', 'embedding_models']) {
    await knex.schema.createTable(table, (t) => {
      t.text('id').primary();
      /** The handle agents name the model by (`openai/gpt-4o-mini`). */
      t.text('name').notNullable().unique();
      t.text('brand').notNullable();
      t.text('model_endpoint').notNullable();
      t.jsonb('config').notNullable().defaultTo('{}');
      t.integer('default_requests_per_minute_per_organization').notNullable();
      t.integer('default_tokens_per_minute_per_organization').notNullable();
      t.integer('default_context_window').nullable();
      t.boolean('is_recommended').notNullable().defaultTo(false);
      t.text('tier').notNullable().defaultTo('free');
      t.text('tag').nullable();
      /** A disabled model is refused for new runs. */
      t.timestamp('disabled_at', { useTz: true }).nullable();
      t.timestamps(true, true);
    });
  }
  await knex.schema.alterTable('inference_models', (t) => {
    /** Version 1: `[{maxContextWindowSize, cost}]`, ascending. */
    t.jsonb('step_costs').notNullable().defaultTo('[]');
  });

  await knex.schema.createTable('organization_model_rate_limits', (t) => {
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.text('model').notNullable();
    t.integer('requests_per_minute').notNullable();
    t.integer('tokens_per_minute').notNullable();
    t.timestamps(true, true);
    t.primary(['organization_id', 'model']);
  });

  // One row per admitted model request in the last minute; every API process counts here, so they share one budget.
  await knex.schema.createTable('model_requests', (t) => {
    t.bigIncrements('id');
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.text('model').notNullable();
    t.timestamp('requested_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['organization_id', 'model', 'requested_at']);
  });

  await knex.schema.createTable('content_violations', (t) => {
    t.text('id').primary();
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.specificType('reasons', 'text[]').notNullable();
    t.text('content').notNullable();
    t.timestamp('flagged_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamps(true, true);
    t.index(['flagged_at']);
  });

  await knex.schema.createTable('whitelisted_emails', (t) => {
    t.text('id').primary();
    t.text('email').notNullable().unique();
    t.timestamps(true, true);
  });

  await knex.schema.createTable('sso_configurations', (t) => {
    t.text('id').primary();
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.text('domain').notNullable().unique();
    t.text('workos_organization_id').notNullable();
    t.timestamps(true, true);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['sso_configurations', 'whitelisted_emails', 'content_violations', 'model_requests', 'organization_model_rate_limits', 'embedding_models', 'inference_models']) {
    await knex.schema.dropTable(table);
  }
  await knex.schema.alterTable('organizations', (t) => {
    t.dropColumn('banned_at');
    t.dropColumn('enabled_cloud_at');
  });
}
