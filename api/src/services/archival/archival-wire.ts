import type { Archive, Message, Passage } from '@engram/db';
import { decodeEmbedding, isoInTimezone, type RankedPassage } from '@engram/integrations/archival';
import type { RankedMessage } from './message-search-service.js';
import type {
  ArchivalSearchWire,
  ArchiveWire,
  MessageListResultWire,
  MessageSearchResultWire,
  PassageSearchResultWire,
  PassageWire,
} from '../../contracts/v1/archives.js';
import type { EmbeddingConfigWire } from '../../contracts/v1/models.js';
import type { InternalMessageWire } from '../../contracts/v1/internal-messages.js';

const iso = (date: Date | null | undefined) => (date ? date.toISOString() : null);

/** The wire `Archive`. */
export function archiveToWire(archive: Archive): ArchiveWire {
  return {
    id: archive.id,
    name: archive.name,
    description: archive.description,
    organization_id: archive.organizationId,
    vector_db_provider: archive.vectorDbProvider,
    // Checked against the same shape when the archive was created.
    embedding_config: archive.embeddingConfig as EmbeddingConfigWire,
    metadata: archive.metadata,
    created_at: archive.createdAt.toISOString(),
    updated_at: iso(archive.updatedAt),
    created_by_id: archive.createdById,
    last_updated_by_id: archive.lastUpdatedById,
  };
}

/** The wire `Passage`; `embedding` is the stored unit vector at its own dimension (the reference pads to 4096). */
export function passageToWire(passage: Passage): PassageWire {
  return {
    id: passage.id,
    text: passage.text,
    embedding: passage.embedding ? Array.from(decodeEmbedding(passage.embedding)) : null,
    embedding_config: passage.embeddingConfig as EmbeddingConfigWire | null,
    organization_id: passage.organizationId,
    archive_id: passage.archiveId,
    source_id: passage.sourceId,
    file_id: passage.fileId,
    file_name: passage.fileName,
    metadata: passage.metadata,
    tags: passage.tags,
    is_deleted: false,
    created_at: iso(passage.createdAt),
    updated_at: iso(passage.updatedAt),
    created_by_id: passage.createdById,
    last_updated_by_id: passage.lastUpdatedById,
  };
}

/** `GET /agents/{id}/archival-memory/search`: the archival entry view, with times in the agent's timezone. */
export function archivalSearchToWire(ranked: RankedPassage[], timezone: string): ArchivalSearchWire {
  return {
    results: ranked.map(({ passage }) => ({
      id: passage.id,
      timestamp: isoInTimezone(passage.createdAt, timezone),
      content: passage.text,
      tags: passage.tags,
    })),
    count: ranked.length,
  };
}

/** `POST /passages/search`: the passage with its fused score; the ranks behind it go in `metadata`. */
export function passageSearchResultToWire(item: RankedPassage): PassageSearchResultWire {
  return {
    passage: passageToWire(item.passage),
    score: item.rrfScore,
    metadata: { fts_rank: item.ftsRank, vector_rank: item.vectorRank, rrf_score: item.rrfScore, similarity: item.similarity },
  };
}

/** A stored message in the internal `Message` shape (`InternalMessage` in the client). */
export function internalMessageToWire(message: Message): InternalMessageWire {
  return {
    id: message.id,
    agent_id: message.agentId,
    role: message.role,
    content: message.content,
    name: message.name,
    otid: message.otid,
    sender_id: message.senderId,
    model: message.model,
    tool_calls: message.toolCalls,
    tool_call_id: message.toolCallId,
    tool_returns: message.toolReturns,
    approvals: message.approvals,
    approve: message.approve,
    approval_request_id: message.approvalRequestId,
    denial_reason: message.denialReason,
    group_id: message.groupId,
    batch_item_id: message.batchItemId,
    conversation_id: message.conversationId,
    step_id: message.stepId,
    run_id: message.runId,
    is_err: message.isErr,
    created_at: iso(message.createdAt),
    updated_at: iso(message.updatedAt),
  };
}

/** `POST /agents/messages/search`: the reference server's `MessageSearchResult`. */
export function messageSearchResultToWire(item: RankedMessage): MessageSearchResultWire {
  return {
    embedded_text: item.text,
    message: internalMessageToWire(item.message),
    fts_rank: item.ftsRank,
    vector_rank: item.vectorRank,
    rrf_score: item.rrfScore,
  };
}

const LIST_RESULT_TYPES: Partial<Record<Message['role'], 'system_message' | 'user_message' | 'assistant_message'>> = {
  system: 'system_message',
  user: 'user_message',
  assistant: 'assistant_message',
};

/** `POST /messages/search` (client 1.x): the message as a list result with its agent; roles without a text view are left out. */
export function messageListResultToWire(item: RankedMessage): MessageListResultWire[] {
  const messageType = LIST_RESULT_TYPES[item.message.role];
  if (!messageType) return [];
  return [
    {
      message_type: messageType,
      message_id: item.message.id,
      agent_id: item.message.agentId,
      conversation_id: item.message.conversationId,
      created_at: item.message.createdAt.toISOString(),
      content: item.text,
    },
  ];
}
