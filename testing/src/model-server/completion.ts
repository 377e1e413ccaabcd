import type { ChatMessage, ChatMessageToolCall, ChatRequest, ScriptedReply, Usage } from './types.js';

export type AnswerReply = Extract<ScriptedReply, { type: 'text' | 'tool_calls' }>;

/** A scripted reply resolved against the request it answers, ready to render in either mode. */
export type Answer = {
  id: string;
  created: number;
  model: string;
  content: string | null;
  reasoning: string | undefined;
  toolCalls: ChatMessageToolCall[];
  finishReason: 'stop' | 'length' | 'tool_calls';
  usage: Usage;
};

const CHARACTERS_PER_TOKEN = 4;
/** Enough fragments to exercise argument reassembly, few enough to keep streams short. */
const ARGUMENT_FRAGMENTS = 3;

/** The rough size estimate used wherever a test did not script usage. */
export function estimateTokens(characters: number): number {
  return Math.max(1, Math.ceil(characters / CHARACTERS_PER_TOKEN));
}

function messageCharacters(message: ChatMessage): number {
  const content =
    typeof message.content === 'string'
      ? message.content.length
      : (message.content ?? []).reduce((sum, part) => sum + (typeof part.text === 'string' ? part.text.length : 0), 0);
  const toolCalls = (message.tool_calls ?? []).reduce(
    (sum, call) => sum + call.function.name.length + call.function.arguments.length,
    0,
  );
  return content + toolCalls;
}

export function composeAnswer(reply: AnswerReply, request: ChatRequest, completionNumber: number): Answer {
  const toolCalls: ChatMessageToolCall[] =
    reply.type === 'tool_calls'
      ? reply.calls.map((call, index) => ({
          id: call.id ?? `call_${completionNumber}_${index}`,
          type: 'function',
          function: {
            name: call.name,
            arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
          },
        }))
      : [];
  const content = reply.text ?? null;
  const reasoning = reply.type === 'text' ? reply.reasoning : undefined;

  const replyCharacters =
    (content?.length ?? 0) +
    (reasoning?.length ?? 0) +
    toolCalls.reduce((sum, call) => sum + call.function.name.length + call.function.arguments.length, 0);
  const promptTokens =
    reply.usage?.prompt_tokens ?? estimateTokens(request.messages.reduce((sum, m) => sum + messageCharacters(m), 0));
  const completionTokens = reply.usage?.completion_tokens ?? estimateTokens(replyCharacters);

  return {
    id: `chatcmpl-scripted-${completionNumber}`,
    created: Math.floor(Date.now() / 1000),
    model: request.model,
    content,
    reasoning,
    toolCalls,
    finishReason: reply.type === 'tool_calls' ? 'tool_calls' : (reply.finishReason ?? 'stop'),
    usage: {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: reply.usage?.total_tokens ?? promptTokens + completionTokens,
    },
  };
}

export function completionBody(answer: Answer) {
  return {
    id: answer.id,
    object: 'chat.completion',
    created: answer.created,
    model: answer.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: answer.content,
          refusal: null,
          ...(answer.reasoning === undefined ? {} : { reasoning_content: answer.reasoning }),
          ...(answer.toolCalls.length === 0 ? {} : { tool_calls: answer.toolCalls }),
        },
        logprobs: null,
        finish_reason: answer.finishReason,
      },
    ],
    usage: answer.usage,
  };
}

/** One piece per word, each keeping the whitespace that follows it, so the pieces concatenate back to the text. */
export function splitIntoWords(text: string): string[] {
  return text.match(/\s*\S+\s*/g) ?? (text === '' ? [] : [text]);
}

function splitIntoFragments(text: string): string[] {
  const size = Math.ceil(text.length / ARGUMENT_FRAGMENTS);
  const fragments: string[] = [];
  for (let start = 0; start < text.length; start += size) fragments.push(text.slice(start, start + size));
  return fragments;
}

/** The `chat.completion.chunk` sequence OpenAI streams for this answer, without the closing `[DONE]`. */
export function completionChunks(answer: Answer, includeUsage: boolean): object[] {
  const envelope = { id: answer.id, object: 'chat.completion.chunk', created: answer.created, model: answer.model };
  // OpenAI sends `usage: null` on every chunk but the last once usage was asked for.
  const chunk = (delta: object, finishReason: Answer['finishReason'] | null = null) => ({
    ...envelope,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    ...(includeUsage ? { usage: null } : {}),
  });

  const chunks: object[] = [chunk({ role: 'assistant', content: '' })];
  for (const piece of splitIntoWords(answer.reasoning ?? '')) chunks.push(chunk({ reasoning_content: piece }));
  for (const piece of splitIntoWords(answer.content ?? '')) chunks.push(chunk({ content: piece }));
  answer.toolCalls.forEach((call, index) => {
    chunks.push(
      chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] }),
    );
    for (const fragment of splitIntoFragments(call.function.arguments)) {
      chunks.push(chunk({ tool_calls: [{ index, function: { arguments: fragment } }] }));
    }
  });
  chunks.push(chunk({}, answer.finishReason));
  if (includeUsage) chunks.push({ ...envelope, choices: [], usage: answer.usage });
  return chunks;
}
