import type { ModelRequest, PromptContentPart, PromptMessage, PromptToolCall, ReasoningPart, ToolChoice } from '../model.js';
import { reasoningBudget, reasoningFor } from './wire-protocol.js';

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

/** Thinking blocks go back exactly as Anthropic issued them: the signature proves they are unaltered. */
function thinkingBlocks(parts: ReasoningPart[] | undefined): AnthropicBlock[] {
  return reasoningFor('anthropic', parts).flatMap((part): AnthropicBlock[] => {
    if (part.type === 'redacted_reasoning') return [{ type: 'redacted_thinking', data: part.data }];
    return part.signature ? [{ type: 'thinking', thinking: part.text, signature: part.signature }] : [];
  });
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
      // Reasoning of other providers stays out: Anthropic only accepts thinking blocks with the signature it issued.
      return {
        role: 'assistant',
        content: [
          ...thinkingBlocks(message.reasoningParts),
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

function anthropicToolChoice(choice: ToolChoice, parallelToolCalls: boolean, thinking: boolean): Record<string, unknown> {
  if (choice === 'none') return { type: 'none' };
  // With extended thinking the API accepts only `auto` and `none`.
  if (thinking) return { type: 'auto', disable_parallel_tool_use: !parallelToolCalls };
  const disableParallel = { disable_parallel_tool_use: !parallelToolCalls };
  if (choice === 'auto') return { type: 'auto', ...disableParallel };
  if (choice === 'required') return { type: 'any', ...disableParallel };
  return { type: 'tool', name: choice.name, ...disableParallel };
}

/**
 * Whether this request can think: the agent asks for reasoning, and, while a tool loop goes on, the assistant turn
 * it continues began with Anthropic's thinking (the API requires it then; a turn from another provider has none).
 */
function thinkingAllowed(request: ModelRequest, turns: AnthropicTurn[]): boolean {
  if (request.settings.enable_reasoner !== true) return false;
  const last = turns.at(-1);
  const continuesToolLoop = last?.role === 'user' && last.content.some((block) => block.type === 'tool_result');
  if (!continuesToolLoop) return true;
  const assistant = turns.at(-2);
  const first = assistant?.content[0];
  return first?.type === 'thinking' || first?.type === 'redacted_thinking';
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
  const messages = mergedTurns(request.messages.slice(systemCount));
  const thinking = thinkingAllowed(request, messages);
  const budget = reasoningBudget(settings);
  // The budget must stay below max_tokens, which then also has room for the answer.
  const maxTokens = Math.max(settings.max_tokens ?? DEFAULT_ANTHROPIC_MAX_TOKENS, thinking ? budget + DEFAULT_ANTHROPIC_MAX_TOKENS : 0);
  return {
    model: settings.model,
    max_tokens: maxTokens,
    ...(system ? { system } : {}),
    messages,
    ...(request.tools.length > 0
      ? {
          tools: request.tools.map((tool) => ({ name: tool.name, description: tool.description, input_schema: tool.parameters })),
          tool_choice: anthropicToolChoice(request.toolChoice, request.parallelToolCalls, thinking),
        }
      : {}),
    // Thinking requires the default temperature.
    ...(thinking ? { thinking: { type: 'enabled', budget_tokens: budget } } : {}),
    ...(!thinking && typeof settings.temperature === 'number' ? { temperature: settings.temperature } : {}),
    stream: request.stream,
  };
}
