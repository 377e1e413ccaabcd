import type { Database } from '@engram/db';
import { deleteExpiredTraces } from '@engram/integrations/telemetry';

export type TraceRetentionInput = { retentionDays: number; batchSize: number };

/** The trace retention workflow's one activity: a bounded delete, idempotent by nature. */
export function createObservabilityActivities(deps: { db: Database }) {
  return {
    async deleteExpiredTraces(input: TraceRetentionInput): Promise<number> {
      return deleteExpiredTraces(deps.db, input);
    },
  };
}

export type ObservabilityActivities = ReturnType<typeof createObservabilityActivities>;
