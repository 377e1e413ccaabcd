import type { Knex } from 'knex';

/**
 * Simulated agents: the hidden agent a template's editor chats with, built from the template's working state
 * and its own memory variables. `applied_state` is the agent's state as last built from the template, so edits
 * made to the agent itself since then can be told apart and carried back into the working state.
 * Agents and templates get the id of the template entity an agent was made from (`entity_id`).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('simulated_agents', (t) => {
    t.text('id').primary();
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.text('template_id').notNullable().references('agent_templates.id').onDelete('CASCADE');
    t.text('agent_id').references('agents.id').onDelete('SET NULL');
    t.text('name').notNullable();
    t.jsonb('memory_variables').notNullable().defaultTo('{}');
    t.jsonb('applied_state');
    /** Set when the agent could not be built from the working state; the reason says why. */
    t.text('corruption_reason');
    t.timestamps(true, true);
    t.unique(['template_id']);
    t.index(['agent_id']);
  });

  await knex.schema.alterTable('agent_templates', (t) => {
    t.dropColumn('simulated_agent_id');
    t.text('entity_id');
  });
  await knex('agent_templates').update({ entity_id: knex.raw(`'entity-' || gen_random_uuid()`) });
  await knex.schema.alterTable('agent_templates', (t) => {
    t.text('entity_id').notNullable().alter();
  });

  await knex.schema.alterTable('agents', (t) => {
    t.text('entity_id');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('agents', (t) => {
    t.dropColumn('entity_id');
  });
  await knex.schema.alterTable('agent_templates', (t) => {
    t.dropColumn('entity_id');
    t.text('simulated_agent_id');
  });
  await knex.schema.dropTable('simulated_agents');
}
