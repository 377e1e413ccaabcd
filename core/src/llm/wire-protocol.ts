import type { ModelSettings, ReasoningPart, WireProtocol } from '../model.js';

/** OpenAI's reasoning models: their reasoning is only given through the Responses API. */
const OPENAI_REASONING_MODEL = /^(o\d|gpt-5|codex-)/;

/**
 * Whether a model of an OpenAI or Azure OpenAI provider is called through the Responses API: reasoning models,
 * and any model whose agent asks for the model's reasoning (`enable_reasoner`), since only that API returns it.
 */
export function usesResponsesApi(settings: Pick<ModelSettings, 'model' | 'enable_reasoner'>): boolean {
  return settings.enable_reasoner === true || OPENAI_REASONING_MODEL.test(settings.model);
}

/** The wire protocol that serves a model: a provider type speaks one (OpenAI-compatible servers speak Chat Completions). */
export function wireProtocolFor(settings: Pick<ModelSettings, 'model' | 'model_endpoint_type' | 'enable_reasoner'>): WireProtocol {
  switch (settings.model_endpoint_type) {
    case 'anthropic':
      return 'anthropic';
    case 'google_ai':
    case 'google_vertex':
      return 'gemini';
    case 'bedrock':
      return 'bedrock';
    case 'openai':
    case 'azure':
      return usesResponsesApi(settings) ? 'openai_responses' : 'openai_chat';
    default:
      return 'openai_chat';
  }
}

/** The reasoning a protocol can take back: parts another protocol produced are only text to it, and are left out. */
export function reasoningFor(protocol: WireProtocol, parts: ReasoningPart[] | undefined): ReasoningPart[] {
  return (parts ?? []).filter((part) => part.protocol === protocol);
}

/** The reasoning budget when the agent asks for reasoning without naming one. */
export const DEFAULT_REASONING_BUDGET = 1024;

export function reasoningBudget(settings: Pick<ModelSettings, 'max_reasoning_tokens'>): number {
  return settings.max_reasoning_tokens && settings.max_reasoning_tokens > 0 ? settings.max_reasoning_tokens : DEFAULT_REASONING_BUDGET;
}
