import type { Knex } from 'knex';

/**
 * Per-model rate limits count model calls, not sends: a send reserves its run's first call (`run_id`, no
 * `call_key` yet), that call claims the reservation, and every later call of the run (each attempt of each step,
 * `call_key` = `<step id>:<attempt>`) takes a row of its own. A call executed twice (a worker died after
 * counting it) finds its key and is not counted again.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('model_requests', (t) => {
    t.text('run_id').nullable();
    t.text('call_key').nullable().unique();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('model_requests', (t) => {
    t.dropColumn('call_key');
    t.dropColumn('run_id');
  });
}
