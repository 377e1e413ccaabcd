import { Provider, type Database, type EmbeddingConfig, type SecretBox } from '@engram/db';
import { clientProviderOfRow, createEmbeddingClient, ModelCallError, type BaseProviderConfig, type ModelClientProvider } from '../llm/index.js';
import { embedLocally, isLocalEmbeddingConfig } from './local-embedder.js';
import { unitVector } from './vectors.js';
import type { EgressPolicy } from '../egress/index.js';

export type EmbedderDeps = { db: Database; baseProviders: BaseProviderConfig[]; secrets: SecretBox; egress: Pick<EgressPolicy, 'fetchFor'> };

export type EmbedInput = {
  organizationId: string;
  texts: string[];
  /** The agent's or archive's; none means the built-in local embedder. */
  embeddingConfig: EmbeddingConfig | null;
  signal?: AbortSignal;
};

export type Embedder = {
  /** Unit-length vectors, one per text, in order; sent to the provider in batches of `batch_size` (default 32). */
  embed(input: EmbedInput): Promise<Float32Array[]>;
};

const DEFAULT_BATCH_SIZE = 32;

/** `openai/text-embedding-3-small` → `openai`: the provider part of a handle names the provider to call. */
function providerNameOf(config: EmbeddingConfig): string | null {
  const slash = config.handle?.indexOf('/') ?? -1;
  return slash > 0 ? config.handle!.slice(0, slash) : null;
}

/** Embeds through the embedding config's provider: the organization's own by that name (through the egress policy), else a base provider. */
export function createEmbedder(deps: EmbedderDeps): Embedder {
  async function providerFor(organizationId: string, config: EmbeddingConfig): Promise<ModelClientProvider> {
    const name = providerNameOf(config);
    if (name) {
      const own = await Provider.query(deps.db).forOrg(organizationId).findOne({ name });
      if (own) return clientProviderOfRow(own, deps.secrets, deps.egress.fetchFor({ organizationId }), config.embedding_endpoint);
    }
    const base =
      (name ? deps.baseProviders.find((candidate) => candidate.name === name) : undefined) ??
      deps.baseProviders.find((candidate) => candidate.providerType === config.embedding_endpoint_type);
    if (base) return base;
    throw new ModelCallError(
      'not_configured',
      `No provider is configured for the embedding model '${config.handle ?? config.embedding_model}': register one with POST /v1/providers`,
    );
  }

  return {
    async embed({ organizationId, texts, embeddingConfig, signal }) {
      if (texts.length === 0) return [];
      if (isLocalEmbeddingConfig(embeddingConfig)) return texts.map(embedLocally);
      const config = embeddingConfig!;
      const client = createEmbeddingClient(await providerFor(organizationId, config));
      const batchSize = config.batch_size && config.batch_size > 0 ? config.batch_size : DEFAULT_BATCH_SIZE;
      const vectors: Float32Array[] = [];
      for (let start = 0; start < texts.length; start += batchSize) {
        const batch = await client.embed(config.embedding_model, texts.slice(start, start + batchSize), { signal });
        vectors.push(...batch.map(unitVector));
      }
      return vectors;
    },
  };
}
