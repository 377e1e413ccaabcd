import type { Knex } from 'knex';

/**
 * Card payments through Stripe (spec 000 §3 "Payment card", "Billing history entry", "Auto top-up"). Engram's tables
 * are the record of what was bought: Stripe is asked to charge, never to remember.
 *
 * - `payment_cards`: the cards an organization saved (a Stripe PaymentMethod each), listed without asking Stripe.
 * - `payments.status`: a charge is recorded `pending` before it is sent and becomes `succeeded`, with its ledger
 *   addition, in one transaction once the money is taken; a retry after a crash finds the pending row and sends the
 *   same idempotency key again, so one purchase is one charge.
 * - `billing_accounts.auto_top_up_failure`: why auto top-up turned itself off (a declined card), for the console.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('payment_cards', (t) => {
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    /** The Stripe PaymentMethod id (`pm_…`). */
    t.text('id').notNullable();
    t.text('brand').notNullable();
    t.text('last4').notNullable();
    t.integer('exp_month').notNullable();
    t.integer('exp_year').notNullable();
    t.text('name');
    t.jsonb('billing_address').notNullable().defaultTo('{}');
    t.timestamps(true, true);
    t.primary(['organization_id', 'id']);
  });

  await knex.schema.alterTable('payments', (t) => {
    t.text('status').notNullable().defaultTo('succeeded').checkIn(['pending', 'succeeded'], 'payments_status_check');
    t.text('payment_method_id');
    t.text('stripe_invoice_id');
  });

  await knex.schema.alterTable('billing_accounts', (t) => {
    t.text('auto_top_up_failure');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('billing_accounts', (t) => {
    t.dropColumn('auto_top_up_failure');
  });
  await knex.schema.alterTable('payments', (t) => {
    t.dropChecks(['payments_status_check']);
    t.dropColumn('status');
    t.dropColumn('payment_method_id');
    t.dropColumn('stripe_invoice_id');
  });
  await knex.schema.dropTable('payment_cards');
}
