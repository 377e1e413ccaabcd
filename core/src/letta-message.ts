/**
 * The wire union of messages the `/v1` API lists and streams, discriminated by `message_type`
 * (shapes as in the `@letta-ai/letta-client` 1.x types).
 */
export type MessageCommon = {
  id: string;
  date: string;
  name?: string | null;
  otid?: string | null;
  sender_id?: string | null;
  step_id?: string | null;
  run_id?: string | null;
  seq_id?: number | null;
  is_err?: boolean | null;
};

export type WireToolCall = { name: string; arguments: string; tool_call_id: string };

export type WireToolReturn = {
  type: 'tool';
  tool_return: string;
  status: 'success' | 'error';
  tool_call_id: string;
  stdout?: string[] | null;
  stderr?: string[] | null;
};

export type WireApproval =
  | { type: 'approval'; tool_call_id: string; approve: boolean; reason?: string | null }
  | WireToolReturn;

export type TextContent = { type: 'text'; text: string };

/** A part of a user message other than text (an image, or a part kept as its sender wrote it). */
export type OtherContentPart = { type: string; [key: string]: unknown };

export type LettaMessage = MessageCommon &
  (
    | { message_type: 'system_message'; content: string }
    | { message_type: 'user_message'; content: string | Array<TextContent | OtherContentPart> }
    | { message_type: 'assistant_message'; content: string | TextContent[] }
    | { message_type: 'reasoning_message'; source: 'reasoner_model' | 'non_reasoner_model'; reasoning: string; signature?: string | null }
    | { message_type: 'hidden_reasoning_message'; state: 'redacted' | 'omitted'; hidden_reasoning?: string | null }
    | { message_type: 'tool_call_message'; tool_call: WireToolCall; tool_calls: WireToolCall[] }
    | {
        message_type: 'tool_return_message';
        tool_return: string;
        status: 'success' | 'error';
        tool_call_id: string;
        stdout?: string[] | null;
        stderr?: string[] | null;
        tool_returns: WireToolReturn[];
      }
    | { message_type: 'approval_request_message'; tool_call: WireToolCall; tool_calls: WireToolCall[] }
    | {
        message_type: 'approval_response_message';
        approvals: WireApproval[];
        approve?: boolean | null;
        approval_request_id?: string | null;
        reason?: string | null;
      }
  );

export type LettaMessageType = LettaMessage['message_type'];

export type UsageStatistics = {
  message_type: 'usage_statistics';
  completion_tokens: number;
  prompt_tokens: number;
  total_tokens: number;
  step_count: number;
  run_ids?: string[] | null;
  cached_input_tokens?: number | null;
  cache_write_tokens?: number | null;
  reasoning_tokens?: number | null;
  context_tokens?: number | null;
};

export type StopReasonFrame = { message_type: 'stop_reason'; stop_reason: StopReason };

export type PingFrame = { message_type: 'ping'; id: string; date: string; run_id: string; seq_id?: number | null };

export type ErrorFrame = {
  message_type: 'error_message';
  run_id: string;
  error_type: string;
  message: string;
  detail?: string | null;
  seq_id?: number | null;
};

/** Every frame a run's stream can carry. */
export type StreamFrame = LettaMessage | UsageStatistics | StopReasonFrame | PingFrame | ErrorFrame;

export const STOP_REASONS = [
  'end_turn',
  'error',
  'llm_api_error',
  'invalid_llm_response',
  'invalid_tool_call',
  'max_steps',
  'max_tokens_exceeded',
  'no_tool_call',
  'tool_rule',
  'cancelled',
  'requires_approval',
  'context_window_overflow_in_system_prompt',
] as const;

export type StopReason = (typeof STOP_REASONS)[number];

/** How a run's final status follows from its stop reason. */
export function runStatusFor(stopReason: StopReason): 'completed' | 'failed' | 'cancelled' {
  switch (stopReason) {
    case 'end_turn':
    case 'max_steps':
    case 'tool_rule':
    case 'requires_approval':
      return 'completed';
    case 'cancelled':
      return 'cancelled';
    default:
      return 'failed';
  }
}

/** `2025-01-02T03:04:05+00:00`: seconds precision with an explicit offset, as clients of the API expect. */
export function wireDate(date: Date): string {
  return `${date.toISOString().slice(0, 19)}+00:00`;
}
