import type { AgentType } from '../agent-state.js';
import { wireDate, type LettaMessage, type MessageCommon, type OtherContentPart, type TextContent, type WireApproval, type WireToolCall, type WireToolReturn } from '../letta-message.js';
import type { StoredApproval, StoredContentPart, StoredMessage, StoredToolCall, StoredToolReturn } from '../stored-message.js';
import { plainText, storedToolReturns } from './stored-content.js';

export type LettaMessageOptions = {
  agentType: AgentType;
  /** Default true. */
  useAssistantMessage?: boolean;
  /** Default `send_message`. */
  assistantMessageToolName?: string;
  /** Default `message`. */
  assistantMessageToolKwarg?: string;
};

/** A LettaMessage without the fields every part of one stored message shares. */
type LettaMessageBody = LettaMessage extends infer Message
  ? Message extends unknown
    ? Omit<Message, keyof MessageCommon>
    : never
  : never;

type ResolvedOptions = {
  textIsAssistantMessage: boolean;
  /** The tool whose calls read as assistant messages (legacy agents only), or null when none does. */
  assistantTool: { name: string; kwarg: string } | null;
};

function resolveOptions(options: LettaMessageOptions): ResolvedOptions {
  const textIsAssistantMessage = options.agentType === 'letta_v1_agent';
  const useAssistantMessage = options.useAssistantMessage ?? true;
  return {
    textIsAssistantMessage,
    assistantTool:
      !textIsAssistantMessage && useAssistantMessage
        ? { name: options.assistantMessageToolName ?? 'send_message', kwarg: options.assistantMessageToolKwarg ?? 'message' }
        : null,
  };
}

/**
 * The otid of the `index`-th LettaMessage expanded from one stored message.
 *
 * Why: clients deduplicate and concatenate streamed deltas by otid, so each part needs its own otid that
 * is stable across listing and streaming and computable before the row exists (core has no randomness).
 * The uuid of `message-<uuid>` with its last two hex digits replaced by the part index (00, 01, …) is all
 * of that, stays uuid-shaped, and keeps the last hex digit equal to the index as clients expect.
 */
export function deriveOtid(messageId: string, index: number): string {
  const uuid = messageId.slice(messageId.indexOf('-') + 1);
  const suffix = index.toString(16).padStart(2, '0');
  return uuid.slice(0, uuid.length - suffix.length) + suffix;
}

function wireToolCall(call: StoredToolCall): WireToolCall {
  return { name: call.function.name, arguments: call.function.arguments, tool_call_id: call.id };
}

function wireToolReturn(toolReturn: StoredToolReturn): WireToolReturn {
  return {
    type: 'tool',
    tool_return: toolReturn.func_response,
    status: toolReturn.status,
    tool_call_id: toolReturn.tool_call_id,
    stdout: toolReturn.stdout ?? null,
    stderr: toolReturn.stderr ?? null,
  };
}

function wireApproval(approval: StoredApproval): WireApproval {
  if (approval.type === 'approval') {
    return { type: 'approval', tool_call_id: approval.tool_call_id, approve: approval.approve ?? false, reason: approval.reason ?? null };
  }
  return {
    type: 'tool',
    tool_return: approval.tool_return ?? '',
    status: approval.status ?? 'success',
    tool_call_id: approval.tool_call_id,
  };
}

function userContent(parts: StoredContentPart[]): string | Array<TextContent | OtherContentPart> {
  const [first] = parts;
  if (parts.length === 1 && first?.type === 'text') return first.text;
  return parts.map((part) => (part.type === 'text' ? { type: 'text', text: part.text } : { ...part }));
}

function contentBodies(parts: StoredContentPart[], options: ResolvedOptions): LettaMessageBody[] {
  return parts.flatMap((part): LettaMessageBody[] => {
    switch (part.type) {
      case 'reasoning':
        return [
          {
            message_type: 'reasoning_message',
            source: part.is_native ? 'reasoner_model' : 'non_reasoner_model',
            reasoning: part.reasoning,
            signature: part.signature ?? null,
          },
        ];
      case 'redacted_reasoning':
        return [{ message_type: 'hidden_reasoning_message', state: 'redacted', hidden_reasoning: part.data }];
      case 'text':
        // Legacy agents speak through send_message, so their plain text is inner monologue.
        return options.textIsAssistantMessage
          ? [{ message_type: 'assistant_message', content: part.text }]
          : [{ message_type: 'reasoning_message', source: 'non_reasoner_model', reasoning: part.text, signature: part.signature ?? null }];
      case 'image':
        return [];
    }
  });
}

