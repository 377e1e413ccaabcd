import type { Knex } from 'knex';

/**
 * Billing (spec 000 §3, §9): a credit ledger, the balance it maintains, what a step of each model costs,
 * payments made through Stripe, gift codes and referrals.
 *
 * `billing_accounts.credit_balance` is kept equal to the sum of the organization's ledger by every write
 * that adds a transaction (in the same statement or transaction), so the hot path never sums the ledger.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('billing_accounts', (t) => {
    t.text('organization_id').primary().references('organizations.id').onDelete('CASCADE');
    t.bigInteger('credit_balance').notNullable().defaultTo(0);
    t.boolean('is_cancelled').notNullable().defaultTo(false);
    t.text('stripe_customer_id').unique();
    t.text('stripe_subscription_id');
    t.text('default_payment_method_id');
    t.boolean('auto_top_up_enabled').notNullable().defaultTo(false);
    t.integer('auto_top_up_threshold');
    t.integer('auto_top_up_refill_amount');
    t.integer('auto_top_up_max_monthly_spend');
    t.text('referral_code').unique();
    t.timestamps(true, true);
  });
  await knex.raw(`insert into billing_accounts (organization_id) select id from organizations`);

  await knex.schema.createTable('transactions', (t) => {
    t.text('id').primary();
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.text('type').notNullable().checkIn(['addition', 'subtraction']);
    t.bigInteger('amount').notNullable().checkPositive();
    /** What the credits stand for in dollars when they were booked (credits × 0.001 for metered steps). */
    t.double('true_cost');
    t.text('note');
    /** inference, monthly_grant, purchase, auto_top_up, gift_code, referral, admin, credit_expiry */
    t.text('source').notNullable();
    /** A metered step is charged once: its id is unique here. */
    t.text('step_id').unique();
    t.text('model_tier');
    t.jsonb('metadata').notNullable().defaultTo('{}');
    /** What a non-step booking pays for (a grant's period, a payment, a redemption); booked at most once. */
    t.text('idempotency_key');
    /** Granted credits that lapse (a gift code's `creditExpiryTimeMs`). */
    t.timestamp('expires_at', { useTz: true });
    t.timestamps(true, true);
    t.unique(['organization_id', 'idempotency_key']);
    t.index(['organization_id', 'created_at']);
  });

  await knex.schema.createTable('model_step_costs', (t) => {
    /** A model handle (`openai/gpt-4o`), a bare model name, or `*` for every model without a row. */
    t.text('model').primary();
    t.text('model_tier').notNullable().checkIn(['free', 'premium', 'per-inference']);
    t.integer('version').notNullable().defaultTo(1);
    /** `[{maxContextWindowSize, cost}]`, ascending: the cost of a step is that of the first size ≥ its window. */
    t.jsonb('costs').notNullable();
    t.timestamps(true, true);
  });
  const free = JSON.stringify([
    { maxContextWindowSize: 16_384, cost: 1 },
    { maxContextWindowSize: 65_536, cost: 2 },
    { maxContextWindowSize: 200_000, cost: 4 },
    { maxContextWindowSize: 1_048_576, cost: 8 },
  ]);
  const premium = JSON.stringify([
    { maxContextWindowSize: 16_384, cost: 10 },
    { maxContextWindowSize: 65_536, cost: 20 },
    { maxContextWindowSize: 200_000, cost: 40 },
    { maxContextWindowSize: 1_048_576, cost: 80 },
  ]);
  const freeModels = ['*', 'gpt-4o-mini', 'gpt-4.1-mini', 'gpt-4.1-nano', 'gpt-5-mini', 'gpt-5-nano', 'claude-3-5-haiku-latest'];
  const premiumModels = ['gpt-4o', 'gpt-4.1', 'gpt-5', 'o3', 'o4-mini', 'claude-sonnet-4-5', 'claude-opus-4-1', 'gemini-2.5-pro'];
  await knex('model_step_costs').insert([
    ...freeModels.map((model) => ({ model, model_tier: 'free', costs: free })),
    ...premiumModels.map((model) => ({ model, model_tier: 'premium', costs: premium })),
  ]);

  await knex.schema.createTable('payments', (t) => {
    t.text('id').primary();
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    /** credit_purchase, subscription, auto_top_up */
    t.text('kind').notNullable();
    t.integer('amount_cents').notNullable();
    t.integer('credits').notNullable().defaultTo(0);
    t.text('description').notNullable();
    t.text('stripe_payment_intent_id');
    t.text('receipt_url');
    t.text('idempotency_key').notNullable();
    t.timestamps(true, true);
    t.unique(['organization_id', 'idempotency_key']);
    t.index(['organization_id', 'created_at']);
  });

  await knex.schema.createTable('gift_codes', (t) => {
    t.text('id').primary();
    t.text('code').notNullable().unique();
    t.text('name').notNullable();
    t.text('description').notNullable().defaultTo('');
    t.integer('redemption_amount').notNullable().checkPositive();
    t.integer('max_uses');
    t.integer('max_uses_per_organization').notNullable().defaultTo(1);
    /** Redemptions so far; raised by the conditional update that admits a redemption. */
    t.integer('uses').notNullable().defaultTo(0);
    t.timestamp('expires_at', { useTz: true });
    t.timestamp('disabled_at', { useTz: true });
    t.bigInteger('credit_expiry_time_ms');
    t.timestamps(true, true);
  });

  await knex.schema.createTable('gift_code_redemptions', (t) => {
    t.text('id').primary();
    t.text('gift_code_id').notNullable().references('gift_codes.id').onDelete('CASCADE');
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.integer('amount').notNullable();
    t.text('transaction_id').notNullable();
    t.timestamps(true, true);
    t.index(['gift_code_id', 'organization_id']);
  });

  await knex.schema.createTable('referral_configuration', (t) => {
    t.integer('id').primary().checkIn(['1']);
    t.integer('referrer_reward_amount').notNullable().defaultTo(0);
    t.integer('referred_reward_amount').notNullable().defaultTo(0);
    t.integer('max_referral_reward_per_org').notNullable().defaultTo(0);
    t.boolean('enabled').notNullable().defaultTo(false);
    t.timestamps(true, true);
  });
  await knex('referral_configuration').insert({ id: 1 });

  await knex.schema.createTable('referrals', (t) => {
    t.text('id').primary();
    t.text('referrer_organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    /** An organization is referred once. */
    t.text('referred_organization_id').notNullable().unique().references('organizations.id').onDelete('CASCADE');
    t.text('code').notNullable();
    t.integer('referrer_reward').notNullable().defaultTo(0);
    t.integer('referred_reward').notNullable().defaultTo(0);
    t.timestamps(true, true);
    t.index(['referrer_organization_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['referrals', 'referral_configuration', 'gift_code_redemptions', 'gift_codes', 'payments', 'model_step_costs', 'transactions', 'billing_accounts']) {
    await knex.schema.dropTable(table);
  }
}
