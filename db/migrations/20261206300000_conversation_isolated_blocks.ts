import type { Knex } from 'knex';

/**
 * Conversations with isolated blocks: the labels a conversation was created with (`isolated_block_labels`), and the
 * conversation's own copy of each such block of its agent. A copy is an ordinary block row, so memory edits lock and
 * limit it as any block; it goes with its conversation, and no agent lists it among its own.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('conversations', (t) => {
    t.specificType('isolated_block_labels', 'text[]').notNullable().defaultTo('{}');
  });
  await knex.schema.createTable('conversation_blocks', (t) => {
    t.text('conversation_id').notNullable().references('conversations.id').onDelete('CASCADE');
    t.text('block_id').notNullable().references('blocks.id').onDelete('CASCADE').unique();
    t.text('organization_id').notNullable();
    t.text('label').notNullable();
    t.primary(['conversation_id', 'label']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('delete from blocks where id in (select block_id from conversation_blocks)');
  await knex.schema.dropTable('conversation_blocks');
  await knex.schema.alterTable('conversations', (t) => {
    t.dropColumn('isolated_block_labels');
  });
}
