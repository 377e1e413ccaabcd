/** A model provider available to every organization, configured through the worker's environment. */
export type BaseProviderConfig = {
  name: string;
  providerType:
    | 'openai'
    | 'anthropic'
    | 'ollama'
    | 'vllm'
    | 'lmstudio_openai'
    | 'together'
    | 'groq'
    | 'deepseek'
    | 'xai'
    | (string & {});
  apiKey: string | null;
  baseUrl: string;
};

/**
 * How each base provider is configured. Hosted providers appear when their API key is set (their base URL
 * may be overridden); self-hosted servers appear when their base URL is set and need no key.
 */
export const BASE_PROVIDER_ENV = [
  { providerType: 'openai', keyVariable: 'OPENAI_API_KEY', baseUrlVariable: 'OPENAI_BASE_URL', defaultBaseUrl: 'https://api.openai.com/v1' },
  { providerType: 'anthropic', keyVariable: 'ANTHROPIC_API_KEY', baseUrlVariable: 'ANTHROPIC_BASE_URL', defaultBaseUrl: 'https://api.anthropic.com/v1' },
  { providerType: 'groq', keyVariable: 'GROQ_API_KEY', baseUrlVariable: null, defaultBaseUrl: 'https://api.groq.com/openai/v1' },
  { providerType: 'together', keyVariable: 'TOGETHER_API_KEY', baseUrlVariable: null, defaultBaseUrl: 'https://api.together.xyz/v1' },
  { providerType: 'deepseek', keyVariable: 'DEEPSEEK_API_KEY', baseUrlVariable: null, defaultBaseUrl: 'https://api.deepseek.com/v1' },
  { providerType: 'xai', keyVariable: 'XAI_API_KEY', baseUrlVariable: null, defaultBaseUrl: 'https://api.x.ai/v1' },
  { providerType: 'ollama', keyVariable: null, baseUrlVariable: 'OLLAMA_BASE_URL', defaultBaseUrl: null },
  { providerType: 'vllm', keyVariable: null, baseUrlVariable: 'VLLM_API_BASE', defaultBaseUrl: null },
  { providerType: 'lmstudio_openai', keyVariable: null, baseUrlVariable: 'LMSTUDIO_BASE_URL', defaultBaseUrl: null },
] as const;

function setting(env: Record<string, string | undefined>, variable: string | null): string | null {
  const value = variable === null ? undefined : env[variable]?.trim();
  return value ? value : null;
}

/** The base providers the environment configures, named after their type as model handles expect (`openai/gpt-4o-mini`). */
export function parseBaseProviders(env: Record<string, string | undefined>): BaseProviderConfig[] {
  return BASE_PROVIDER_ENV.flatMap((entry): BaseProviderConfig[] => {
    const apiKey = setting(env, entry.keyVariable);
    const baseUrl = setting(env, entry.baseUrlVariable) ?? entry.defaultBaseUrl;
    const configured = entry.keyVariable === null || apiKey !== null;
    if (!configured || baseUrl === null) return [];
    return [{ name: entry.providerType, providerType: entry.providerType, apiKey, baseUrl: baseUrl.replace(/\/+$/, '') }];
  });
}
