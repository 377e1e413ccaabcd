import { z } from 'zod';
import { STOP_REASONS } from '@engram/core';

export const MESSAGE_TYPES = [
  'system_message',
  'user_message',
  'assistant_message',
  'reasoning_message',
  'hidden_reasoning_message',
  'tool_call_message',
  'tool_return_message',
  'approval_request_message',
  'approval_response_message',
  'summary_message',
  'event_message',
] as const;

export const MessageType = z.enum(MESSAGE_TYPES);

export const StopReason = z.enum(STOP_REASONS);

/** What every message of the wire union carries beside its own fields. */
const messageCommon = {
  id: z.string(),
  date: z.string(),
  name: z.string().nullish(),
  otid: z.string().nullish(),
  sender_id: z.string().nullish(),
  step_id: z.string().nullish(),
  run_id: z.string().nullish(),
  seq_id: z.number().int().nullish(),
  is_err: z.boolean().nullish(),
};

export const TextContent = z.object({ type: z.literal('text'), text: z.string(), signature: z.string().nullish() }).meta({ id: 'TextContent' });

const ImageSource = z.union([
  z.looseObject({ type: z.literal('url'), url: z.string() }),
  z.looseObject({ type: z.literal('base64'), data: z.string(), media_type: z.string(), detail: z.string().nullish() }),
  z.looseObject({ type: z.literal('letta'), file_id: z.string(), data: z.string().nullish(), detail: z.string().nullish(), media_type: z.string().nullish() }),
]);

export const ImageContent = z.looseObject({ type: z.literal('image'), source: ImageSource }).meta({ id: 'ImageContent' });

/**
 * A part of a user message that is neither text nor an image the client's types describe: parts are stored as
 * the sender wrote them, and answered back the same way.
 */
const OtherContent = z.looseObject({ type: z.string() });

/**
 * A content part a sender writes: text with its text, an image with a source a model can be given, or a part of
 * another type, stored as written. A text part without text or an image without a source is refused here: the
 * model call would otherwise fail on it in every later turn.
 */
export const SentContentPart = z.union([
  z.looseObject({ type: z.literal('text'), text: z.string() }),
  ImageContent,
  z.looseObject({
    type: z.string().refine((type) => type !== 'text' && type !== 'image', 'A text part needs `text` and an image part a `source`'),
  }),
]);

const ToolCall = z.object({ name: z.string(), arguments: z.string(), tool_call_id: z.string() }).meta({ id: 'ToolCall' });

const ToolReturn = z
  .object({
    type: z.literal('tool'),
    tool_return: z.string(),
    status: z.enum(['success', 'error']),
    tool_call_id: z.string(),
    stdout: z.array(z.string()).nullish(),
    stderr: z.array(z.string()).nullish(),
  })
  .meta({ id: 'ToolReturn' });

const ApprovalReturn = z
  .object({ type: z.literal('approval'), tool_call_id: z.string(), approve: z.boolean(), reason: z.string().nullish() })
  .meta({ id: 'ApprovalReturn' });

export const SystemMessage = z.object({ ...messageCommon, message_type: z.literal('system_message'), content: z.string() }).meta({ id: 'SystemMessage' });

export const UserMessage = z
  .object({ ...messageCommon, message_type: z.literal('user_message'), content: z.union([z.string(), z.array(z.union([TextContent, ImageContent, OtherContent]))]) })
  .meta({ id: 'UserMessage' });

export const AssistantMessage = z
  .object({ ...messageCommon, message_type: z.literal('assistant_message'), content: z.union([z.string(), z.array(TextContent)]) })
  .meta({ id: 'AssistantMessage' });

export const ReasoningMessage = z
  .object({
    ...messageCommon,
    message_type: z.literal('reasoning_message'),
    source: z.enum(['reasoner_model', 'non_reasoner_model']),
    reasoning: z.string(),
    signature: z.string().nullish(),
  })
  .meta({ id: 'ReasoningMessage' });

