import { createModelClient, ModelCallError, BASE_PROVIDER_ENV } from '@engram/integrations/llm';
import { BadRequestError, UnauthorizedError, UpstreamError, UpstreamTimeoutError } from '../../errors.js';
import type { ProviderConnection } from './types.js';

/** A model list is interactive: a provider slower than this counts as unreachable. */
const LIST_MODELS_TIMEOUT_MS = 5_000;

function baseUrlOf(connection: ProviderConnection): string {
  const baseUrl = connection.baseUrl ?? BASE_PROVIDER_ENV.find((entry) => entry.providerType === connection.providerType)?.defaultBaseUrl;
  if (!baseUrl) throw new BadRequestError(`Provider '${connection.name}' of type ${connection.providerType} needs a base_url`);
  return baseUrl;
}

/** The model ids a provider serves. Throws ModelCallError when the provider refuses, fails or is too slow. */
export async function listProviderModelIds(connection: ProviderConnection): Promise<string[]> {
  const client = createModelClient({
    providerType: connection.providerType,
    apiKey: connection.apiKey,
    baseUrl: baseUrlOf(connection),
    ...(connection.fetch ? { fetch: connection.fetch } : {}),
  });
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

/** Lists the provider's models to prove its key works; the failure says what the provider answered. */
export async function checkProviderKey(connection: ProviderConnection): Promise<void> {
  try {
    await listProviderModelIds(connection);
  } catch (error) {
    if (!(error instanceof ModelCallError)) throw error;
    if (error.kind === 'authentication') throw new UnauthorizedError(error.message);
    // The egress policy refused the provider's address.
    if (error.kind === 'not_configured') throw new BadRequestError(error.message);
    if (error.kind === 'timeout') throw new UpstreamTimeoutError(error.message);
    throw new UpstreamError(error.message);
  }
}
