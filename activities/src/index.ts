import type { Database, SecretBox } from '@engram/db';
import { createHealthActivities } from './health/check-database.js';
import { createAgentRunActivities } from './agent-run/index.js';
import { createToolActivities } from './tools/index.js';
import { createFileIngestionActivities } from './files/index.js';
import type { BaseProviderConfig } from '@engram/integrations/llm';

export type ActivityDeps = { db: Database; baseProviders: BaseProviderConfig[]; secrets: SecretBox };

/** Every activity the worker registers, built from injected dependencies. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createHealthActivities(deps),
    ...createAgentRunActivities(deps),
    ...createToolActivities(deps),
    ...createFileIngestionActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;

// What the worker wiring and the workflows (as types) need; everything shared with the API is in @engram/integrations.
export type { HealthActivities } from './health/check-database.js';
export type { AgentRunActivities, AgentRunDeps } from './agent-run/index.js';
export type { ToolActivities } from './tools/index.js';
export { CHUNKS_PER_BATCH, type ChunkBatch, type FileIngestionActivities, type FileRef } from './files/index.js';