export const HiddenReasoningMessage = z
  .object({
    ...messageCommon,
    message_type: z.literal('hidden_reasoning_message'),
    state: z.enum(['redacted', 'omitted']),
    hidden_reasoning: z.string().nullish(),
  })
  .meta({ id: 'HiddenReasoningMessage' });

export const ToolCallMessage = z
  .object({ ...messageCommon, message_type: z.literal('tool_call_message'), tool_call: ToolCall, tool_calls: z.array(ToolCall) })
  .meta({ id: 'ToolCallMessage' });

export const ToolReturnMessage = z
  .object({
    ...messageCommon,
    message_type: z.literal('tool_return_message'),
    tool_return: z.string(),
    status: z.enum(['success', 'error']),
    tool_call_id: z.string(),
    stdout: z.array(z.string()).nullish(),
    stderr: z.array(z.string()).nullish(),
    tool_returns: z.array(ToolReturn),
  })
  .meta({ id: 'ToolReturnMessage' });

export const ApprovalRequestMessage = z
  .object({ ...messageCommon, message_type: z.literal('approval_request_message'), tool_call: ToolCall, tool_calls: z.array(ToolCall) })
  .meta({ id: 'ApprovalRequestMessage' });

export const ApprovalResponseMessage = z
  .object({
    ...messageCommon,
    message_type: z.literal('approval_response_message'),
    approvals: z.array(z.discriminatedUnion('type', [ApprovalReturn, ToolReturn])),
    approve: z.boolean().nullish(),
    approval_request_id: z.string().nullish(),
    reason: z.string().nullish(),
  })
  .meta({ id: 'ApprovalResponseMessage' });

/** The wire union of messages `/v1` lists and answers, told apart by `message_type` (the client's `Message`). */
export const LettaMessageResponse = z
  .discriminatedUnion('message_type', [
    SystemMessage,
    UserMessage,
    AssistantMessage,
    ReasoningMessage,
    HiddenReasoningMessage,
    ToolCallMessage,
    ToolReturnMessage,
    ApprovalRequestMessage,
    ApprovalResponseMessage,
  ])
  .meta({ id: 'LettaMessage' });

export type LettaMessageWire = z.infer<typeof LettaMessageResponse>;

/** A run's token counts, as its stream's `usage_statistics` frame and the sync answer carry them. */
export const UsageStatisticsResponse = z
  .object({
    message_type: z.literal('usage_statistics'),
    completion_tokens: z.number().int(),
    prompt_tokens: z.number().int(),
    total_tokens: z.number().int(),
    step_count: z.number().int(),
    run_ids: z.array(z.string()).nullish(),
    cached_input_tokens: z.number().int().nullish(),
    cache_write_tokens: z.number().int().nullish(),
    reasoning_tokens: z.number().int().nullish(),
    context_tokens: z.number().int().nullish(),
  })
  .meta({ id: 'LettaUsageStatistics' });

export const StopReasonResponse = z.object({ message_type: z.literal('stop_reason'), stop_reason: StopReason }).meta({ id: 'LettaStopReason' });

/** The answer of a sync send: the run's messages (those asked for), why it stopped, and what it used. */
export const LettaResponse = z
  .object({ messages: z.array(LettaMessageResponse), stop_reason: StopReasonResponse, usage: UsageStatisticsResponse })
  .meta({ id: 'LettaResponse' });

export type LettaResponseWire = z.infer<typeof LettaResponse>;

/** `POST /agents/{id}/messages/cancel`: each cancelled run's id, mapped to `"cancelled"`. */
export const CancelledRunsResponse = z.record(z.string(), z.literal('cancelled'));

/** `POST /agents/{id}/summarize`: the summary that now stands for the compacted messages (null when there is none yet). */
export const CompactionResponse = z
  .object({ summary: z.string().nullable(), num_messages_before: z.number().int(), num_messages_after: z.number().int() })
  .meta({ id: 'CompactionResponse' });

/** The provider request body the next step would send, in that provider's own format. */
export const ProviderPayloadResponse = z.record(z.string(), z.unknown());
