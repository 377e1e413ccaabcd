import { continueAsNew, proxyActivities, proxyLocalActivities, sleep, workflowInfo } from '@temporalio/workflow';
import type { DatasetActivities } from '@engram/activities';
import { enqueueAgentRun } from '../agent-run/enqueue-from-workflow.js';
import type { DatasetRunInput } from './ids.js';

const bookkeeping = proxyLocalActivities<DatasetActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '200 milliseconds', maximumInterval: '5 seconds', maximumAttempts: 20 },
});

// A grader is a model call: the provider may be slow or briefly down.
const grading = proxyActivities<DatasetActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 5 },
});

/** How often finished item runs are looked for. */
const SETTLE_INTERVAL = '500 milliseconds';

/**
 * Runs every item of a dataset against a template version: each item is a normal durable run of its own hidden
 * agent (made from the version for that item alone, so items never share memory), at most `concurrency` at once.
 * As an item's run ends its answer, latency, steps, tokens, cost and tool errors are recorded, then its score
 * (an LLM grader's after a model call of its own). Every result is keyed by run and item, so a worker that dies
 * anywhere leaves each item recorded once.
 */
export async function datasetRunWorkflow(input: DatasetRunInput): Promise<void> {
  const ref = { organizationId: input.organizationId, datasetRunId: input.datasetRunId };
  const inFlight = new Set(input.inFlight ?? []);
  const pending = await bookkeeping.loadDatasetRunPlan(ref);

  while (pending.length > 0 || inFlight.size > 0) {
    if (workflowInfo().continueAsNewSuggested && pending.length > 0) {
      await continueAsNew<typeof datasetRunWorkflow>({ ...input, inFlight: [...inFlight] });
    }
    while (pending.length > 0 && inFlight.size < input.concurrency) {
      const itemId = pending.shift()!;
      const dispatched = await bookkeeping.dispatchDatasetItem({ ...ref, itemId });
      if (dispatched.runId === null) continue;
      await enqueueAgentRun(
        { agentId: dispatched.agentId, organizationId: input.organizationId },
        { runId: dispatched.runId, maxSteps: dispatched.maxSteps, runType: dispatched.runType },
      );
      inFlight.add(itemId);
    }
    if (inFlight.size === 0) continue;
    await sleep(SETTLE_INTERVAL);
    const settled = await bookkeeping.settleDatasetItems({ ...ref, itemIds: [...inFlight] });
    for (const itemId of settled.recorded) inFlight.delete(itemId);
    for (const itemId of settled.toGrade) {
      await grading.gradeDatasetItem({ ...ref, itemId });
      inFlight.delete(itemId);
    }
  }

  await bookkeeping.finishDatasetRun(ref);
}
