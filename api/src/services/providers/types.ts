// The provider types other services import, apart from the provider service itself.

/** A model provider configured by the operator through environment variables. */
export type BaseProvider = {
  name: string;
  providerType: string;
  apiKey: string | null;
  baseUrl: string;
  accessKey?: string | null;
  sessionToken?: string | null;
  region?: string | null;
  apiVersion?: string | null;
  project?: string | null;
};

/** A provider as the model layer needs it: where to call and with which key, whether base or BYOK. */
export type ProviderConnection = {
  id: string | null;
  name: string;
  providerType: string;
  providerCategory: 'base' | 'byok';
  apiKey: string | null;
  baseUrl: string | null;
  /** Bedrock: the AWS access key id (`apiKey` is the secret). */
  accessKey: string | null;
  sessionToken?: string | null;
  /** Bedrock: the AWS region; Vertex AI: the location. */
  region: string | null;
  /** Azure OpenAI: the `api-version`. */
  apiVersion: string | null;
  /** Vertex AI: the project, when not the service account's. */
  project?: string | null;
  /** A BYOK provider is called through the egress policy's fetch for its organization; a base provider is trusted. */
  fetch?: typeof fetch;
};
