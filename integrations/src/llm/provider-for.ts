import type { ModelSettings } from '@engram/core';
import { Provider, type Database, type SecretBox } from '@engram/db';
import { ModelCallError } from './errors.js';
import type { BaseProviderConfig } from './provider-config.js';
import { resolveProviderForModel } from './resolve.js';

/** The provider an agent's model settings point at: the organization's own (BYOK) or a base provider. */
export async function providerFor(
  deps: { db: Database; baseProviders: BaseProviderConfig[]; secrets: SecretBox },
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
    };
  }
  return resolveProviderForModel(settings, deps.baseProviders);
}
