import type { Conversation } from '@engram/db';
import type { ConversationWire } from '../../contracts/v1/conversations.js';

const iso = (date: Date | null) => (date ? date.toISOString() : null);

/** The wire `Conversation`: `in_context_message_ids` is its context window, its own system message first. */
export function conversationToWire(conversation: Conversation): ConversationWire {
  return {
    id: conversation.id,
    agent_id: conversation.agentId,
    archived: conversation.archived,
    archived_at: iso(conversation.archivedAt),
    context_window_limit: conversation.contextWindowLimit,
    created_at: conversation.createdAt.toISOString(),
    created_by_id: conversation.createdById,
    description: conversation.description,
    in_context_message_ids: conversation.messageIds,
    last_message_at: iso(conversation.lastMessageAt),
    last_updated_by_id: conversation.lastUpdatedById,
    model: conversation.model,
    model_settings: conversation.modelSettings,
    summary: conversation.summary,
    updated_at: conversation.updatedAt.toISOString(),
  };
}
