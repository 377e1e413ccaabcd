import type { ModelRequest, PromptContentPart, PromptMessage, PromptToolCall, ReasoningPart, ToolChoice } from '../model.js';
import { reasoningBudget, reasoningFor } from './wire-protocol.js';

/** Bedrock requires `maxTokens` for some models; used when the agent's llm_config leaves it null. */
export const DEFAULT_BEDROCK_MAX_TOKENS = 4096;

type ConverseBlock = Record<string, unknown>;
type ConverseMessage = { role: 'user' | 'assistant'; content: ConverseBlock[] };

const IMAGE_FORMATS: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpeg', 'image/gif': 'gif', 'image/webp': 'webp' };

function userBlock(part: PromptContentPart): ConverseBlock[] {
  if (part.type === 'text') return part.text ? [{ text: part.text }] : [];
  const format = IMAGE_FORMATS[part.mediaType];
  // Bytes travel base64-encoded in Converse's JSON, as here.
  return format ? [{ image: { format, source: { bytes: part.data } } }] : [];
}

function toolInput(call: PromptToolCall): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(call.arguments);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** Reasoning goes back to Bedrock as it came, with the signature its model issued. */
function reasoningBlocks(parts: ReasoningPart[] | undefined): ConverseBlock[] {
  return reasoningFor('bedrock', parts).flatMap((part): ConverseBlock[] => {
    if (part.type === 'redacted_reasoning') return [{ reasoningContent: { redactedContent: part.data } }];
    return part.signature ? [{ reasoningContent: { reasoningText: { text: part.text, signature: part.signature } } }] : [];
  });
}

function messageOf(message: PromptMessage): ConverseMessage {
  switch (message.role) {
    case 'system':
      return { role: 'user', content: message.content ? [{ text: message.content }] : [] };
    case 'user':
      return {
        role: 'user',
        content: typeof message.content === 'string' ? (message.content ? [{ text: message.content }] : []) : message.content.flatMap(userBlock),
      };
    case 'assistant':
      return {
        role: 'assistant',
        content: [
          ...reasoningBlocks(message.reasoningParts),
          ...(message.content ? [{ text: message.content }] : []),
          ...(message.toolCalls ?? []).map((call) => ({ toolUse: { toolUseId: call.id, name: call.name, input: toolInput(call) } })),
        ],
      };
    case 'tool':
      return { role: 'user', content: [{ toolResult: { toolUseId: message.toolCallId, content: [{ text: message.content }] } }] };
  }
}

/** Converse wants roles to alternate: all results of one turn's tool calls arrive together in the user turn after it. */
function mergedMessages(messages: PromptMessage[]): ConverseMessage[] {
  const merged: ConverseMessage[] = [];
  for (const message of messages) {
    const converse = messageOf(message);
    if (converse.content.length === 0) continue;
    const previous = merged.at(-1);
    if (previous?.role === converse.role) previous.content.push(...converse.content);
    else merged.push(converse);
  }
  return merged;
}

function converseToolChoice(choice: ToolChoice): Record<string, unknown> | undefined {
  // Converse has no `none`: the tools stay declared (the history may use them) and the model chooses.
  if (choice === 'auto' || choice === 'none') return { auto: {} };
  if (choice === 'required') return { any: {} };
  return { tool: { name: choice.name } };
}

/** Claude on Bedrock thinks when asked, as on Anthropic's API, with the same rule for a tool loop's turns. */
function thinkingAllowed(request: ModelRequest, messages: ConverseMessage[]): boolean {
  if (request.settings.enable_reasoner !== true || !request.settings.model.includes('anthropic.')) return false;
  const last = messages.at(-1);
  if (!(last?.role === 'user' && last.content.some((block) => 'toolResult' in block))) return true;
  const first = messages.at(-2)?.content[0];
  return first !== undefined && 'reasoningContent' in first;
}

/** The input of Bedrock's Converse (`POST /model/{modelId}/converse`, or `/converse-stream` when streaming). */
export function buildBedrockConversePayload(request: ModelRequest): Record<string, unknown> {
  const { settings } = request;
  const leadingSystemCount = request.messages.findIndex((message) => message.role !== 'system');
  const systemCount = leadingSystemCount === -1 ? request.messages.length : leadingSystemCount;
  const system = request.messages
    .slice(0, systemCount)
    .flatMap((message) => (message.role === 'system' && message.content ? [{ text: message.content }] : []));
  const messages = mergedMessages(request.messages.slice(systemCount));
  const thinking = thinkingAllowed(request, messages);
  const budget = reasoningBudget(settings);
  const maxTokens = Math.max(settings.max_tokens ?? DEFAULT_BEDROCK_MAX_TOKENS, thinking ? budget + DEFAULT_BEDROCK_MAX_TOKENS : 0);
  return {
    modelId: settings.model,
    messages,
    ...(system.length > 0 ? { system } : {}),
    ...(request.tools.length > 0
      ? {
          toolConfig: {
            tools: request.tools.map((tool) => ({
              toolSpec: { name: tool.name, description: tool.description, inputSchema: { json: tool.parameters } },
            })),
            // With thinking, Claude accepts only `auto`.
            toolChoice: thinking ? { auto: {} } : converseToolChoice(request.toolChoice),
          },
        }
      : {}),
    inferenceConfig: {
      maxTokens,
      ...(!thinking && typeof settings.temperature === 'number' ? { temperature: settings.temperature } : {}),
    },
    ...(thinking ? { additionalModelRequestFields: { thinking: { type: 'enabled', budget_tokens: budget } } } : {}),
  };
}
