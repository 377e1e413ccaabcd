import { baseUrlFor, createModelClient, ModelCallError, type ModelClientProvider } from '@engram/integrations/llm';
import { BadRequestError, UnauthorizedError, UpstreamError, UpstreamTimeoutError } from '../../errors.js';
import type { ProviderConnection } from './types.js';

/** A model list is interactive: a provider slower than this counts as unreachable. */
const LIST_MODELS_TIMEOUT_MS = 5_000;

type ConnectionFields = { provider_type: string; api_key?: string | null; base_url?: string | null; access_key?: string | null; region?: string | null };

/** What each provider type cannot do without, said in words before anything is stored or called. */
export function requireConnectionFields(input: ConnectionFields): void {
  const missing = (field: string, why: string) => new BadRequestError(`A ${input.provider_type} provider needs ${field}: ${why}`);
  switch (input.provider_type) {
    case 'azure':
      if (!input.base_url) throw missing('base_url', 'its resource endpoint, e.g. https://my-resource.openai.azure.com');
      break;
    case 'bedrock':
      if (!input.access_key) throw missing('access_key', 'the AWS access key id (api_key is the secret access key)');
      if (!input.region) throw missing('region', 'the AWS region of the models, e.g. us-east-1');
      break;
    case 'google_vertex':
      if (!input.api_key?.trim().startsWith('{')) throw missing('api_key', "a service account's JSON key (its project_id names the project; region is the location)");
      break;
    default:
      if (baseUrlFor(input.provider_type, input.base_url) === null) throw missing('base_url', 'the address of its OpenAI-compatible API');
  }
}

/** A connection as the model clients reach it. */
export function clientProviderOf(connection: ProviderConnection): ModelClientProvider {
  const baseUrl = baseUrlFor(connection.providerType, connection.baseUrl);
  if (baseUrl === null) throw new BadRequestError(`Provider '${connection.name}' of type ${connection.providerType} needs a base_url`);
  return {
    providerType: connection.providerType,
    name: connection.name,
    apiKey: connection.apiKey,
    baseUrl,
    accessKey: connection.accessKey,
    sessionToken: connection.sessionToken ?? null,
    region: connection.region,
    apiVersion: connection.apiVersion,
    project: connection.project ?? null,
    ...(connection.fetch ? { fetch: connection.fetch } : {}),
  };
}

/** The model ids a provider serves. Throws ModelCallError when the provider refuses, fails or is too slow. */
export async function listProviderModelIds(connection: ProviderConnection): Promise<string[]> {
  const client = createModelClient(clientProviderOf(connection));
  let timer: NodeJS.Timeout | undefined;
  // listModels takes no abort signal, so the slow call is abandoned rather than cancelled.
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new ModelCallError('timeout', `${connection.name} did not list its models within ${LIST_MODELS_TIMEOUT_MS / 1000} s`)),
      LIST_MODELS_TIMEOUT_MS,
    );
  });
  try {
    return await Promise.race([client.listModels(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Proves a provider's credentials with one cheap authenticated request (its model list); the failure says what
 * the provider answered.
 */
export async function checkProviderKey(connection: ProviderConnection): Promise<void> {
  requireConnectionFields({
    provider_type: connection.providerType,
    api_key: connection.apiKey,
    base_url: connection.baseUrl,
    access_key: connection.accessKey,
    region: connection.region,
  });
  try {
    await listProviderModelIds(connection);
  } catch (error) {
    if (!(error instanceof ModelCallError)) throw error;
    if (error.kind === 'authentication') throw new UnauthorizedError(error.message);
    if (error.kind === 'timeout') throw new UpstreamTimeoutError(error.message);
    if (error.kind === 'not_configured' || error.kind === 'bad_request') throw new BadRequestError(error.message);
    throw new UpstreamError(error.message);
  }
}
