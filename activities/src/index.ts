import type { Database } from '@engram/db';
import { createHealthActivities } from './health/check-database.js';

export type ActivityDeps = { db: Database };

/** Every activity the worker registers, built from injected dependencies. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createHealthActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
