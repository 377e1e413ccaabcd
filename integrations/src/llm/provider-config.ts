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
  /** Bedrock: the AWS access key id (the secret is `apiKey`); without both, the default credential chain. */
  accessKey?: string | null;
  sessionToken?: string | null;
  /** Bedrock: the AWS region; Vertex AI: the location. */
  region?: string | null;
  /** Azure OpenAI: the `api-version`. */
  apiVersion?: string | null;
  /** Vertex AI: the Google Cloud project. */
  project?: string | null;
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

/**
 * The documented API base URL of each provider type that has one. Types absent here need a base URL (self-hosted
 * servers, Azure's resource endpoint); Google's and AWS's SDKs find their own endpoints (`''`).
 */
export const DOCUMENTED_BASE_URLS: Readonly<Record<string, string>> = {
  openai: 'https://api.openai.com/v1',
  anthropic: 'https://api.anthropic.com/v1',
  google_ai: '',
  google_vertex: '',
  bedrock: '',
  mistral: 'https://api.mistral.ai/v1',
  openrouter: 'https://openrouter.ai/api/v1',
  fireworks: 'https://api.fireworks.ai/inference/v1',
  cerebras: 'https://api.cerebras.ai/v1',
  groq: 'https://api.groq.com/openai/v1',
  together: 'https://api.together.xyz/v1',
  deepseek: 'https://api.deepseek.com/v1',
  xai: 'https://api.x.ai/v1',
  moonshot: 'https://api.moonshot.ai/v1',
  moonshot_coding: 'https://api.kimi.com/coding/v1',
  minimax: 'https://api.minimax.io/v1',
  zai: 'https://api.z.ai/api/paas/v4',
  zai_coding: 'https://api.z.ai/api/coding/paas/v4',
  baseten: 'https://inference.baseten.co/v1',
  'hugging-face': 'https://router.huggingface.co/v1',
};

/** A provider's base URL: the one it was given, else its type's documented one; null when it must be given. */
export function baseUrlFor(providerType: string, given: string | null | undefined): string | null {
  const trimmed = given?.trim().replace(/\/+$/, '');
  if (trimmed) return trimmed;
  return DOCUMENTED_BASE_URLS[providerType] ?? null;
}

/**
 * The providers whose settings are more than a key and a base URL. Each appears when its required variables are
 * set: Gemini with `GEMINI_API_KEY`; Azure OpenAI with `AZURE_API_KEY` and `AZURE_BASE_URL`; Bedrock with
 * `AWS_REGION` (and the access key pair, else the default credential chain); Vertex AI with `VERTEX_PROJECT`
 * (and a service account's JSON key in `VERTEX_CREDENTIALS`, else the workload's own credentials).
 */
export const CLOUD_PROVIDER_ENV = [
  { providerType: 'google_ai', required: ['GEMINI_API_KEY'], optional: ['GEMINI_BASE_URL'] },
  { providerType: 'azure', required: ['AZURE_API_KEY', 'AZURE_BASE_URL'], optional: ['AZURE_API_VERSION'] },
  { providerType: 'bedrock', required: ['AWS_REGION'], optional: ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'BEDROCK_BASE_URL'] },
  { providerType: 'google_vertex', required: ['VERTEX_PROJECT'], optional: ['VERTEX_LOCATION', 'VERTEX_CREDENTIALS', 'VERTEX_BASE_URL'] },
] as const;

function cloudProvider(providerType: string, value: (variable: string) => string | null): BaseProviderConfig {
  const base = { name: providerType, providerType };
  switch (providerType) {
    case 'google_ai':
      return { ...base, apiKey: value('GEMINI_API_KEY'), baseUrl: value('GEMINI_BASE_URL') ?? '' };
    case 'azure':
      return { ...base, apiKey: value('AZURE_API_KEY'), baseUrl: value('AZURE_BASE_URL') ?? '', apiVersion: value('AZURE_API_VERSION') };
    case 'bedrock':
      return {
        ...base,
        apiKey: value('AWS_SECRET_ACCESS_KEY'),
        accessKey: value('AWS_ACCESS_KEY_ID'),
        sessionToken: value('AWS_SESSION_TOKEN'),
        region: value('AWS_REGION'),
        baseUrl: value('BEDROCK_BASE_URL') ?? '',
      };
    default:
      return {
        ...base,
        apiKey: value('VERTEX_CREDENTIALS'),
        project: value('VERTEX_PROJECT'),
        region: value('VERTEX_LOCATION'),
        baseUrl: value('VERTEX_BASE_URL') ?? '',
      };
  }
}

function setting(env: Record<string, string | undefined>, variable: string | null): string | null {
  const value = variable === null ? undefined : env[variable]?.trim();
  return value ? value : null;
}

/** The base providers the environment configures, named after their type as model handles expect (`openai/gpt-4o-mini`). */
export function parseBaseProviders(env: Record<string, string | undefined>): BaseProviderConfig[] {
  const compatible = BASE_PROVIDER_ENV.flatMap((entry): BaseProviderConfig[] => {
    const apiKey = setting(env, entry.keyVariable);
    const baseUrl = setting(env, entry.baseUrlVariable) ?? entry.defaultBaseUrl;
    const configured = entry.keyVariable === null || apiKey !== null;
    if (!configured || baseUrl === null) return [];
    return [{ name: entry.providerType, providerType: entry.providerType, apiKey, baseUrl: baseUrl.replace(/\/+$/, '') }];
  });
  const value = (variable: string) => setting(env, variable);
  const cloud = CLOUD_PROVIDER_ENV.flatMap((entry) =>
    entry.required.every((variable) => value(variable) !== null) ? [cloudProvider(entry.providerType, value)] : [],
  );
  return [...compatible, ...cloud];
}
