import type { AgentType } from '@engram/core';
import type { ContentPart, Message } from '@engram/db';
import { UnprocessableError } from '../../errors.js';

/** An edit of one stored message through the API, by the LettaMessage type the client sees it as. */
export type MessageEdit =
  | { message_type: 'user_message'; content: string | Array<Record<string, unknown>> }
  | { message_type: 'assistant_message'; content: string | Array<{ type: 'text'; text: string }> }
  | { message_type: 'system_message'; content: string }
  | { message_type: 'reasoning_message'; reasoning: string };

/** The stored fields an edit rewrites: always the content, and the tool calls when the text lives in one. */
export type MessagePatch = Pick<Message, 'content'> & Partial<Pick<Message, 'toolCalls'>>;

/** The tool whose calls legacy agents speak through, as message listings read it by default. */
const ASSISTANT_TOOL = { name: 'send_message', kwarg: 'message' };

const isText = (part: ContentPart) => part.type === 'text';
const isReasoning = (part: ContentPart) => part.type === 'reasoning';

function textParts(content: string | Array<{ type: 'text'; text: string }>): ContentPart[] {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : content.map((part) => ({ type: 'text', text: part.text }));
}

/** `parts` with the ones `isTarget` picks replaced by `replacement`, placed where the first of them was; null when none is picked. */
function replaceParts(parts: ContentPart[], isTarget: (part: ContentPart) => boolean, replacement: ContentPart[]): ContentPart[] | null {
  const first = parts.findIndex(isTarget);
  if (first === -1) return null;
  const rest = parts.slice(first).filter((part) => !isTarget(part));
  return [...parts.slice(0, first), ...replacement, ...rest];
}

function mismatch(message: Message, messageType: MessageEdit['message_type']): UnprocessableError {
  return new UnprocessableError(
    ['body', 'message_type'],
    `Message ${message.id} is a ${message.role} message with no ${messageType} part; it cannot be edited as a ${messageType}`,
  );
}

/** Legacy agents' assistant text is the `message` argument of their send_message calls. */
function withAssistantToolText(message: Message, text: string): MessagePatch | null {
  let edited = false;
  const toolCalls = (message.toolCalls ?? []).map((call) => {
    if (call.function.name !== ASSISTANT_TOOL.name) return call;
    let args: Record<string, unknown> = {};
    try {
      args = JSON.parse(call.function.arguments || '{}') as Record<string, unknown>;
    } catch {
      // Unreadable arguments are replaced whole by the edit.
    }
    edited = true;
    return { ...call, function: { ...call.function, arguments: JSON.stringify({ ...args, [ASSISTANT_TOOL.kwarg]: text }) } };
  });
  return edited ? { content: message.content, toolCalls } : null;
}

/**
 * The stored form of `message` after `edit`. Which parts an edit touches follows how the message is listed:
 * for `letta_v1_agent` text is the assistant message and reasoning parts are reasoning; for older agent types
 * text is inner monologue (reasoning) and the assistant speaks through send_message. Other parts (images,
 * tool calls) are kept.
 */
export function editedMessage(message: Message, agentType: AgentType, edit: MessageEdit): MessagePatch {
  const textIsAssistant = agentType === 'letta_v1_agent';
  switch (edit.message_type) {
    case 'user_message':
      // A compaction summary is listed as a user message, so it is edited as one.
      if (message.role !== 'user' && message.role !== 'summary') throw mismatch(message, edit.message_type);
      return {
        content: typeof edit.content === 'string' ? [{ type: 'text', text: edit.content }] : (edit.content as ContentPart[]),
      };
    case 'system_message':
      if (message.role !== 'system') throw mismatch(message, edit.message_type);
      return { content: [{ type: 'text', text: edit.content }] };
    case 'assistant_message': {
      if (message.role !== 'assistant') throw mismatch(message, edit.message_type);
      if (!textIsAssistant) {
        const text = typeof edit.content === 'string' ? edit.content : edit.content.map((part) => part.text).join('');
        const patched = withAssistantToolText(message, text);
        if (!patched) throw mismatch(message, edit.message_type);
        return patched;
      }
      const content = replaceParts(message.content, isText, textParts(edit.content));
      if (!content) throw mismatch(message, edit.message_type);
      return { content };
    }
    case 'reasoning_message': {
      if (message.role !== 'assistant') throw mismatch(message, edit.message_type);
      const isNative = message.content.some((part) => part.type === 'reasoning' && part.is_native === true);
      // An edited thought no longer matches the signature its provider issued for it, so none is kept.
      const content = textIsAssistant
        ? replaceParts(message.content, isReasoning, [{ type: 'reasoning', reasoning: edit.reasoning, is_native: isNative }])
        : replaceParts(message.content, isText, [{ type: 'text', text: edit.reasoning }]);
      if (!content) throw mismatch(message, edit.message_type);
      return { content };
    }
  }
}
