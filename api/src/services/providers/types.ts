// The provider types other services import, apart from the provider service itself.

/** A model provider configured by the operator through environment variables. */
export type BaseProvider = { name: string; providerType: string; apiKey: string | null; baseUrl: string };

/** A provider as the model layer needs it: where to call and with which key, whether base or BYOK. */
export type ProviderConnection = {
  id: string | null;
  name: string;
  providerType: string;
  providerCategory: 'base' | 'byok';
  apiKey: string | null;
  baseUrl: string | null;
  /** A BYOK provider is called through the egress policy's fetch for its organization; a base provider is trusted. */
  fetch?: typeof fetch;
};
