import type { Knex } from 'knex';

/**
 * Client-side access tokens (spec 001 §3, §9): short-lived bearer tokens a browser app holds instead of
 * an API key. Each is bound to the origin it may be used from and to a policy naming agents and what
 * may be done with each. Only a hash of the token is stored.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('client_side_access_tokens', (t) => {
    t.text('id').primary();
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    /** The member who created it; the token acts with their role, and dies with their membership. */
    t.text('user_id').notNullable();
    t.text('token_hash').notNullable().unique();
    /** The URL of the app as given (spec: a full http or https URL). */
    t.text('hostname').notNullable();
    /** The hostname's origin (`scheme://host[:port]`), the only `Origin` the token is accepted from. */
    t.text('origin').notNullable();
    /** `[{id, type: 'agent', access: [...]}]`, the policy's data as the client sent it. */
    t.jsonb('policy').notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamps(true, true);
    t.foreign(['organization_id', 'user_id'], 'client_side_access_tokens_membership_fk')
      .references(['organization_id', 'user_id'])
      .inTable('organization_members')
      .onDelete('CASCADE');
    t.index(['organization_id', 'created_at']);
    // CORS preflights ask "does any live token name this origin?" before any credential is sent.
    t.index(['origin', 'expires_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('client_side_access_tokens');
}
