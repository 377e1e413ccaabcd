import type { Agent, Model, UpdateAgent } from '@engram/console-kit/wire-types';


/** The model settings form: number fields hold what was typed ('' for empty) until they are saved. */
export type ModelDraft = { handle: string; contextWindow: number | string; temperature: number | string; maxTokens: number | string; parallelToolCalls: boolean };

export const handleOf = (model: Model) => model.handle ?? `${model.provider_name}/${model.model}`;

/** The model's own largest context window, which the agent's may not exceed. */
export const maxContextOf = (model: Model | undefined) => model?.max_context_window ?? model?.context_window;

export function draftOf(agent: Agent): ModelDraft {
  const config = agent.llm_config;
  return {
    handle: agent.model ?? config.handle ?? config.model,
    contextWindow: config.context_window,
    temperature: config.temperature ?? '',
    maxTokens: config.max_tokens ?? '',
    parallelToolCalls: config.parallel_tool_calls ?? false,
  };
}

/** An empty number field means "the provider's default". */
const numberOrNull = (value: number | string) => (value === '' ? null : Number(value));

export type ModelDraftErrors = { contextWindow?: string; temperature?: string; maxTokens?: string };

/** What is wrong with the draft, by field; `maxContext` is the chosen model's largest window when known. */
export function modelDraftErrors(draft: ModelDraft, maxContext: number | undefined, formatNumber: (value: number) => string): ModelDraftErrors {
  const contextWindow = Number(draft.contextWindow);
  const temperature = numberOrNull(draft.temperature);
  const maxTokens = numberOrNull(draft.maxTokens);
  const errors: ModelDraftErrors = {};
  if (draft.contextWindow === '' || !Number.isInteger(contextWindow) || contextWindow < 1) errors.contextWindow = 'Enter a context window';
  else if (maxContext && contextWindow > maxContext) errors.contextWindow = `At most ${formatNumber(maxContext)} tokens for this model`;
  if (temperature !== null && (temperature < 0 || temperature > 2)) errors.temperature = 'Between 0 and 2';
  if (maxTokens !== null && (!Number.isInteger(maxTokens) || maxTokens < 1)) errors.maxTokens = 'A whole number of tokens, at least 1';
  return errors;
}

/**
 * What to send for the draft: another model is resolved by the API from its handle (with the window, output limit
 * and settings asked for, and that model's defaults for the rest); the same model keeps its configuration with the
 * changed parameters, an empty one cleared.
 */
export function modelUpdate(agent: Agent, draft: ModelDraft): UpdateAgent {
  const contextWindow = Number(draft.contextWindow);
  const temperature = numberOrNull(draft.temperature);
  const maxTokens = numberOrNull(draft.maxTokens);
  if (draft.handle !== draftOf(agent).handle) {
    return {
      model: draft.handle,
      context_window_limit: contextWindow,
      max_tokens: maxTokens,
      model_settings: { ...(temperature === null ? {} : { temperature }), parallel_tool_calls: draft.parallelToolCalls },
    };
  }
  return { llm_config: { ...agent.llm_config, context_window: contextWindow, temperature, max_tokens: maxTokens, parallel_tool_calls: draft.parallelToolCalls } };
}
