import type { Knex } from 'knex';

/**
 * The month's model requests per tier, kept beside the balance by the statement that meters each step, so admitting a
 * run against the tier's monthly allowance (premium and free inferences per month, spec 000 §9) reads one row instead
 * of counting the ledger. `usage_period` is the month (`YYYY-MM`, UTC) the counters are of; a step of a later month
 * starts them again. Backfilled from this month's ledger.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('billing_accounts', (t) => {
    t.text('usage_period');
    t.integer('free_inferences').notNullable().defaultTo(0);
    t.integer('premium_inferences').notNullable().defaultTo(0);
  });
  await knex.raw(`
    update billing_accounts b
       set usage_period = to_char(now() at time zone 'UTC', 'YYYY-MM'),
           free_inferences = counted.free,
           premium_inferences = counted.premium
      from (select organization_id,
                   count(*) filter (where model_tier = 'free')::int as free,
                   count(*) filter (where model_tier = 'premium')::int as premium
              from transactions
             where source = 'inference' and created_at >= date_trunc('month', now() at time zone 'UTC') at time zone 'UTC'
             group by organization_id) counted
     where counted.organization_id = b.organization_id`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('billing_accounts', (t) => {
    t.dropColumn('usage_period');
    t.dropColumn('free_inferences');
    t.dropColumn('premium_inferences');
  });
}
