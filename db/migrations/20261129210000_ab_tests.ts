import type { Knex } from 'knex';

/**
 * A/B tests: versions of one template attached as arms with weights, and the end users each landed on an arm with
 * the agent made for them (one per test and identity, so a user keeps their arm and agent).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('ab_tests', (t) => {
    t.text('id').primary();
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.text('project_id').notNullable().references('projects.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('description');
    /** running or stopped. */
    t.text('status').notNullable().defaultTo('running');
    t.text('winner_arm_id');
    t.timestamp('stopped_at', { useTz: true });
    t.timestamps(true, true);
    t.index(['organization_id', 'created_at']);
  });

  await knex.schema.createTable('ab_test_templates', (t) => {
    t.text('id').primary();
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.text('ab_test_id').notNullable().references('ab_tests.id').onDelete('CASCADE');
    t.text('template_id').notNullable().references('agent_templates.id').onDelete('CASCADE');
    t.text('template_version_id').notNullable().references('agent_template_versions.id').onDelete('CASCADE');
    t.integer('weight').notNullable();
    t.timestamps(true, true);
    t.unique(['ab_test_id', 'template_version_id']);
  });

  await knex.schema.createTable('ab_test_assignments', (t) => {
    t.text('ab_test_id').notNullable().references('ab_tests.id').onDelete('CASCADE');
    t.text('identity').notNullable();
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.text('arm_id').notNullable().references('ab_test_templates.id').onDelete('CASCADE');
    t.text('agent_id').notNullable().references('agents.id').onDelete('CASCADE');
    t.timestamps(true, true);
    t.primary(['ab_test_id', 'identity']);
    t.index(['arm_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('ab_test_assignments');
  await knex.schema.dropTable('ab_test_templates');
  await knex.schema.dropTable('ab_tests');
}
