import { randomUUID } from 'node:crypto';
import type { ModelDelta, ModelRequest, ModelTurn, PromptToolCall, TokenUsage } from '@engram/core';
import { classifyProviderError } from './errors.js';

const CHARACTERS_PER_TOKEN = 4;

function estimateTokens(characters: number): number {
  return Math.ceil(characters / CHARACTERS_PER_TOKEN);
}

function promptCharacters(request: ModelRequest): number {
  return request.messages.reduce((sum, message) => {
    if (message.role === 'assistant') {
      const calls = (message.toolCalls ?? []).reduce((total, call) => total + call.name.length + call.arguments.length, 0);
      return sum + (message.content?.length ?? 0) + calls;
    }
    if (typeof message.content === 'string') return sum + message.content.length;
    return sum + message.content.reduce((total, part) => total + (part.type === 'text' ? part.text.length : 0), 0);
  }, 0);
}

/** For providers that report no usage: a rough count, so context accounting still moves. */
export function estimatedUsage(request: ModelRequest, turn: Pick<ModelTurn, 'text' | 'reasoning' | 'toolCalls'>): TokenUsage {
  const answerCharacters =
    (turn.text?.length ?? 0) +
    (turn.reasoning?.length ?? 0) +
    turn.toolCalls.reduce((sum, call) => sum + call.name.length + call.arguments.length, 0);
  const promptTokens = estimateTokens(promptCharacters(request));
  const completionTokens = estimateTokens(answerCharacters);
  return { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens };
}

/** Adds the cached and reasoning counts a provider reported (left out when it reported none). */
export function withUsageDetails(
  usage: TokenUsage,
  details: { cached?: number | null | undefined; cacheWrite?: number | null | undefined; reasoning?: number | null | undefined },
): TokenUsage {
  return {
    ...usage,
    ...(details.cached ? { cached_input_tokens: details.cached } : {}),
    ...(details.cacheWrite ? { cache_write_tokens: details.cacheWrite } : {}),
    ...(details.reasoning ? { reasoning_tokens: details.reasoning } : {}),
  };
}

/** Collects a streamed answer's fragments, forwarding each to `onDelta` as it arrives. */
export class TurnAssembler {
  private text = '';
  private reasoning = '';
  private readonly toolCalls = new Map<number, PromptToolCall>();

  constructor(private readonly onDelta: ((delta: ModelDelta) => void) | undefined) {}

  addText(fragment: string | null | undefined): void {
    if (!fragment) return;
    this.text += fragment;
    this.onDelta?.({ kind: 'text', text: fragment });
  }

  addReasoning(fragment: string | null | undefined): void {
    if (!fragment) return;
    this.reasoning += fragment;
    this.onDelta?.({ kind: 'reasoning', text: fragment });
  }

  /** Reasoning the client may not read (encrypted or redacted): forwarded as such, kept by the caller. */
  addHiddenReasoning(data: string): void {
    this.onDelta?.({ kind: 'hidden_reasoning', data });
  }

  addToolCallFragment(index: number, fragment: { id?: string | null; name?: string | null; argumentsFragment?: string | null }): void {
    const call = this.toolCalls.get(index) ?? { id: '', name: '', arguments: '' };
    this.toolCalls.set(index, call);
    const { id, name, argumentsFragment } = fragment;
    if (id) call.id = id;
    if (name) call.name = name;
    if (argumentsFragment) call.arguments += argumentsFragment;
    if (!id && !name && !argumentsFragment) return;
    this.onDelta?.({
      kind: 'tool_call',
      index,
      ...(id ? { id } : {}),
      ...(name ? { name } : {}),
      ...(argumentsFragment ? { argumentsFragment } : {}),
    });
  }

  result(): Pick<ModelTurn, 'text' | 'reasoning' | 'toolCalls'> {
    const toolCalls = [...this.toolCalls.entries()]
      .sort(([left], [right]) => left - right)
      .map(([, call]) => ({
        // Some compatible servers stream calls without ids; results must still pair with their call.
        id: call.id || `call_${randomUUID()}`,
        name: call.name,
        arguments: call.arguments,
      }));
    return { text: this.text || null, reasoning: this.reasoning || null, toolCalls };
  }
}

/**
 * The error to throw for a failed call. When the caller's signal aborted, the SDK error only says
 * "aborted": a timeout signal is classified as a timeout, and any other reason (e.g. Temporal's
 * cancellation) is rethrown as is, since it is not a provider failure.
 */
export function callFailure(error: unknown, signal: AbortSignal | undefined): unknown {
  if (signal?.aborted) {
    const reason: unknown = signal.reason;
    return reason instanceof Error && reason.name === 'TimeoutError' ? classifyProviderError(reason) : reason;
  }
  return classifyProviderError(error);
}
