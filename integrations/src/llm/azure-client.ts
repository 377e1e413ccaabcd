import { AzureOpenAI } from 'openai';
import { ModelCallError } from './errors.js';
import type { ModelClientProvider } from './types.js';

/** The `api-version` used when the provider names none: the newest generally available data-plane version. */
export const DEFAULT_AZURE_API_VERSION = '2024-10-21';

/** An `api_key` written `Bearer <token>` is a Microsoft Entra ID access token rather than a resource key. */
const ENTRA_TOKEN_PREFIX = /^bearer\s+/i;

/**
 * The SDK's Azure OpenAI client: the resource endpoint, the `api-version`, and a key (`api-key` header) or an
 * Entra ID token. A model id is the deployment's name, which goes into the path (`/openai/deployments/{name}/…`).
 */
export function azureOpenAiClient(provider: ModelClientProvider): AzureOpenAI {
  const endpoint = provider.baseUrl.replace(/\/+$/, '').replace(/\/openai(\/v1)?$/, '');
  if (!endpoint) throw new ModelCallError('not_configured', `The azure provider '${provider.name ?? 'azure'}' needs its resource endpoint as base_url`);
  const key = provider.apiKey ?? '';
  const credentials = ENTRA_TOKEN_PREFIX.test(key)
    ? { azureADTokenProvider: async () => key.replace(ENTRA_TOKEN_PREFIX, '') }
    : { apiKey: key };
  return new AzureOpenAI({
    endpoint,
    apiVersion: provider.apiVersion ?? DEFAULT_AZURE_API_VERSION,
    ...credentials,
    // Retries belong to Temporal's activity retry policy, which knows the error kinds.
    maxRetries: 0,
    ...(provider.fetch ? { fetch: provider.fetch } : {}),
  });
}
