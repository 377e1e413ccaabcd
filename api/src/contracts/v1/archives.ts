import { z } from 'zod';
import { Metadata } from './agent-config.js';
import { EmbeddingConfigResponse } from './models.js';
import { InternalMessageResponse } from './internal-messages.js';

/** The wire `Archive`: a store of passages that agents search. */
export const ArchiveResponse = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    organization_id: z.string(),
    vector_db_provider: z.literal('native'),
    embedding_config: EmbeddingConfigResponse,
    metadata: Metadata,
    created_at: z.string(),
    updated_at: z.string().nullable(),
    created_by_id: z.string().nullable(),
    last_updated_by_id: z.string().nullable(),
  })
  .meta({ id: 'Archive' });

export type ArchiveWire = z.infer<typeof ArchiveResponse>;

/** The wire `Passage`; `embedding` is the stored unit vector at its own dimension (the reference pads to 4096). */
export const PassageResponse = z
  .object({
    id: z.string(),
    text: z.string(),
    embedding: z.array(z.number()).nullable(),
    embedding_config: EmbeddingConfigResponse.nullable(),
    organization_id: z.string(),
    archive_id: z.string().nullable(),
    source_id: z.string().nullable(),
    file_id: z.string().nullable(),
    file_name: z.string().nullable(),
    metadata: Metadata,
    tags: z.array(z.string()),
    is_deleted: z.boolean(),
    created_at: z.string().nullable(),
    updated_at: z.string().nullable(),
    created_by_id: z.string().nullable(),
    last_updated_by_id: z.string().nullable(),
  })
  .meta({ id: 'Passage' });

export type PassageWire = z.infer<typeof PassageResponse>;

/** `GET /agents/{id}/archival-memory/search`: the archival entries, with times in the agent's timezone. */
export const ArchivalSearchResponse = z.object({
  results: z.array(z.object({ id: z.string(), timestamp: z.string(), content: z.string(), tags: z.array(z.string()) })),
  count: z.number().int(),
});

export type ArchivalSearchWire = z.infer<typeof ArchivalSearchResponse>;

/** `POST /passages/search`: a passage with its fused score; the ranks behind it are in `metadata`. */
export const PassageSearchResultResponse = z.object({
  passage: PassageResponse,
  score: z.number(),
  metadata: z.object({ fts_rank: z.number().int().nullable(), vector_rank: z.number().int().nullable(), rrf_score: z.number(), similarity: z.number().nullable() }),
});

export type PassageSearchResultWire = z.infer<typeof PassageSearchResultResponse>;

/** `POST /agents/messages/search`: the reference server's `MessageSearchResult`. */
export const MessageSearchResultResponse = z.object({
  embedded_text: z.string(),
  message: InternalMessageResponse,
  fts_rank: z.number().int().nullable(),
  vector_rank: z.number().int().nullable(),
  rrf_score: z.number(),
});

export type MessageSearchResultWire = z.infer<typeof MessageSearchResultResponse>;

const listResultFields = { message_id: z.string(), agent_id: z.string(), conversation_id: z.string().nullable(), created_at: z.string(), content: z.string() };

/** `POST /messages/search` (client 1.x): a message with a text view, as a list result with its agent. */
export const MessageListResultResponse = z.discriminatedUnion('message_type', [
  z.object({ message_type: z.literal('system_message'), ...listResultFields }),
  z.object({ message_type: z.literal('user_message'), ...listResultFields }),
  z.object({ message_type: z.literal('assistant_message'), ...listResultFields }),
]);

export type MessageListResultWire = z.infer<typeof MessageListResultResponse>;
