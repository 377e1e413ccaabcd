/** A connection field of the add-provider form. */
export type FieldKey = 'apiKey' | 'baseUrl' | 'accessKey' | 'region' | 'apiVersion';

export type FieldSpec = {
  key: FieldKey;
  label: string;
  description: string;
  required: boolean;
  /** Shown masked, never again once stored. */
  secret?: boolean;
  /** A block of text (a JSON key file). */
  multiline?: boolean;
  placeholder?: string;
};

/** What one provider type asks for: its fields, in order, and how its models are named. */
export type ProviderForm = { label: string; hint: string; fields: FieldSpec[] };

const apiKey = (label = 'API key'): FieldSpec => ({ key: 'apiKey', label, description: 'Stored encrypted; never shown again, only masked.', required: true, secret: true });

const optionalBaseUrl = (endpoint: string): FieldSpec => ({ key: 'baseUrl', label: 'Base URL', description: `Leave empty for ${endpoint}`, required: false });

/** The documented endpoints of the OpenAI-compatible services (the API knows the same ones). */
const COMPATIBLE_SERVICES: Record<string, [label: string, endpoint: string]> = {
  openai: ['OpenAI', 'https://api.openai.com/v1'],
  mistral: ['Mistral', 'https://api.mistral.ai/v1'],
  openrouter: ['OpenRouter', 'https://openrouter.ai/api/v1'],
  fireworks: ['Fireworks', 'https://api.fireworks.ai/inference/v1'],
  cerebras: ['Cerebras', 'https://api.cerebras.ai/v1'],
  groq: ['Groq', 'https://api.groq.com/openai/v1'],
  together: ['Together', 'https://api.together.xyz/v1'],
  deepseek: ['DeepSeek', 'https://api.deepseek.com/v1'],
  xai: ['xAI', 'https://api.x.ai/v1'],
  moonshot: ['Moonshot', 'https://api.moonshot.ai/v1'],
  minimax: ['MiniMax', 'https://api.minimax.io/v1'],
  zai: ['Z.ai', 'https://api.z.ai/api/paas/v4'],
  baseten: ['Baseten', 'https://inference.baseten.co/v1'],
  'hugging-face': ['Hugging Face', 'https://router.huggingface.co/v1'],
};

const SELF_HOSTED: Record<string, [label: string, example: string]> = {
  ollama: ['Ollama', 'http://localhost:11434'],
  vllm: ['vLLM', 'http://localhost:8000/v1'],
  lmstudio_openai: ['LM Studio', 'http://localhost:1234/v1'],
  sglang: ['SGLang', 'http://localhost:30000/v1'],
};

const CLOUD_FORMS: Record<string, ProviderForm> = {
  anthropic: { label: 'Anthropic', hint: 'Claude models, with extended thinking.', fields: [apiKey(), optionalBaseUrl('https://api.anthropic.com/v1')] },
  google_ai: { label: 'Google Gemini API', hint: 'Gemini models with a key from Google AI Studio.', fields: [apiKey('Gemini API key'), optionalBaseUrl("Google's endpoint")] },
  google_vertex: {
    label: 'Google Vertex AI',
    hint: "Gemini on Vertex AI, with a service account's JSON key; the key's project is used.",
    fields: [
      { key: 'apiKey', label: 'Service account JSON key', description: 'The whole key file, as downloaded. Stored encrypted.', required: true, secret: true, multiline: true, placeholder: '{"type": "service_account", …}' },
      { key: 'region', label: 'Location', description: 'Leave empty for us-central1.', required: false, placeholder: 'us-central1' },
      optionalBaseUrl("the location's endpoint"),
    ],
  },
  azure: {
    label: 'Azure OpenAI',
    hint: 'Models are named after your deployments (<name>/<deployment>).',
    fields: [
      { key: 'baseUrl', label: 'Endpoint', description: "Your resource's endpoint.", required: true, placeholder: 'https://my-resource.openai.azure.com' },
      { ...apiKey('API key'), description: 'A resource key, or "Bearer <token>" for a Microsoft Entra ID token. Stored encrypted.' },
      { key: 'apiVersion', label: 'API version', description: 'Leave empty for 2024-10-21.', required: false, placeholder: '2024-10-21' },
    ],
  },
  bedrock: {
    label: 'Amazon Bedrock',
    hint: "Bedrock's foundation models through Converse, signed with your AWS keys.",
    fields: [
      { key: 'accessKey', label: 'Access key ID', description: 'An IAM access key allowed to invoke the models.', required: true, secret: true, placeholder: 'AKIA…' },
      { ...apiKey('Secret access key') },
      { key: 'region', label: 'Region', description: 'Where the models run.', required: true, placeholder: 'us-east-1' },
      { key: 'baseUrl', label: 'Endpoint', description: "Leave empty for the region's Bedrock endpoint.", required: false },
    ],
  },
};

export const PROVIDER_TYPES = [...Object.keys(COMPATIBLE_SERVICES).slice(0, 1), ...Object.keys(CLOUD_FORMS), ...Object.keys(COMPATIBLE_SERVICES).slice(1), ...Object.keys(SELF_HOSTED)];

/** The form of a provider type: its own fields for the clouds, a key and a URL for OpenAI-compatible servers. */
export function providerForm(providerType: string): ProviderForm {
  const cloud = CLOUD_FORMS[providerType];
  if (cloud) return cloud;
  const service = COMPATIBLE_SERVICES[providerType];
  if (service) return { label: service[0], hint: 'Speaks the OpenAI Chat Completions API.', fields: [apiKey(), optionalBaseUrl(service[1])] };
  const [label, example] = SELF_HOSTED[providerType] ?? [providerType, 'http://localhost:8000/v1'];
  return {
    label,
    hint: 'A server of your own speaking the OpenAI API.',
    fields: [
      { key: 'baseUrl', label: 'Base URL', description: 'Where your server listens.', required: true, placeholder: example },
      { ...apiKey(), description: 'Any text if the server takes no key. Stored encrypted.' },
    ],
  };
}

/** The endpoint shown for a stored provider without a base URL of its own. */
export function defaultEndpoint(providerType: string): string | null {
  return COMPATIBLE_SERVICES[providerType]?.[1] ?? (providerType === 'anthropic' ? 'https://api.anthropic.com/v1' : null);
}
