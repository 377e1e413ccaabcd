import type { Knex } from 'knex';
import { Block } from '../models/block.js';
import { ConversationBlock } from '../models/conversation.js';
import { newId } from '../ids.js';

/** The agent's own blocks, in prompt order. */
function agentBlockRows(db: Knex, organizationId: string, agentId: string) {
  return Block.query(db)
    .forOrg(organizationId)
    .join('agent_blocks', 'agent_blocks.block_id', 'blocks.id')
    .where('agent_blocks.agent_id', agentId)
    .orderBy([{ column: 'agent_blocks.position' }, { column: 'blocks.created_at' }])
    .select('blocks.*');
}

/** The copies of isolated blocks the conversations of an agent have, by conversation. */
async function conversationCopies(db: Knex, organizationId: string, filter: { agentId: string } | { conversationId: string }): Promise<Map<string, Block[]>> {
  const rows = (await Block.query(db)
    .forOrg(organizationId)
    .join('conversation_blocks', 'conversation_blocks.block_id', 'blocks.id')
    .modify((query) => {
      if ('conversationId' in filter) query.where('conversation_blocks.conversation_id', filter.conversationId);
      else query.join('conversations', 'conversations.id', 'conversation_blocks.conversation_id').where('conversations.agent_id', filter.agentId);
    })
    .select('blocks.*', 'conversation_blocks.conversation_id as copyConversationId')) as Array<Block & { copyConversationId: string }>;
  const byConversation = new Map<string, Block[]>();
  for (const row of rows) byConversation.set(row.copyConversationId, [...(byConversation.get(row.copyConversationId) ?? []), row]);
  return byConversation;
}

/** The agent's blocks with a conversation's copies in place of the ones it isolates. */
function withCopies(shared: Block[], copies: Block[]): Block[] {
  const copyByLabel = new Map(copies.map((copy) => [copy.label, copy]));
  return shared.map((block) => copyByLabel.get(block.label) ?? block);
}

/**
 * The blocks an agent sees, in prompt order: in a conversation, its copies of the blocks it isolates take the
 * place of the agent's; everywhere else (and for every other label), the agent's own.
 */
export async function memoryBlocksOf(db: Knex, organizationId: string, agentId: string, conversationId: string | null): Promise<Block[]> {
  const shared = await agentBlockRows(db, organizationId, agentId);
  if (!conversationId) return shared;
  const copies = await conversationCopies(db, organizationId, { conversationId });
  return withCopies(shared, copies.get(conversationId) ?? []);
}

/** The blocks each conversation of the agent with isolated blocks sees, by conversation (the others see `shared`). */
export async function conversationMemoryBlocks(db: Knex, organizationId: string, agentId: string, shared: Block[]): Promise<Map<string, Block[]>> {
  const copies = await conversationCopies(db, organizationId, { agentId });
  return new Map([...copies].map(([conversationId, own]) => [conversationId, withCopies(shared, own)]));
}

/**
 * The block a memory tool edits under `label`, row-locked for the edit: the conversation's copy when it isolates
 * that label, else the agent's own.
 */
export async function lockMemoryBlock(
  trx: Knex.Transaction,
  scope: { organizationId: string; agentId: string; conversationId: string | null },
  label: string,
): Promise<Block | undefined> {
  if (scope.conversationId) {
    const copy = await Block.query(trx)
      .forOrg(scope.organizationId)
      .join('conversation_blocks', 'conversation_blocks.block_id', 'blocks.id')
      .where({ 'conversation_blocks.conversation_id': scope.conversationId, 'conversation_blocks.label': label })
      .select('blocks.*')
      .forUpdate()
      .first();
    if (copy) return copy;
  }
  return Block.query(trx)
    .forOrg(scope.organizationId)
    .join('agent_blocks', 'agent_blocks.block_id', 'blocks.id')
    .where({ 'agent_blocks.agent_id': scope.agentId, 'agent_blocks.label': label })
    .select('blocks.*')
    .forUpdate()
    .first();
}

/**
 * Gives a new conversation its own copy of each of the agent's blocks under `labels`, with the values the agent's
 * blocks have, or the ones conversation `from` sees (a fork's source). Labels the agent has no block for are kept
 * on the conversation but copy nothing.
 */
export async function copyIsolatedBlocks(
  trx: Knex.Transaction,
  conversation: { id: string; organizationId: string; agentId: string },
  isolation: { labels: string[]; from: string | null },
): Promise<void> {
  if (isolation.labels.length === 0) return;
  const wanted = new Set(isolation.labels);
  const seen = await memoryBlocksOf(trx, conversation.organizationId, conversation.agentId, isolation.from);
  for (const block of seen.filter((candidate) => wanted.has(candidate.label))) {
    const copy = await Block.query(trx).insertAndFetch({
      id: newId('block'),
      organizationId: block.organizationId,
      projectId: block.projectId,
      label: block.label,
      value: block.value,
      limit: block.limit,
      description: block.description,
      readOnly: block.readOnly,
      hidden: block.hidden,
      metadata: { ...block.metadata, isolated_from_block_id: block.id, conversation_id: conversation.id },
      tags: block.tags,
      createdById: block.createdById,
      lastUpdatedById: block.lastUpdatedById,
    });
    await ConversationBlock.query(trx).insert({ conversationId: conversation.id, blockId: copy.id, organizationId: conversation.organizationId, label: block.label });
  }
}
