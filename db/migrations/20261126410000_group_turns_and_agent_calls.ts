import type { Knex } from 'knex';

/**
 * A group turn: one message to a group, answered by its members' runs one after another (each queued
 * behind its agent's other runs); `run_ids` lists them in speaking order, which is how a reader follows the
 * turn. Agent calls: a multi-agent tool call's child runs, one row per callee; those still waiting are the
 * edges of the wait-for graph that refuses cycles.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('group_turns', (t) => {
    t.text('id').primary();
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.text('group_id').notNullable().references('groups.id').onDelete('CASCADE');
    t.text('user_id');
    t.text('status').notNullable();
    t.text('stop_reason');
    /** The send request (a RunRequest) the group was given. */
    t.jsonb('request').notNullable();
    t.specificType('run_ids', 'text[]').notNullable().defaultTo('{}');
    t.jsonb('usage').notNullable().defaultTo('{}');
    t.jsonb('failure');
    t.timestamp('completed_at', { useTz: true });
    t.timestamps(true, true);
    t.index(['organization_id', 'group_id', 'created_at']);
  });

  await knex.schema.createTable('agent_calls', (t) => {
    t.text('id').primary();
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.text('caller_run_id').notNullable().references('runs.id').onDelete('CASCADE');
    t.text('caller_agent_id').notNullable().references('agents.id').onDelete('CASCADE');
    t.text('tool_call_id').notNullable();
    t.integer('position').notNullable();
    t.text('callee_agent_id').notNullable().references('agents.id').onDelete('CASCADE');
    t.text('callee_run_id').references('runs.id').onDelete('SET NULL');
    /** The caller waits for the answer (not `send_message_to_agent_async`): an edge of the wait-for graph while `waiting`. */
    t.boolean('waits').notNullable();
    t.text('status').notNullable();
    t.text('refusal');
    t.timestamps(true, true);
    t.unique(['caller_run_id', 'tool_call_id', 'position']);
    t.index(['organization_id', 'status']);
    t.index(['callee_run_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('agent_calls');
  await knex.schema.dropTable('group_turns');
}
