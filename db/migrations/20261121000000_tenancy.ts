import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('organizations', (t) => {
    t.text('id').primary();
    t.text('name').notNullable();
    t.timestamps(true, true);
  });
  await knex.schema.createTable('users', (t) => {
    t.text('id').primary();
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE').index();
    t.text('name').notNullable();
    t.text('email').unique();
    t.text('role').notNullable().defaultTo('admin');
    t.timestamps(true, true);
  });
  await knex.schema.createTable('projects', (t) => {
    t.text('id').primary();
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('slug').notNullable();
    t.boolean('is_default').notNullable().defaultTo(false);
    t.timestamps(true, true);
    t.unique(['organization_id', 'slug']);
  });
  await knex.schema.createTable('api_keys', (t) => {
    t.text('id').primary();
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE').index();
    t.text('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('name').notNullable();
    // Keys are 256-bit random secrets, so a fast hash is enough; the clear key is never stored.
    t.text('key_hash').notNullable().unique();
    t.text('key_prefix').notNullable();
    t.timestamp('last_used_at', { useTz: true });
    t.timestamps(true, true);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('api_keys');
  await knex.schema.dropTable('projects');
  await knex.schema.dropTable('users');
  await knex.schema.dropTable('organizations');
}