/** The `message` argument of an assistant-tool call, or null when the call is not one or cannot be read. */
function assistantToolText(call: StoredToolCall, options: ResolvedOptions): string | null {
  if (options.assistantTool === null || call.function.name !== options.assistantTool.name) return null;
  try {
    const parsed: unknown = JSON.parse(call.function.arguments);
    if (typeof parsed !== 'object' || parsed === null) return null;
    const text = (parsed as Record<string, unknown>)[options.assistantTool.kwarg];
    return typeof text === 'string' ? text : null;
  } catch {
    return null;
  }
}

function toolCallBodies(calls: StoredToolCall[], options: ResolvedOptions): LettaMessageBody[] {
  return calls.map((call): LettaMessageBody => {
    const text = assistantToolText(call, options);
    if (text !== null) return { message_type: 'assistant_message', content: text };
    const wireCall = wireToolCall(call);
    return { message_type: 'tool_call_message', tool_call: wireCall, tool_calls: [wireCall] };
  });
}

function toolReturnBodies(message: StoredMessage, options: ResolvedOptions): LettaMessageBody[] {
  // The call already reads as an assistant message, so its bookkeeping return is hidden too. Tool rows
  // carry the tool's name, which legacy agents (one call per step) make unambiguous.
  if (options.assistantTool !== null && message.name === options.assistantTool.name) return [];
  return storedToolReturns(message).map((toolReturn): LettaMessageBody => {
    const wire = wireToolReturn(toolReturn);
    return {
      message_type: 'tool_return_message',
      tool_return: wire.tool_return,
      status: wire.status,
      tool_call_id: wire.tool_call_id,
      stdout: wire.stdout ?? null,
      stderr: wire.stderr ?? null,
      tool_returns: [wire],
    };
  });
}

function approvalBodies(message: StoredMessage, options: ResolvedOptions): LettaMessageBody[] {
  const bodies: LettaMessageBody[] = [];
  const [firstCall] = message.toolCalls ?? [];
  if (message.toolCalls && firstCall) {
    bodies.push(...contentBodies(message.content, options), {
      message_type: 'approval_request_message',
      tool_call: wireToolCall(firstCall),
      tool_calls: message.toolCalls.map(wireToolCall),
    });
  }
  const [firstApproval] = message.approvals ?? [];
  if (message.approvals && firstApproval) {
    bodies.push({
      message_type: 'approval_response_message',
      approvals: message.approvals.map(wireApproval),
      approve: firstApproval.approve ?? null,
      approval_request_id: firstApproval.tool_call_id,
      reason: firstApproval.reason ?? null,
    });
  }
  return bodies;
}

function bodiesOf(message: StoredMessage, options: ResolvedOptions): LettaMessageBody[] {
  switch (message.role) {
    case 'system':
      return [{ message_type: 'system_message', content: plainText(message.content) }];
    case 'user':
    // A compaction summary is shown the way the model reads it: as a user turn.
    case 'summary':
      return [{ message_type: 'user_message', content: userContent(message.content) }];
    case 'assistant':
      return [...contentBodies(message.content, options), ...toolCallBodies(message.toolCalls ?? [], options)];
    case 'tool':
      return toolReturnBodies(message, options);
    case 'approval':
      return approvalBodies(message, options);
  }
}

/** Whether the row holds client input, whose own otid is the one the client will dedupe against. */
function carriesClientOtid(message: StoredMessage): boolean {
  return message.role === 'user' || (message.role === 'approval' && (message.approvals?.length ?? 0) > 0);
}

/** The LettaMessages one stored message expands into, in the order the API lists them. */
export function toLettaMessages(message: StoredMessage, options: LettaMessageOptions): LettaMessage[] {
  const date = wireDate(message.createdAt);
  return bodiesOf(message, resolveOptions(options)).map((body, index) => {
    const common: MessageCommon = {
      id: message.id,
      date,
      name: message.name,
      otid: index === 0 && message.otid !== null && carriesClientOtid(message) ? message.otid : deriveOtid(message.id, index),
      sender_id: message.senderId,
      step_id: message.stepId,
      run_id: message.runId,
      is_err: message.isErr === true ? true : null,
    };
    return { ...common, ...body };
  });
}

/**
 * Keeps the messages whose type is listed. No list, or an empty one, keeps everything, as the
 * reference server treats `include_return_message_types: []`.
 */
export function filterMessageTypes(messages: LettaMessage[], includeTypes?: readonly string[] | null): LettaMessage[] {
  if (!includeTypes || includeTypes.length === 0) return messages;
  const included = new Set(includeTypes);
  return messages.filter((message) => included.has(message.message_type));
}
