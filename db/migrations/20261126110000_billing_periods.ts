import type { Knex } from 'knex';

/**
 * Billing periods run by a Temporal schedule (`billingPeriodWorkflow`): monthly grants, credit expiry and the end of
 * cancelled plans, for every organization due, instead of on the first read of its billing info.
 *
 * - `billing_accounts.cancel_at`: when a plan cancelled at the period end stops (the tier goes back to free then).
 * - `transactions.expiry_settled_at`: a granted addition whose expiry was dealt with (its rest taken back, or nothing
 *   left to take), so each lapsed grant is looked at once; the partial index finds the ones still due.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('billing_accounts', (t) => {
    t.timestamp('cancel_at', { useTz: true });
  });
  await knex.schema.alterTable('transactions', (t) => {
    t.timestamp('expiry_settled_at', { useTz: true });
  });
  await knex.raw(`create index transactions_expiry_due on transactions (expires_at) where expires_at is not null and expiry_settled_at is null`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index transactions_expiry_due');
  await knex.schema.alterTable('transactions', (t) => {
    t.dropColumn('expiry_settled_at');
  });
  await knex.schema.alterTable('billing_accounts', (t) => {
    t.dropColumn('cancel_at');
  });
}
