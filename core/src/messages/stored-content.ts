import type { RunInputMessage } from '../run-request.js';
import type { StoredContentPart, StoredMessage, StoredToolReturn } from '../stored-message.js';

/** A send's input message as it is stored: a plain string becomes one text part, parts are kept as sent. */
export function runInputContent(input: RunInputMessage): StoredContentPart[] {
  return typeof input.content === 'string' ? [{ type: 'text', text: input.content }] : (input.content as StoredContentPart[]);
}

/** The text parts of a stored message, joined; reasoning and images are not text. */
export function plainText(parts: StoredContentPart[]): string {
  return parts
    .flatMap((part) => (part.type === 'text' ? [part.text] : []))
    .join('\n');
}

/**
 * The returns a `tool` message carries. A row written with only `toolCallId` and text content still
 * counts as one return, so older or hand-inserted rows stay visible instead of vanishing from history.
 */
export function storedToolReturns(message: StoredMessage): StoredToolReturn[] {
  if (message.toolReturns && message.toolReturns.length > 0) return message.toolReturns;
  if (message.toolCallId === null) return [];
  return [
    {
      tool_call_id: message.toolCallId,
      status: message.isErr ? 'error' : 'success',
      func_response: plainText(message.content),
    },
  ];
}

/**
 * What an assistant message said to whoever it answers: its text, and for agents that speak through a tool the
 * `message` argument of its send_message calls. Empty for a message that only called other tools.
 */
export function spokenText(message: Pick<StoredMessage, 'role' | 'content' | 'toolCalls'>, assistantTool = { name: 'send_message', kwarg: 'message' }): string {
  if (message.role !== 'assistant') return '';
  const spoken = [plainText(message.content)];
  for (const call of message.toolCalls ?? []) {
    if (call.function.name !== assistantTool.name) continue;
    try {
      const args = JSON.parse(call.function.arguments || '{}') as Record<string, unknown>;
      if (typeof args[assistantTool.kwarg] === 'string') spoken.push(args[assistantTool.kwarg] as string);
    } catch {
      // Arguments that are not JSON said nothing readable.
    }
  }
  return spoken.filter((text) => text.trim() !== '').join('\n');
}
