import { describe, expect, it } from 'vitest';
import type { Agent } from '@engram/console-kit/wire-types';
import { draftOf, modelDraftErrors, modelUpdate } from './settings-model-draft.js';

const llmConfig = {
  model: 'gpt-4o-mini',
  model_endpoint_type: 'openai',
  handle: 'openai/gpt-4o-mini',
  context_window: 128_000,
  temperature: 0.7,
  max_tokens: null,
  parallel_tool_calls: false,
  frequency_penalty: 0.5,
};

const agent = { id: 'agent-1', model: 'openai/gpt-4o-mini', llm_config: llmConfig } as unknown as Agent;

const plain = (value: number) => String(value);

describe('the model settings draft', () => {
  it('starts from the agent, an unset parameter empty', () => {
    expect(draftOf(agent)).toEqual({ handle: 'openai/gpt-4o-mini', contextWindow: 128_000, temperature: 0.7, maxTokens: '', parallelToolCalls: false });
  });

  it('keeps the configuration of the same model, with the changed parameters and an emptied one cleared', () => {
    const update = modelUpdate(agent, { ...draftOf(agent), contextWindow: 64_000, temperature: '', maxTokens: 512, parallelToolCalls: true });
    expect(update).toEqual({
      llm_config: { ...llmConfig, context_window: 64_000, temperature: null, max_tokens: 512, parallel_tool_calls: true },
    });
  });

  it('asks the API for another model by its handle, with the window, output limit and settings chosen', () => {
    const update = modelUpdate(agent, { handle: 'anthropic/claude-sonnet', contextWindow: 200_000, temperature: 0.2, maxTokens: '', parallelToolCalls: true });
    expect(update).toEqual({
      model: 'anthropic/claude-sonnet',
      context_window_limit: 200_000,
      max_tokens: null,
      model_settings: { temperature: 0.2, parallel_tool_calls: true },
    });
    // An empty temperature leaves the new model's default.
    expect(modelUpdate(agent, { handle: 'anthropic/claude-sonnet', contextWindow: 200_000, temperature: '', maxTokens: '', parallelToolCalls: false })).toMatchObject({
      model_settings: { parallel_tool_calls: false },
    });
  });

  it('names what is wrong, field by field', () => {
    const draft = draftOf(agent);
    expect(modelDraftErrors(draft, 128_000, plain)).toEqual({});
    expect(modelDraftErrors({ ...draft, contextWindow: '' }, 128_000, plain)).toEqual({ contextWindow: 'Enter a context window' });
    expect(modelDraftErrors({ ...draft, contextWindow: 128_001 }, 128_000, plain)).toEqual({ contextWindow: 'At most 128000 tokens for this model' });
    // Without the model's limit (the models could not be read) any positive window goes.
    expect(modelDraftErrors({ ...draft, contextWindow: 1_000_000 }, undefined, plain)).toEqual({});
    expect(modelDraftErrors({ ...draft, temperature: 2.5, maxTokens: 0 }, 128_000, plain)).toEqual({
      temperature: 'Between 0 and 2',
      maxTokens: 'A whole number of tokens, at least 1',
    });
  });
});
