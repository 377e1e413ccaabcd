import type { Knex } from 'knex';

/**
 * Multi-agent groups: the group (its manager type and settings), its members in speaking order, and the
 * blocks it shares (a block attached to a group is in every member's memory). An agent with
 * `enable_sleeptime` manages a sleeptime group of its own. Messages of a group keep `group_id` (an
 * existing column, now indexed); a member's copy of what another member said points to the original, so
 * the group's transcript lists each thing said once.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('groups', (t) => {
    t.text('id').primary();
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.text('project_id').references('projects.id').onDelete('SET NULL');
    t.text('manager_type').notNullable();
    t.text('description').notNullable();
    t.text('manager_agent_id').references('agents.id').onDelete('CASCADE');
    t.text('termination_token');
    t.integer('max_turns');
    t.integer('sleeptime_agent_frequency');
    t.integer('turns_counter').notNullable().defaultTo(0);
    t.text('last_processed_message_id');
    t.integer('max_message_buffer_length');
    t.integer('min_message_buffer_length');
    t.boolean('hidden');
    t.text('template_id');
    t.text('base_template_id');
    t.text('deployment_id');
    /** Set on the group an agent's `enable_sleeptime` created: it lives and dies with that setting. */
    t.boolean('managed').notNullable().defaultTo(false);
    t.text('created_by_id');
    t.text('last_updated_by_id');
    t.timestamps(true, true);
    t.index(['organization_id', 'created_at']);
    t.index(['manager_agent_id']);
  });

  await knex.schema.createTable('group_agents', (t) => {
    t.text('group_id').notNullable().references('groups.id').onDelete('CASCADE');
    t.text('agent_id').notNullable().references('agents.id').onDelete('CASCADE');
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.integer('position').notNullable();
    t.primary(['group_id', 'agent_id']);
    t.index(['agent_id']);
  });

  await knex.schema.createTable('group_blocks', (t) => {
    t.text('group_id').notNullable().references('groups.id').onDelete('CASCADE');
    t.text('block_id').notNullable().references('blocks.id').onDelete('CASCADE');
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.primary(['group_id', 'block_id']);
    t.index(['block_id']);
  });

  await knex.schema.alterTable('agents', (t) => {
    t.boolean('enable_sleeptime').notNullable().defaultTo(false);
  });

  await knex.schema.alterTable('messages', (t) => {
    t.text('copied_from_message_id');
    t.index(['organization_id', 'group_id', 'sequence']);
    t.index(['copied_from_message_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('messages', (t) => {
    t.dropIndex(['copied_from_message_id']);
    t.dropIndex(['organization_id', 'group_id', 'sequence']);
    t.dropColumn('copied_from_message_id');
  });
  await knex.schema.alterTable('agents', (t) => {
    t.dropColumn('enable_sleeptime');
  });
  await knex.schema.dropTable('group_blocks');
  await knex.schema.dropTable('group_agents');
  await knex.schema.dropTable('groups');
}
