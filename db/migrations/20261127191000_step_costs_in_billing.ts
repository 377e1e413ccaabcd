import type { Knex } from 'knex';

/** Step costs live in billing's `model_step_costs`, which metering reads; the registry keeps no copy of its own. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('inference_models', (t) => {
    t.dropColumn('step_costs');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('inference_models', (t) => {
    t.jsonb('step_costs').notNullable().defaultTo('[]');
  });
}
