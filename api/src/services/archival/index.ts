import type { Database, SecretBox } from '@engram/db';
import { createEmbedder, createPassageStore } from '@engram/integrations/archival';
import type { BaseProviderConfig } from '@engram/integrations/llm';
import type { EgressPolicy } from '@engram/integrations/egress';
import type { ModelService } from '../models/model-service.js';
import { createArchiveService } from './archive-service.js';
import { createArchivalMemoryService } from './archival-memory-service.js';
import { createMessageSearchService } from './message-search-service.js';

export type ArchivalServiceDeps = {
  db: Database;
  secrets: SecretBox;
  baseProviders: BaseProviderConfig[];
  egress: EgressPolicy;
  models: Pick<ModelService, 'resolveEmbeddingConfig'>;
};

/**
 * Archives, agents' archival memory and message search. They share one passage store, whose embedder
 * calls providers from the API process for API-side inserts and searches (the agent loop's go through the
 * tool activity).
 */
export function createArchivalServices(deps: ArchivalServiceDeps) {
  const passages = createPassageStore({ db: deps.db, embedder: createEmbedder(deps) });
  return {
    archives: createArchiveService({ db: deps.db, secrets: deps.secrets, passages, models: deps.models }),
    archivalMemory: createArchivalMemoryService({ db: deps.db, passages }),
    messageSearch: createMessageSearchService({ db: deps.db }),
  };
}
