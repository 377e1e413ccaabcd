import type { PromptContentPart, PromptMessage, PromptToolCall } from '../model.js';
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

function assistantMessage(message: StoredMessage): PromptMessage {
  const text = plainText(message.content);
  const reasoning = message.content
    .flatMap((part) => (part.type === 'reasoning' ? [part.reasoning] : []))
    .join('\n');
  const toolCalls = (message.toolCalls ?? []).map(promptToolCall);
  return {
    role: 'assistant',
    content: text === '' ? null : text,
    ...(toolCalls.length > 0 ? { toolCalls } : {}),
    reasoning: reasoning === '' ? null : reasoning,
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
    else if (message.content !== null) kept.push({ role: 'assistant', content: message.content, reasoning: message.reasoning ?? null });
  }
  return kept.reverse();
}

/** The provider-neutral prompt for stored history, oldest first. */
export function toPromptMessages(messages: StoredMessage[], options: PromptOptions = {}): PromptMessage[] {
  const prompt = messages.flatMap(promptMessagesOf);
  return options.dropDanglingToolCalls ? withoutDanglingToolCalls(prompt) : prompt;
}
