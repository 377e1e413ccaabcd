import type { ModelSettings } from '@engram/core';
import { describe, expect, it } from 'vitest';
import { ModelCallError } from './errors.js';
import type { BaseProviderConfig } from './provider-config.js';
import { resolveProviderForModel } from './resolve.js';

const openai: BaseProviderConfig = { name: 'openai', providerType: 'openai', apiKey: 'sk', baseUrl: 'https://api.openai.com/v1' };
const lab: BaseProviderConfig = { name: 'lab-gpu', providerType: 'openai', apiKey: null, baseUrl: 'http://lab:8000/v1' };
const anthropic: BaseProviderConfig = { name: 'anthropic', providerType: 'anthropic', apiKey: 'sk-ant', baseUrl: 'https://api.anthropic.com/v1' };

function settings(overrides: Partial<ModelSettings>): ModelSettings {
  return { model: 'gpt-4o-mini', model_endpoint_type: 'openai', context_window: 128_000, ...overrides };
}

function failureOf(run: () => unknown): ModelCallError {
  try {
    run();
  } catch (error) {
    if (error instanceof ModelCallError) return error;
    throw error;
  }
  throw new Error('expected resolution to fail');
}

describe('resolveProviderForModel', () => {
  it('picks the provider the llm_config names', () => {
    expect(resolveProviderForModel(settings({ provider_name: 'lab-gpu' }), [openai, lab])).toBe(lab);
  });

  it('falls back to the provider for the endpoint type', () => {
    expect(resolveProviderForModel(settings({ provider_name: null }), [anthropic, openai])).toBe(openai);
    expect(resolveProviderForModel(settings({ model: 'claude-x', model_endpoint_type: 'anthropic' }), [openai, anthropic])).toBe(anthropic);
  });

  it('names the variables to set when nothing serves the model', () => {
    const error = failureOf(() => resolveProviderForModel(settings({ handle: 'openai/gpt-4o-mini' }), [anthropic]));
    expect(error.kind).toBe('not_configured');
    expect(error.message).toBe(
      "No model provider is configured for 'openai/gpt-4o-mini': set OPENAI_API_KEY (and OPENAI_BASE_URL for a compatible server) or register a provider with POST /v1/providers",
    );
  });

  it('points self-hosted endpoint types at their base URL variable', () => {
    const error = failureOf(() => resolveProviderForModel(settings({ model: 'llama3', model_endpoint_type: 'ollama', provider_name: 'ollama' }), []));
    expect(error.message).toBe(
      "No model provider is configured for 'ollama/llama3': set OLLAMA_BASE_URL or register a provider with POST /v1/providers",
    );
  });

  it('asks to register a provider for endpoint types without environment configuration', () => {
    const error = failureOf(() => resolveProviderForModel(settings({ model: 'm', model_endpoint_type: 'mistral' }), [openai]));
    expect(error.message).toBe("No model provider is configured for 'mistral/m': register a provider with POST /v1/providers");
  });
});
