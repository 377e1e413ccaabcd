import type { Knex } from 'knex';

/**
 * Rate-limit counters shared by every API process: one fixed window per key (`login:email:<address>`, …),
 * counted in one statement so concurrent attempts from any process add up to a single budget.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('rate_limit_windows', (t) => {
    t.text('key').primary();
    /** Milliseconds since the epoch, by the database's clock, which every process shares. */
    t.bigInteger('window_started_ms').notNullable();
    t.bigInteger('window_ms').notNullable();
    t.integer('count').notNullable();
    t.index(['window_started_ms']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('rate_limit_windows');
}
