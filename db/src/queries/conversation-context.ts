import type { Knex } from 'knex';
import { Agent } from '../models/agent.js';
import { Conversation } from '../models/conversation.js';

/**
 * Where a context window lives: a conversation's row, or the agent's own (`conversationId: null`, its default
 * conversation, which is the agent's history as it always was).
 */
export type ContextOwner = { organizationId: string; agentId: string; conversationId: string | null };

/**
 * The window's message ids, system message first. `lock` takes the owner's row lock (inside a transaction):
 * writers of one window are serialized, while other conversations of the agent go on.
 */
export async function contextMessageIds(db: Knex, owner: ContextOwner, options: { lock?: boolean } = {}): Promise<string[]> {
  if (owner.conversationId) {
    const query = Conversation.query(db).forOrg(owner.organizationId).findById(owner.conversationId);
    const conversation = await (options.lock ? query.forUpdate() : query);
    return conversation?.messageIds ?? [];
  }
  const query = Agent.query(db).forOrg(owner.organizationId).findById(owner.agentId);
  const agent = await (options.lock ? query.forUpdate() : query);
  return agent?.messageIds ?? [];
}

export async function setContextMessageIds(db: Knex, owner: ContextOwner, messageIds: string[]): Promise<void> {
  if (owner.conversationId) {
    await Conversation.query(db).forOrg(owner.organizationId).findById(owner.conversationId).patch({ messageIds });
    return;
  }
  await Agent.query(db).forOrg(owner.organizationId).findById(owner.agentId).patch({ messageIds });
}
