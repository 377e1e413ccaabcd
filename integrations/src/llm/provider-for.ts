import type { ModelSettings } from '@engram/core';
import { Provider, type Database, type SecretBox } from '@engram/db';
import type { EgressPolicy } from '../egress/index.js';
import { ModelCallError } from './errors.js';
import { baseUrlFor, type BaseProviderConfig } from './provider-config.js';
import type { ModelClientProvider } from './types.js';
import { resolveProviderForModel } from './resolve.js';

/**
 * A stored (BYOK) provider as a model client reaches it, its secrets opened: through `egressFetch`, the egress policy's
 * fetch for the provider's organization.
 */
export function clientProviderOfRow(row: Provider, secrets: SecretBox, egressFetch: typeof fetch, endpoint?: string | null): ModelClientProvider {
  return {
    providerType: row.providerType,
    name: row.name,
    apiKey: row.apiKeyEnc ? secrets.decrypt(row.apiKeyEnc) : null,
    baseUrl: baseUrlFor(row.providerType, row.baseUrl ?? endpoint) ?? '',
    accessKey: row.accessKeyEnc ? secrets.decrypt(row.accessKeyEnc) : null,
    region: row.region,
    apiVersion: row.apiVersion,
    fetch: egressFetch,
  };
}

/**
 * The provider an agent's model settings point at: the organization's own (BYOK), called through the egress policy,
 * or a base provider the operator configured.
 */
export async function providerFor(
  deps: { db: Database; baseProviders: BaseProviderConfig[]; secrets: SecretBox; egress: Pick<EgressPolicy, 'fetchFor'> },
  organizationId: string,
  settings: ModelSettings,
) {
  if (settings.provider_category === 'byok' && settings.provider_name) {
    const row = await Provider.query(deps.db).forOrg(organizationId).findOne({ name: settings.provider_name });
    if (!row) throw new ModelCallError('not_configured', `The provider '${settings.provider_name}' of this agent no longer exists.`);
    return clientProviderOfRow(row, deps.secrets, deps.egress.fetchFor({ organizationId }), settings.model_endpoint);
  }
  return resolveProviderForModel(settings, deps.baseProviders);
}
