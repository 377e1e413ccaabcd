import { keysetQuery, segment, v1Json, type KeysetPage } from '../v1-request.js';

/** A wire `Provider` of the organization's own (BYOK): its keys only ever masked. */
export type Provider = {
  id: string;
  name: string;
  provider_type: string;
  provider_category: 'base' | 'byok';
  api_key: string | null;
  access_key: string | null;
  base_url: string | null;
  region: string | null;
  api_version: string | null;
  updated_at: string;
};

/** What connects to a provider; `name` is the prefix of its model handles (`name/model`). */
export type ProviderConnection = {
  provider_type: string;
  api_key: string;
  base_url?: string;
  access_key?: string;
  region?: string;
  api_version?: string;
};

export function listProviders(page: KeysetPage) {
  return v1Json<Provider[]>('/providers/', { query: keysetQuery(page) });
}

export function createProvider(name: string, connection: ProviderConnection) {
  return v1Json<Provider>('/providers/', { method: 'POST', json: { name, ...connection } });
}

/** Lists the provider's models with the key: answers when the key works, throws what the provider said when not. */
export function checkProviderKey(connection: ProviderConnection) {
  return v1Json<{ message: string }>('/providers/check', { method: 'POST', json: connection });
}

export function checkStoredProvider(providerId: string) {
  return v1Json<{ message: string }>(`/providers/${segment(providerId)}/check`, { method: 'POST' });
}

/** Replaces the stored key. */
export function replaceProviderKey(providerId: string, apiKey: string) {
  return v1Json<Provider>(`/providers/${segment(providerId)}`, { method: 'PATCH', json: { api_key: apiKey } });
}

export function deleteProvider(providerId: string) {
  return v1Json<unknown>(`/providers/${segment(providerId)}`, { method: 'DELETE' });
}
