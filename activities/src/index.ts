import type { Database, SecretBox } from '@engram/db';
import { createHealthActivities } from './health/check-database.js';
import { createAgentRunActivities } from './agent-run/index.js';
import { createToolActivities } from './tools/index.js';
import { createFileIngestionActivities } from './files/index.js';
import type { BaseProviderConfig } from './llm/index.js';

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
