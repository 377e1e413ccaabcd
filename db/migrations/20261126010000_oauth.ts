import type { Knex } from 'knex';

/**
 * Engram as an OAuth 2.1 provider (spec 000 §3, §7): the apps platform admins register, the state of
 * the provider library (oidc-provider) itself, and each user's connections to apps.
 */
export async function up(knex: Knex): Promise<void> {
  // A platform's app, not an organization's: any user of any organization may connect it.
  await knex.schema.createTable('oauth_apps', (t) => {
    t.text('id').primary();
    t.text('name').notNullable();
    t.text('description').notNullable().defaultTo('');
    t.text('logo_url');
    t.text('client_id').notNullable().unique();
    /** Sealed with ENGRAM_SECRET_KEY: the provider compares it in clear. Null for public clients. */
    t.text('client_secret_enc');
    /** Public clients (SPAs, CLIs, devices) hold no secret and must use PKCE. */
    t.boolean('is_public_client').notNullable().defaultTo(false);
    /** `authorization_code`, `refresh_token`, `device_code`. */
    t.specificType('grant_types', 'text[]').notNullable();
    t.specificType('redirect_uris', 'text[]').notNullable().defaultTo('{}');
    /** A subset of the agent access scopes. */
    t.specificType('allowed_scopes', 'text[]').notNullable();
    t.timestamps(true, true);
  });

  /**
   * Everything oidc-provider persists (grants, codes, tokens, device codes, interactions, sessions),
   * one row per record. Ids are stored as SHA-256 hashes, since an opaque token's id is the token.
   */
  await knex.schema.createTable('oauth_provider_records', (t) => {
    t.text('model').notNullable();
    t.text('id_hash').notNullable();
    t.jsonb('payload').notNullable();
    t.text('grant_id');
    /** Device codes: the hash of the user code people type. */
    t.text('user_code_hash');
    /** Sessions: their fixed internal uid. */
    t.text('uid');
    t.timestamp('expires_at', { useTz: true });
    t.timestamp('consumed_at', { useTz: true });
    /** Device codes: when their device last polled and the interval it must keep (RFC 8628 slow_down). */
    t.timestamp('last_polled_at', { useTz: true });
    t.integer('poll_interval_seconds');
    t.primary(['model', 'id_hash']);
    t.index(['grant_id']);
    t.index(['user_code_hash']);
    t.index(['uid']);
    t.index(['expires_at']);
  });

  /**
   * A user's authorization of an app for one organization: one grant of the provider, whose tokens
   * rotate underneath it. Revoking it (or reusing a rotated refresh token) ends all of them.
   */
  await knex.schema.createTable('oauth_connections', (t) => {
    t.text('id').primary();
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.text('user_id').notNullable();
    t.text('client_id').notNullable().references('oauth_apps.client_id').onDelete('CASCADE').onUpdate('CASCADE');
    t.text('grant_id').notNullable().unique();
    t.specificType('scopes', 'text[]').notNullable();
    /** When the grant ends; refresh tokens rotate within it. */
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('last_used_at', { useTz: true });
    t.timestamp('revoked_at', { useTz: true });
    t.timestamps(true, true);
    // The connection acts with the user's membership, so it dies with that membership.
    t.foreign(['organization_id', 'user_id'], 'oauth_connections_membership_fk')
      .references(['organization_id', 'user_id'])
      .inTable('organization_members')
      .onDelete('CASCADE');
    t.index(['organization_id', 'user_id', 'client_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('oauth_connections');
  await knex.schema.dropTable('oauth_provider_records');
  await knex.schema.dropTable('oauth_apps');
}
