import { maskSecret } from '@engram/db';
import type { ProviderView } from './provider-service.js';
import type { ProviderWire } from '../../contracts/v1/providers.js';

const masked = (secret: string | null) => (secret === null ? null : maskSecret(secret));

/** The wire `Provider`. Keys are only ever shown masked; the sealed forms never leave the database. */
export function providerToWire({ provider, apiKey, accessKey }: ProviderView): ProviderWire {
  return {
    id: provider.id,
    name: provider.name,
    // Written only from the checked enums of the provider routes.
    provider_type: provider.providerType as ProviderWire['provider_type'],
    provider_category: provider.providerCategory as ProviderWire['provider_category'],
    api_key: masked(apiKey),
    access_key: masked(accessKey),
    base_url: provider.baseUrl,
    region: provider.region,
    api_version: provider.apiVersion,
    organization_id: provider.organizationId,
    updated_at: provider.updatedAt.toISOString(),
    last_synced: null,
    api_key_enc: null,
    access_key_enc: null,
  };
}
