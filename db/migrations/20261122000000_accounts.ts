import type { Knex } from 'knex';

/**
 * Accounts and access control: users become global accounts that belong to organizations through
 * `organization_members` (role + custom permissions); console sessions, single-use codes, the
 * notification outbox, invites, verified domains, project favorites, organization environment
 * variables, development servers and ADE preferences.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('organizations', (t) => {
    t.text('billing_tier').notNullable().defaultTo('free');
    // The platform operator's own organization (spec: Organization.isAdmin).
    t.boolean('is_admin').notNullable().defaultTo(false);
  });

  await knex.schema.createTable('organization_members', (t) => {
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.text('user_id').notNullable().references('users.id').onDelete('CASCADE').index();
    t.text('role').notNullable();
    t.specificType('custom_permissions', 'text[]').notNullable().defaultTo('{}');
    t.timestamps(true, true);
    t.primary(['organization_id', 'user_id']);
  });

  await knex.schema.alterTable('users', (t) => {
    t.text('password_hash');
    t.text('image_url').notNullable().defaultTo('');
    t.text('theme').notNullable().defaultTo('auto');
    t.text('locale').notNullable().defaultTo('en');
    // Platform-wide permissions of the account itself (e.g. platform_admin), not of a membership.
    t.specificType('permissions', 'text[]').notNullable().defaultTo('{}');
    t.text('active_organization_id').references('organizations.id').onDelete('SET NULL');
    t.timestamp('email_verified_at', { useTz: true });
    t.text('phone_number');
    t.timestamp('phone_verified_at', { useTz: true });
    t.boolean('has_onboarded').notNullable().defaultTo(false);
    t.jsonb('onboarding_status');
    t.jsonb('onboarding_answers');
    t.boolean('marketing_consent').notNullable().defaultTo(false);
  });
  await knex.raw(`
    insert into organization_members (organization_id, user_id, role, created_at, updated_at)
    select organization_id, id, role, created_at, updated_at from users`);
  await knex.raw('update users set active_organization_id = organization_id');
  await knex.schema.alterTable('users', (t) => {
    t.dropColumn('organization_id');
    t.dropColumn('role');
  });
  // Emails are stored lower-cased; the index makes "one account per address" hold whatever the case.
  await knex.raw('create unique index users_email_lower_unique on users (lower(email))');

  // A key acts with its creator's membership, so it dies with that membership.
  await knex.schema.alterTable('api_keys', (t) => {
    t.foreign(['organization_id', 'user_id'], 'api_keys_membership_fk')
      .references(['organization_id', 'user_id'])
      .inTable('organization_members')
      .onDelete('CASCADE');
  });

  await knex.schema.createTable('sessions', (t) => {
    t.text('id').primary();
    t.text('user_id').notNullable().references('users.id').onDelete('CASCADE').index();
    // The cookie holds a 256-bit random token; only its hash is stored.
    t.text('token_hash').notNullable().unique();
    t.text('user_agent');
    t.text('ip');
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('revoked_at', { useTz: true });
    t.timestamps(true, true);
  });

  await knex.schema.createTable('verification_codes', (t) => {
    t.text('id').primary();
    t.text('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('purpose').notNullable();
    /** The address the code was sent to: an email or a phone number. */
    t.text('target').notNullable();
    t.text('code_hash').notNullable();
    t.integer('failed_attempts').notNullable().defaultTo(0);
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('consumed_at', { useTz: true });
    t.timestamps(true, true);
    t.index(['user_id', 'purpose', 'created_at']);
  });

  await knex.schema.createTable('outbox', (t) => {
    t.text('id').primary();
    t.text('channel').notNullable();
    t.text('recipient').notNullable();
    t.text('subject').notNullable();
    t.text('body').notNullable();
    t.timestamp('delivered_at', { useTz: true });
    t.timestamps(true, true);
    t.index(['recipient', 'created_at']);
  });

  await knex.schema.createTable('organization_invites', (t) => {
    t.text('id').primary();
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.text('email').notNullable();
    t.text('role').notNullable();
    t.text('invite_code').notNullable().unique();
    t.text('invited_by_id').references('users.id').onDelete('SET NULL');
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamps(true, true);
    t.unique(['organization_id', 'email']);
  });

  await knex.schema.createTable('verified_domains', (t) => {
    t.text('id').primary();
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE').index();
    t.text('domain').notNullable().unique();
    t.timestamps(true, true);
  });

  await knex.schema.createTable('invite_rules', (t) => {
    t.text('id').primary();
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE').index();
    t.text('verified_domain_id').notNullable().references('verified_domains.id').onDelete('CASCADE').unique();
    t.text('role').notNullable();
    t.timestamps(true, true);
  });

  await knex.schema.createTable('project_favorites', (t) => {
    t.text('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('project_id').notNullable().references('projects.id').onDelete('CASCADE');
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.timestamps(true, true);
    t.primary(['user_id', 'project_id']);
  });

  await knex.schema.createTable('organization_environment_variables', (t) => {
    t.text('id').primary();
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.text('key').notNullable();
    t.text('value_enc').notNullable();
    t.timestamps(true, true);
    t.unique(['organization_id', 'key']);
  });

  await knex.schema.createTable('development_servers', (t) => {
    t.text('id').primary();
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE').index();
    t.text('name').notNullable();
    t.text('url').notNullable();
    t.text('password_enc');
    t.timestamps(true, true);
  });

  await knex.schema.createTable('ade_preferences', (t) => {
    t.text('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('agent_id').notNullable().references('agents.id').onDelete('CASCADE');
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.jsonb('display_config').notNullable().defaultTo('{}');
    t.timestamps(true, true);
    t.primary(['user_id', 'agent_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [
    'ade_preferences',
    'development_servers',
    'organization_environment_variables',
    'project_favorites',
    'invite_rules',
    'verified_domains',
    'organization_invites',
    'outbox',
    'verification_codes',
    'sessions',
  ]) {
    await knex.schema.dropTable(table);
  }
  await knex.schema.alterTable('api_keys', (t) => t.dropForeign(['organization_id', 'user_id'], 'api_keys_membership_fk'));
  await knex.raw('drop index users_email_lower_unique');
  await knex.schema.alterTable('users', (t) => {
    t.text('organization_id').references('organizations.id').onDelete('CASCADE').index();
    t.text('role').notNullable().defaultTo('admin');
  });
  // A user kept the organization and role of their oldest membership; users without one cannot be kept.
  await knex.raw(`
    update users set organization_id = m.organization_id, role = m.role
    from (select distinct on (user_id) user_id, organization_id, role from organization_members order by user_id, created_at) m
    where m.user_id = users.id`);
  await knex.raw('delete from users where organization_id is null');
  await knex.schema.alterTable('users', (t) => {
    t.dropNullable('organization_id');
    for (const column of [
      'password_hash', 'image_url', 'theme', 'locale', 'permissions', 'active_organization_id', 'email_verified_at',
      'phone_number', 'phone_verified_at', 'has_onboarded', 'onboarding_status', 'onboarding_answers', 'marketing_consent',
    ]) {
      t.dropColumn(column);
    }
  });
  await knex.schema.dropTable('organization_members');
  await knex.schema.alterTable('organizations', (t) => {
    t.dropColumn('billing_tier');
    t.dropColumn('is_admin');
  });
}
