import type { ModelSettings } from '@engram/core';
import { Provider, type Database, type SecretBox } from '@engram/db';
import type { EgressPolicy } from '../egress/index.js';
import { ModelCallError } from './errors.js';
import type { BaseProviderConfig } from './provider-config.js';
import { resolveProviderForModel } from './resolve.js';

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
    return {
      providerType: row.providerType,
      apiKey: row.apiKeyEnc ? deps.secrets.decrypt(row.apiKeyEnc) : null,
      baseUrl: row.baseUrl ?? settings.model_endpoint ?? '',
      fetch: deps.egress.fetchFor({ organizationId }),
    };
  }
  return resolveProviderForModel(settings, deps.baseProviders);
}
