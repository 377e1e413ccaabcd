import { describe, expect, it } from 'vitest';
import { baseUrlFor, parseBaseProviders } from './provider-config.js';

describe('parseBaseProviders', () => {
  it('configures nothing from an empty environment', () => {
    expect(parseBaseProviders({})).toEqual([]);
  });

  it('configures hosted providers from their keys, with their public base URLs', () => {
    const providers = parseBaseProviders({
      OPENAI_API_KEY: 'sk-openai',
      ANTHROPIC_API_KEY: 'sk-ant',
      GROQ_API_KEY: 'gsk',
      TOGETHER_API_KEY: 'tg',
      DEEPSEEK_API_KEY: 'ds',
      XAI_API_KEY: 'xai',
    });
    expect(providers).toEqual([
      { name: 'openai', providerType: 'openai', apiKey: 'sk-openai', baseUrl: 'https://api.openai.com/v1' },
      { name: 'anthropic', providerType: 'anthropic', apiKey: 'sk-ant', baseUrl: 'https://api.anthropic.com/v1' },
      { name: 'groq', providerType: 'groq', apiKey: 'gsk', baseUrl: 'https://api.groq.com/openai/v1' },
      { name: 'together', providerType: 'together', apiKey: 'tg', baseUrl: 'https://api.together.xyz/v1' },
      { name: 'deepseek', providerType: 'deepseek', apiKey: 'ds', baseUrl: 'https://api.deepseek.com/v1' },
      { name: 'xai', providerType: 'xai', apiKey: 'xai', baseUrl: 'https://api.x.ai/v1' },
    ]);
  });

  it('lets OPENAI_BASE_URL point the openai provider at a compatible server', () => {
    expect(parseBaseProviders({ OPENAI_API_KEY: 'local', OPENAI_BASE_URL: 'http://127.0.0.1:8080/v1/' })).toEqual([
      { name: 'openai', providerType: 'openai', apiKey: 'local', baseUrl: 'http://127.0.0.1:8080/v1' },
    ]);
  });

  it('does not configure a hosted provider from its base URL alone', () => {
    expect(parseBaseProviders({ OPENAI_BASE_URL: 'http://127.0.0.1:8080/v1', ANTHROPIC_BASE_URL: 'http://proxy' })).toEqual([]);
  });

  it('configures self-hosted servers from their base URLs, without keys', () => {
    expect(
      parseBaseProviders({
        OLLAMA_BASE_URL: 'http://localhost:11434',
        VLLM_API_BASE: 'http://gpu-box:8000/v1',
        LMSTUDIO_BASE_URL: 'http://localhost:1234',
      }),
    ).toEqual([
      { name: 'ollama', providerType: 'ollama', apiKey: null, baseUrl: 'http://localhost:11434' },
      { name: 'vllm', providerType: 'vllm', apiKey: null, baseUrl: 'http://gpu-box:8000/v1' },
      { name: 'lmstudio_openai', providerType: 'lmstudio_openai', apiKey: null, baseUrl: 'http://localhost:1234' },
    ]);
  });

  it('treats blank variables as unset', () => {
    expect(parseBaseProviders({ OPENAI_API_KEY: '  ', OLLAMA_BASE_URL: '' })).toEqual([]);
  });

  it('configures the cloud providers from their own variables, each once its required ones are set', () => {
    expect(parseBaseProviders({ AZURE_API_KEY: 'az', AWS_ACCESS_KEY_ID: 'AKIA', VERTEX_LOCATION: 'europe-west4' })).toEqual([]);
    expect(
      parseBaseProviders({
        GEMINI_API_KEY: 'gem',
        AZURE_API_KEY: 'az',
        AZURE_BASE_URL: 'https://my.openai.azure.com',
        AZURE_API_VERSION: '2025-03-01-preview',
        AWS_REGION: 'eu-central-1',
        AWS_ACCESS_KEY_ID: 'AKIA1',
        AWS_SECRET_ACCESS_KEY: 'secret',
        VERTEX_PROJECT: 'my-project',
      }),
    ).toEqual([
      { name: 'google_ai', providerType: 'google_ai', apiKey: 'gem', baseUrl: '' },
      { name: 'azure', providerType: 'azure', apiKey: 'az', baseUrl: 'https://my.openai.azure.com', apiVersion: '2025-03-01-preview' },
      { name: 'bedrock', providerType: 'bedrock', apiKey: 'secret', accessKey: 'AKIA1', sessionToken: null, region: 'eu-central-1', baseUrl: '' },
      // No key: Vertex AI uses the workload's own credentials.
      { name: 'google_vertex', providerType: 'google_vertex', apiKey: null, project: 'my-project', region: null, baseUrl: '' },
    ]);
  });

  it('knows the documented base URL of the OpenAI-compatible services, and which types need one given', () => {
    expect(baseUrlFor('mistral', null)).toBe('https://api.mistral.ai/v1');
    expect(baseUrlFor('openrouter', '')).toBe('https://openrouter.ai/api/v1');
    expect(baseUrlFor('fireworks', 'https://proxy.example/v1/')).toBe('https://proxy.example/v1');
    expect(baseUrlFor('vllm', null)).toBeNull();
    expect(baseUrlFor('azure', null)).toBeNull();
    expect(baseUrlFor('bedrock', null)).toBe('');
  });
});
