import type { Knex } from 'knex';

/** Identities (the users or organizations agents act for) and their links to agents and blocks. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('identities', (t) => {
    t.text('id').primary();
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.text('project_id').references('projects.id').onDelete('SET NULL');
    t.text('identifier_key').notNullable();
    t.text('name').notNullable();
    t.text('identity_type').notNullable();
    /** [{key, value, type: string|number|boolean|json}] */
    t.jsonb('properties').notNullable().defaultTo('[]');
    t.timestamps(true, true);
    t.index(['organization_id', 'created_at']);
  });
  await knex.raw(`alter table identities add constraint identities_identity_type_check check (identity_type in ('org', 'user', 'other'))`);
  // NULLS NOT DISTINCT: an identity without a project still has one identifier_key per organization.
  await knex.raw(
    'create unique index identities_org_project_identifier_key_unique on identities (organization_id, project_id, identifier_key) nulls not distinct',
  );

  await knex.schema.createTable('identity_agents', (t) => {
    t.text('identity_id').notNullable().references('identities.id').onDelete('CASCADE');
    t.text('agent_id').notNullable().references('agents.id').onDelete('CASCADE').index();
    t.text('organization_id').notNullable();
    t.primary(['identity_id', 'agent_id']);
  });

  await knex.schema.createTable('identity_blocks', (t) => {
    t.text('identity_id').notNullable().references('identities.id').onDelete('CASCADE');
    t.text('block_id').notNullable().references('blocks.id').onDelete('CASCADE').index();
    t.text('organization_id').notNullable();
    t.primary(['identity_id', 'block_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['identity_blocks', 'identity_agents', 'identities']) {
    await knex.schema.dropTable(table);
  }
}
