import type { ModelSettings } from '@engram/core';
import { ModelCallError } from './errors.js';
import { BASE_PROVIDER_ENV, CLOUD_PROVIDER_ENV, type BaseProviderConfig } from './provider-config.js';

function configurationHint(endpointType: string): string {
  const cloud = CLOUD_PROVIDER_ENV.find((candidate) => candidate.providerType === endpointType);
  if (cloud) return `set ${cloud.required.join(' and ')} or register a provider with POST /v1/providers`;
  const entry = BASE_PROVIDER_ENV.find((candidate) => candidate.providerType === endpointType);
  if (!entry) return 'register a provider with POST /v1/providers';
  if (entry.keyVariable === null) return `set ${entry.baseUrlVariable} or register a provider with POST /v1/providers`;
  const baseUrlHint = entry.providerType === 'openai' ? ` (and ${entry.baseUrlVariable} for a compatible server)` : '';
  return `set ${entry.keyVariable}${baseUrlHint} or register a provider with POST /v1/providers`;
}

/** The provider that serves an agent's model: the one its llm_config names, else the one for its endpoint type. */
export function resolveProviderForModel(settings: ModelSettings, providers: BaseProviderConfig[]): BaseProviderConfig {
  const provider =
    (settings.provider_name ? providers.find((candidate) => candidate.name === settings.provider_name) : undefined) ??
    providers.find((candidate) => candidate.providerType === settings.model_endpoint_type);
  if (provider) return provider;
  const handle = settings.handle ?? `${settings.provider_name ?? settings.model_endpoint_type}/${settings.model}`;
  throw new ModelCallError(
    'not_configured',
    `No model provider is configured for '${handle}': ${configurationHint(settings.model_endpoint_type)}`,
  );
}
