// What a model client is: the adapters implement it and `createModelClient` (client.ts) picks one.
import type { ModelDelta, ModelRequest, ModelTurn } from '@engram/core';

export type CompleteOptions = { signal?: AbortSignal; onDelta?: (delta: ModelDelta) => void };

export type ModelClient = {
  /** One model call; streams fragments to `onDelta` when `request.stream`. Throws ModelCallError on provider failure. */
  complete(request: ModelRequest, options: CompleteOptions): Promise<ModelTurn>;
  /** The model ids the provider serves; one authenticated request, so it also proves the credentials. */
  listModels(): Promise<string[]>;
};

/** Where and how to reach a provider: the fields each type needs, whether base (environment) or BYOK. */
export type ModelClientProvider = {
  providerType: string;
  /** Names the provider in errors (its handle prefix); the type when absent. */
  name?: string;
  /** The API key; Bedrock: the AWS secret access key; Vertex AI: the service account's JSON key. */
  apiKey: string | null;
  /** The API's base URL (Azure: the resource endpoint; Bedrock: an endpoint override; empty for the provider's default). */
  baseUrl: string;
  /** Bedrock: the AWS access key id. */
  accessKey?: string | null;
  /** Bedrock: the AWS session token of temporary credentials. */
  sessionToken?: string | null;
  /** Bedrock: the AWS region; Vertex AI: the location. */
  region?: string | null;
  /** Azure OpenAI: the `api-version`. */
  apiVersion?: string | null;
  /** Vertex AI: the Google Cloud project (else the service account's). */
  project?: string | null;
  /**
   * The fetch every request to the provider goes through: an egress policy's for a tenant's provider. The
   * global fetch when absent.
   */
  fetch?: typeof fetch;
};

export type EmbeddingClient = {
  /** One embedding request (or one per text where the API takes one): a vector per text, in order. Throws ModelCallError on provider failure. */
  embed(model: string, texts: string[], options?: { signal?: AbortSignal }): Promise<number[][]>;
};
