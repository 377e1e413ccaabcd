import type { Knex } from 'knex';

/**
 * Message batches (`/v1/messages/batches`): one job per batch, one item per request, each item run as a
 * normal run of its agent. Scheduled messages (`/v1/agents/{id}/schedule`): the record of each Temporal
 * Schedule, so listings are scoped to the organization and die with the agent.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('message_batches', (t) => {
    t.text('id').primary();
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.text('user_id');
    t.text('status').notNullable();
    t.boolean('cancel_requested').notNullable().defaultTo(false);
    t.text('callback_url');
    t.timestamp('callback_sent_at', { useTz: true });
    t.integer('callback_status_code');
    t.text('callback_error');
    t.integer('callback_attempts').notNullable().defaultTo(0);
    t.jsonb('metadata').notNullable().defaultTo('{}');
    t.timestamp('completed_at', { useTz: true });
    t.timestamps(true, true);
    t.index(['organization_id', 'created_at']);
  });

  await knex.schema.createTable('message_batch_items', (t) => {
    t.text('id').primary();
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.text('batch_id').notNullable().references('message_batches.id').onDelete('CASCADE');
    t.integer('position').notNullable();
    t.text('agent_id').notNullable().references('agents.id').onDelete('CASCADE');
    t.text('run_id').references('runs.id').onDelete('SET NULL');
    t.text('status').notNullable();
    /** The send request of this item (a RunRequest), turned into a run when its turn comes. */
    t.jsonb('request').notNullable();
    t.timestamps(true, true);
    t.unique(['batch_id', 'position']);
    t.index(['run_id']);
  });

  await knex.schema.createTable('scheduled_messages', (t) => {
    t.text('id').primary();
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.text('agent_id').notNullable().references('agents.id').onDelete('CASCADE');
    /** `{type: 'one-time', scheduled_at}` or `{type: 'recurring', cron_expression}`, as the client sent it. */
    t.jsonb('schedule').notNullable();
    /** `{messages, callback_url?, include_return_message_types?, max_steps?}`, as the client sent it. */
    t.jsonb('message').notNullable();
    t.timestamps(true, true);
    t.index(['organization_id', 'agent_id', 'created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('scheduled_messages');
  await knex.schema.dropTable('message_batch_items');
  await knex.schema.dropTable('message_batches');
}
