import type { Knex } from 'knex';

/**
 * What platform admins set about how an organization pays (spec 000 §3): its pricing model (`prepay`: credits are
 * bought first and a run needs them; `cpm`: usage is metered and invoiced afterwards, so the balance may go below
 * zero) and its billing method (`stripe_managed`: cards through Stripe; `enterprise`: invoiced under a contract),
 * with when the method was last refreshed from the payment provider.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('billing_accounts', (t) => {
    t.text('pricing_model').notNullable().defaultTo('prepay').checkIn(['prepay', 'cpm'], 'billing_accounts_pricing_model_check');
    t.text('billing_method').notNullable().defaultTo('stripe_managed').checkIn(['stripe_managed', 'enterprise'], 'billing_accounts_billing_method_check');
    t.timestamp('billing_method_refreshed_at', { useTz: true }).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('billing_accounts', (t) => {
    t.dropChecks(['billing_accounts_pricing_model_check', 'billing_accounts_billing_method_check']);
    t.dropColumn('billing_method_refreshed_at');
    t.dropColumn('billing_method');
    t.dropColumn('pricing_model');
  });
}
