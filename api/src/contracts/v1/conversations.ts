import { z } from 'zod';

/** Model settings are passed through as given (the agent's own settings decide the provider's request). */
const ModelSettings = z.record(z.string(), z.unknown());

const conversationFields = {
  summary: z.string().max(10_000).nullish(),
  description: z.string().max(10_000).nullish(),
  model: z.string().max(500).nullish(),
  model_settings: ModelSettings.nullish(),
  context_window_limit: z.number().int().min(1).max(100_000_000).nullish(),
};

export const CreateConversationBody = z.object({ ...conversationFields, hidden: z.boolean().optional() }).strict();

export const UpdateConversationBody = z
  .object({ ...conversationFields, archived: z.boolean().nullish(), last_message_at: z.string().datetime({ offset: true }).nullish() })
  .strict();

/** The client's `Conversation`. */
export const ConversationResponse = z
  .object({
    id: z.string(),
    agent_id: z.string(),
    archived: z.boolean(),
    archived_at: z.string().nullable(),
    context_window_limit: z.number().int().nullable(),
    created_at: z.string(),
    created_by_id: z.string().nullable(),
    description: z.string().nullable(),
    in_context_message_ids: z.array(z.string()).nullable(),
    last_message_at: z.string().nullable(),
    last_updated_by_id: z.string().nullable(),
    model: z.string().nullable(),
    model_settings: ModelSettings.nullable(),
    summary: z.string().nullable(),
    updated_at: z.string(),
  })
  .meta({ id: 'Conversation' });

export type ConversationWire = z.infer<typeof ConversationResponse>;

export const CompactionSettings = z.record(z.string(), z.unknown()).nullish();
