import type { PromptContentPart, PromptMessage, PromptToolCall, ReasoningPart, WireProtocol } from '../model.js';
import type { StoredContentPart, StoredMessage, StoredToolCall } from '../stored-message.js';
import { plainText, storedToolReturns } from './stored-content.js';

export type PromptOptions = {
  /**
   * Drop tool calls that have no tool result after them (e.g. an approval request left pending), which
   * providers reject. Off by default: while a call is being answered its result is legitimately missing.
   */
  dropDanglingToolCalls?: boolean;
};

function promptToolCall(call: StoredToolCall): PromptToolCall {
  return { id: call.id, name: call.function.name, arguments: call.function.arguments };
}

function imagePart(source: Record<string, unknown> | undefined): PromptContentPart[] {
  // Parts stored before image sources were checked on arrival may have none.
  const { media_type: mediaType, data } = source ?? {};
  // Remote images are inlined as base64 when the message is accepted; a source without data cannot be sent.
  if (typeof mediaType !== 'string' || typeof data !== 'string') return [];
  return [{ type: 'image', mediaType, data }];
}

function userContent(parts: StoredContentPart[]): string | PromptContentPart[] {
  const [first] = parts;
  if (parts.length === 1 && first?.type === 'text') return first.text;
  return parts.flatMap((part): PromptContentPart[] => {
    if (part.type === 'text') return [{ type: 'text', text: part.text }];
    if (part.type === 'image') return imagePart(part.source);
    return [];
  });
}

const WIRE_PROTOCOLS: ReadonlySet<string> = new Set<WireProtocol>(['openai_chat', 'openai_responses', 'anthropic', 'gemini', 'bedrock']);

function isWireProtocol(protocol: string | undefined): protocol is WireProtocol {
  return protocol !== undefined && WIRE_PROTOCOLS.has(protocol);
}

/** Native reasoning as its provider gave it; reasoning of no known protocol is only text to every provider. */
function reasoningParts(parts: StoredContentPart[]): ReasoningPart[] {
  return parts.flatMap((part): ReasoningPart[] => {
    if (part.type === 'reasoning' && isWireProtocol(part.protocol)) {
      return [{ type: 'reasoning', text: part.reasoning, protocol: part.protocol, signature: part.signature ?? null, itemId: part.item_id ?? null }];
    }
    if (part.type === 'redacted_reasoning' && isWireProtocol(part.protocol)) {
      return [{ type: 'redacted_reasoning', data: part.data, protocol: part.protocol, itemId: part.item_id ?? null }];
    }
    return [];
  });
}

function assistantMessage(message: StoredMessage): PromptMessage {
  const text = plainText(message.content);
  const reasoning = message.content
    .flatMap((part) => (part.type === 'reasoning' ? [part.reasoning] : []))
    .join('\n');
  const toolCalls = (message.toolCalls ?? []).map(promptToolCall);
  const native = reasoningParts(message.content);
  return {
    role: 'assistant',
    content: text === '' ? null : text,
    ...(toolCalls.length > 0 ? { toolCalls } : {}),
    reasoning: reasoning === '' ? null : reasoning,
    ...(native.length > 0 ? { reasoningParts: native } : {}),
  };
}

function promptMessagesOf(message: StoredMessage): PromptMessage[] {
  switch (message.role) {
    case 'system':
      return [{ role: 'system', content: plainText(message.content) }];
    case 'user':
    case 'summary':
      return [{ role: 'user', content: userContent(message.content) }];
    case 'assistant':
      return [assistantMessage(message)];
    case 'tool':
      return storedToolReturns(message).map((toolReturn) => ({
        role: 'tool',
        toolCallId: toolReturn.tool_call_id,
        content: toolReturn.func_response,
      }));
    case 'approval':
      // A response adds nothing by itself: the decision's outcome is stored as a tool message (denials included).
      return message.toolCalls && message.toolCalls.length > 0 ? [assistantMessage(message)] : [];
  }
}

function withoutDanglingToolCalls(messages: PromptMessage[]): PromptMessage[] {
  const answeredLater = new Set<string>();
  const kept: PromptMessage[] = [];
  for (const message of [...messages].reverse()) {
    if (message.role === 'tool') answeredLater.add(message.toolCallId);
    if (message.role !== 'assistant' || !message.toolCalls) {
      kept.push(message);
      continue;
    }
    const answered = message.toolCalls.filter((call) => answeredLater.has(call.id));
    if (answered.length > 0) kept.push({ ...message, toolCalls: answered });
    else if (message.content !== null) {
      kept.push({ role: 'assistant', content: message.content, reasoning: message.reasoning ?? null, ...(message.reasoningParts ? { reasoningParts: message.reasoningParts } : {}) });
    }
  }
  return kept.reverse();
}

/** The provider-neutral prompt for stored history, oldest first. */
export function toPromptMessages(messages: StoredMessage[], options: PromptOptions = {}): PromptMessage[] {
  const prompt = messages.flatMap(promptMessagesOf);
  return options.dropDanglingToolCalls ? withoutDanglingToolCalls(prompt) : prompt;
}
