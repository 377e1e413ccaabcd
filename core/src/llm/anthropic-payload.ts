import type { ModelRequest, PromptContentPart, PromptMessage, PromptToolCall, ToolChoice } from '../model.js';

/** Anthropic requires `max_tokens`; this is used when the agent's llm_config leaves it null. */
export const DEFAULT_ANTHROPIC_MAX_TOKENS = 4096;

type AnthropicBlock = Record<string, unknown>;
type AnthropicTurn = { role: 'user' | 'assistant'; content: AnthropicBlock[] };

function contentBlock(part: PromptContentPart): AnthropicBlock {
  if (part.type === 'text') return { type: 'text', text: part.text };
  return { type: 'image', source: { type: 'base64', media_type: part.mediaType, data: part.data } };
}

function toolUseInput(call: PromptToolCall): Record<string, unknown> {
  // tool_use input must be an object; unparsable arguments were already answered with an error result,
  // which tells the model what went wrong.
  try {
    const parsed: unknown = JSON.parse(call.arguments);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function textBlocks(text: string | null): AnthropicBlock[] {
  // The API rejects empty text blocks.
  return text ? [{ type: 'text', text }] : [];
}

function turnOf(message: PromptMessage): AnthropicTurn {
  switch (message.role) {
    case 'system':
      return { role: 'user', content: textBlocks(message.content) };
    case 'user':
      return {
        role: 'user',
        content: typeof message.content === 'string' ? textBlocks(message.content) : message.content.map(contentBlock),
      };
    case 'assistant':
      // Reasoning stays out: Anthropic only accepts thinking blocks with the signature it issued.
      return {
        role: 'assistant',
        content: [
          ...textBlocks(message.content),
          ...(message.toolCalls ?? []).map((call) => ({ type: 'tool_use', id: call.id, name: call.name, input: toolUseInput(call) })),
        ],
      };
    case 'tool':
      return { role: 'user', content: [{ type: 'tool_result', tool_use_id: message.toolCallId, content: message.content }] };
  }
}

/**
 * Consecutive same-role turns become one, so all results of one assistant turn's tool calls arrive together
 * in the user turn right after it, as the API requires.
 */
function mergedTurns(messages: PromptMessage[]): AnthropicTurn[] {
  const turns: AnthropicTurn[] = [];
  for (const message of messages) {
    const turn = turnOf(message);
    if (turn.content.length === 0) continue;
    const previous = turns.at(-1);
    if (previous?.role === turn.role) previous.content.push(...turn.content);
    else turns.push(turn);
  }
  return turns;
}

function anthropicToolChoice(choice: ToolChoice, parallelToolCalls: boolean): Record<string, unknown> {
  if (choice === 'none') return { type: 'none' };
  const disableParallel = { disable_parallel_tool_use: !parallelToolCalls };
  if (choice === 'auto') return { type: 'auto', ...disableParallel };
  if (choice === 'required') return { type: 'any', ...disableParallel };
  return { type: 'tool', name: choice.name, ...disableParallel };
}

/** The JSON body of Anthropic's `POST /v1/messages` for a request. */
export function buildAnthropicMessagesPayload(request: ModelRequest): Record<string, unknown> {
  const { settings } = request;
  // Only leading system messages are the system prompt; later ones (alerts mid-conversation) stay in place as user text.
  const leadingSystemCount = request.messages.findIndex((message) => message.role !== 'system');
  const systemCount = leadingSystemCount === -1 ? request.messages.length : leadingSystemCount;
  const system = request.messages
    .slice(0, systemCount)
    .flatMap((message) => (message.role === 'system' ? [message.content] : []))
    .join('\n\n');
  return {
    model: settings.model,
    max_tokens: settings.max_tokens ?? DEFAULT_ANTHROPIC_MAX_TOKENS,
    ...(system ? { system } : {}),
    messages: mergedTurns(request.messages.slice(systemCount)),
    ...(request.tools.length > 0
      ? {
          tools: request.tools.map((tool) => ({ name: tool.name, description: tool.description, input_schema: tool.parameters })),
          tool_choice: anthropicToolChoice(request.toolChoice, request.parallelToolCalls),
        }
      : {}),
    ...(typeof settings.temperature === 'number' ? { temperature: settings.temperature } : {}),
    stream: request.stream,
  };
}
