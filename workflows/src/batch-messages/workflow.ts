import {
  CancellationScope,
  continueAsNew,
  getExternalWorkflowHandle,
  isCancellation,
  proxyActivities,
  proxyLocalActivities,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import type { BatchActivities } from '@engram/activities';
import { enqueueAgentRun } from '../agent-run/enqueue-from-workflow.js';

export type MessageBatchInput = {
  batchId: string;
  organizationId: string;
  /** Most items running at once, across agents. */
  concurrency: number;
  /** Items dispatched and not finished yet, carried over a continue-as-new. */
  inFlight?: Array<{ itemId: string; agentId: string; runId: string }>;
};

const bookkeeping = proxyLocalActivities<BatchActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '200 milliseconds', maximumInterval: '5 seconds', maximumAttempts: 20 },
});

// The user's server may be down for a while: spaced tries over a few minutes, each recorded on the job.
const callbacks = proxyActivities<BatchActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 6 },
});

/** How often finished runs are looked for while items run. */
const SETTLE_INTERVAL = '500 milliseconds';

/**
 * A message batch: every request becomes a normal run of its agent, queued behind the agent's other runs.
 * At most `concurrency` items run at once and each agent has one item in flight, so an agent's requests
 * run in their order. Cancelling the workflow cancels the batch: items not dispatched never start.
 */
export async function messageBatchWorkflow(input: MessageBatchInput): Promise<void> {
  const ref = { organizationId: input.organizationId, batchId: input.batchId };
  const inFlight = new Map((input.inFlight ?? []).map((item) => [item.itemId, item]));
  let cancelled = false;

  try {
    await CancellationScope.cancellable(async () => {
      const pending = await bookkeeping.loadBatchPlan(ref);
      while (pending.length > 0 || inFlight.size > 0) {
        if (workflowInfo().continueAsNewSuggested && pending.length > 0) {
          await continueAsNew<typeof messageBatchWorkflow>({ ...input, inFlight: [...inFlight.values()] });
        }
        const busyAgents = new Set([...inFlight.values()].map((item) => item.agentId));
        for (let index = 0; index < pending.length && inFlight.size < input.concurrency; ) {
          const next = pending[index]!;
          if (busyAgents.has(next.agentId)) {
            index++;
            continue;
          }
          pending.splice(index, 1);
          busyAgents.add(next.agentId);
          // Recording an item's run and queueing it are one step: a cancel between them would leave a run that never starts.
          const dispatched = await CancellationScope.nonCancellable(async () => {
            const recorded = await bookkeeping.dispatchBatchItem({ organizationId: input.organizationId, itemId: next.itemId });
            if (recorded.runId !== null) {
              await enqueueAgentRun(
                { agentId: next.agentId, organizationId: input.organizationId },
                { runId: recorded.runId, maxSteps: recorded.maxSteps, runType: recorded.runType },
              );
            }
            return recorded;
          });
          if (dispatched.runId === null) continue;
          inFlight.set(next.itemId, { ...next, runId: dispatched.runId });
        }
        if (inFlight.size === 0) continue;
        await sleep(SETTLE_INTERVAL);
        const finished = await bookkeeping.settleBatchItems({ organizationId: input.organizationId, itemIds: [...inFlight.keys()] });
        for (const itemId of finished) inFlight.delete(itemId);
      }
    });
  } catch (error) {
    if (!isCancellation(error)) throw error;
    cancelled = true;
  }

  await CancellationScope.nonCancellable(async () => {
    if (cancelled) {
      const runIds = await bookkeeping.cancelBatchItems(ref);
      for (const runId of runIds) {
        // A run still queued has no workflow yet; its cancel flag stops it when its turn comes.
        await getExternalWorkflowHandle(runId).cancel().catch(() => undefined);
      }
      while (inFlight.size > 0) {
        await sleep(SETTLE_INTERVAL);
        const finished = await bookkeeping.settleBatchItems({ organizationId: input.organizationId, itemIds: [...inFlight.keys()] });
        for (const itemId of finished) inFlight.delete(itemId);
      }
    }
    const notify = await bookkeeping.finishBatch({ ...ref, status: cancelled ? 'cancelled' : 'completed' });
    if (notify) await callbacks.sendBatchCallback(ref).catch(() => undefined);
  });
}
