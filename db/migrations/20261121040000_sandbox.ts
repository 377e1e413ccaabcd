import type { Knex } from 'knex';

/** Tool sandboxes: one config per sandbox type and organization, and the environment variables tools run with. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('sandbox_configs', (t) => {
    t.text('id').primary();
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.text('type').notNullable();
    t.jsonb('config').notNullable().defaultTo('{}');
    t.text('created_by_id');
    t.text('last_updated_by_id');
    t.timestamps(true, true);
    t.unique(['organization_id', 'type']);
  });

  await knex.schema.createTable('sandbox_environment_variables', (t) => {
    t.text('id').primary();
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.text('sandbox_config_id').notNullable().references('sandbox_configs.id').onDelete('CASCADE');
    t.text('key').notNullable();
    /** Sealed with the server's SecretBox; the clear value is never stored. */
    t.text('value_enc').notNullable();
    t.text('description');
    t.text('created_by_id');
    t.text('last_updated_by_id');
    t.timestamps(true, true);
    t.unique(['sandbox_config_id', 'key']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('sandbox_environment_variables');
  await knex.schema.dropTable('sandbox_configs');
}
