import { proxyActivities } from '@temporalio/workflow';
import type { ObservabilityActivities } from '@engram/activities';

/** Rows per delete: short transactions, so span writes are never held up behind a long purge. */
const BATCH_SIZE = 1000;
/** One run's bound; what remains is left to the next scheduled run. */
const MAX_BATCHES = 500;

const storage = proxyActivities<ObservabilityActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 10 },
});

export type TraceRetentionInput = { retentionDays: number };

/** ENGRAM_TRACE_RETENTION_DAYS enforced: deletes traces past retention in batches; a Temporal schedule runs it hourly. */
export async function traceRetentionWorkflow(input: TraceRetentionInput): Promise<{ deleted: number }> {
  let deleted = 0;
  for (let batch = 0; batch < MAX_BATCHES; batch++) {
    const removed = await storage.deleteExpiredTraces({ retentionDays: input.retentionDays, batchSize: BATCH_SIZE });
    deleted += removed;
    if (removed < BATCH_SIZE) break;
  }
  return { deleted };
}
