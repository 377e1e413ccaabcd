import type { Knex } from 'knex';

/**
 * MCP tool servers an organization registered, and the OAuth authorization-code sessions that connect
 * OAuth-protected ones. Credentials (tokens, header values, environment, OAuth secrets) are stored
 * sealed with the server's SecretBox; the clear values never reach the database.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('mcp_servers', (t) => {
    t.text('id').primary();
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.text('server_name').notNullable();
    /** `stdio`, `sse` or `streamable_http`. */
    t.text('server_type').notNullable();
    t.text('server_url');
    t.text('command');
    t.jsonb('args').notNullable().defaultTo('[]');
    /** Sealed JSON object: the stdio process environment. */
    t.text('env_enc');
    t.text('auth_header');
    t.text('auth_token_enc');
    /** Sealed JSON object: extra HTTP headers (often API keys). */
    t.text('custom_headers_enc');
    /** Sealed JSON: the tokens and the client registration of a completed OAuth flow. */
    t.text('oauth_tokens_enc');
    t.text('oauth_client_information_enc');
    /** The last connection check (listing, resync, test run): when, and what failed, if anything. */
    t.timestamp('last_checked_at', { useTz: true });
    t.text('last_check_error');
    t.text('created_by_id');
    t.text('last_updated_by_id');
    t.timestamps(true, true);
    t.unique(['organization_id', 'server_name']);
  });

  await knex.schema.createTable('mcp_oauth_sessions', (t) => {
    t.text('id').primary();
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.text('user_id');
    /** Null while the server is only being tried out (`POST /tools/mcp/servers/connect` before it is added). */
    t.text('mcp_server_id').references('mcp_servers.id').onDelete('CASCADE');
    t.text('server_name').notNullable();
    t.text('server_url').notNullable();
    /** The OAuth `state`: the callback is accepted only with it. */
    t.text('state').notNullable().unique();
    /** `pending` → `authorized` (tokens obtained) or `error`. */
    t.text('status').notNullable();
    t.text('authorization_url');
    t.text('redirect_uri').notNullable();
    t.text('code_verifier_enc');
    t.text('client_information_enc');
    t.text('tokens_enc');
    t.text('error_message');
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamps(true, true);
    t.index(['organization_id', 'server_url']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('mcp_oauth_sessions');
  await knex.schema.dropTable('mcp_servers');
}
