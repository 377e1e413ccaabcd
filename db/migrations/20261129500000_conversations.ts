import type { Knex } from 'knex';

/**
 * Conversations: concurrent threads of one agent. Each holds its own context window (`message_ids`, its own
 * system message first) while the agent's memory, tools, archival memory and files stay shared. The agent's
 * own history (`agents.message_ids`) is its default conversation, so messages and runs without a
 * `conversation_id` belong to it. A fork lists the source messages it starts from in `inherited_message_ids`
 * (they stay the source's rows), so its message list shows them.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('conversations', (t) => {
    t.text('id').primary();
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.text('agent_id').notNullable().references('agents.id').onDelete('CASCADE');
    t.specificType('message_ids', 'text[]').notNullable().defaultTo('{}');
    t.specificType('inherited_message_ids', 'text[]').notNullable().defaultTo('{}');
    t.text('summary');
    t.text('description');
    t.boolean('archived').notNullable().defaultTo(false);
    t.timestamp('archived_at', { useTz: true });
    t.boolean('hidden').notNullable().defaultTo(false);
    t.text('model');
    t.jsonb('model_settings');
    t.integer('context_window_limit');
    t.timestamp('last_message_at', { useTz: true });
    t.timestamp('deleted_at', { useTz: true });
    t.text('created_by_id');
    t.text('last_updated_by_id');
    t.timestamps(true, true);
    t.index(['organization_id', 'agent_id', 'created_at']);
  });
  await knex.schema.alterTable('messages', (t) => {
    t.text('conversation_id').references('conversations.id').onDelete('SET NULL');
    t.index(['organization_id', 'conversation_id', 'sequence']);
  });
  await knex.schema.alterTable('runs', (t) => {
    t.text('conversation_id').references('conversations.id').onDelete('SET NULL');
    t.index(['organization_id', 'conversation_id', 'status']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('runs', (t) => {
    t.dropColumn('conversation_id');
  });
  await knex.schema.alterTable('messages', (t) => {
    t.dropColumn('conversation_id');
  });
  await knex.schema.dropTable('conversations');
}
