import {
  ChildWorkflowFailure,
  condition,
  continueAsNew,
  executeChild,
  getExternalWorkflowHandle,
  ParentClosePolicy,
  patched,
  proxyLocalActivities,
  setHandler,
  TerminatedFailure,
  TimeoutFailure,
  workflowInfo,
} from '@temporalio/workflow';
import type { AgentRunActivities } from '@engram/activities';
import { AGENT_ID, ORGANIZATION_ID, RUN_STATUS, RUN_TYPE } from '../search-attributes.js';
import { enqueueRunSignal, runFinishedSignal } from './messages.js';
import { agentRunWorkflow } from './run-workflow.js';
import type { QueueInput, QueuedRun } from './types.js';
import { withinCarriedTrace } from './tracing.js';

const { markRunAbandoned } = proxyLocalActivities<AgentRunActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 10 },
});

/** An idle queue completes; the next send starts a fresh one (signal-with-start), so idle agents cost nothing. */
const IDLE_TIMEOUT = '10 minutes';
/** Keeps the queue's history short however long the agent lives. */
const RUNS_PER_HISTORY = 200;
/** Queued runs may name a workflow waiting for them (group turns, agent calls): it is told when they end. */
export const NOTIFY_RUN_FINISHED_PATCH = 'notify-run-finished';

/** Why a run workflow ended without closing its record, in an operator's words (e.g. "terminated"). */
function describeEnd(error: unknown): string {
  if (error instanceof ChildWorkflowFailure) {
    if (error.cause instanceof TerminatedFailure) return 'it was terminated';
    if (error.cause instanceof TimeoutFailure) return 'it timed out';
    return error.cause?.message ?? error.message;
  }
  return error instanceof Error ? error.message : String(error);
}

/**
 * The per-conversation queue of earlier releases: runs of one conversation of an agent execute one at a time, in
 * the order their sends arrived, each a child workflow whose id is the run id. Runs now start their own workflows
 * and take turns by themselves (turns.ts); this type stays registered until the queues already running drain, and
 * its children take their turns like any run.
 */
export async function agentQueueWorkflow(input: QueueInput): Promise<void> {
  const queue: QueuedRun[] = [...(input.pending ?? [])];
  setHandler(enqueueRunSignal, (run) => {
    queue.push(run);
  });

  for (let processed = 0; ; processed++) {
    if (processed >= RUNS_PER_HISTORY || workflowInfo().continueAsNewSuggested) {
      return continueAsNew<typeof agentQueueWorkflow>({ ...input, pending: queue });
    }
    const hasWork = await condition(() => queue.length > 0, IDLE_TIMEOUT);
    if (!hasWork) return;
    const run = queue.shift() as QueuedRun;
    try {
      // Each run joins the trace of the request that queued it, not the one that started this queue.
      await withinCarriedTrace(run.traceContext, () => executeChild(agentRunWorkflow, {
        workflowId: run.runId,
        args: [{
          runId: run.runId,
          agentId: input.agentId,
          organizationId: input.organizationId,
          maxSteps: run.maxSteps,
          ...(input.conversationId ? { conversationId: input.conversationId } : {}),
        }],
        parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
        typedSearchAttributes: [
          { key: ORGANIZATION_ID, value: input.organizationId },
          { key: AGENT_ID, value: input.agentId },
          { key: RUN_TYPE, value: run.runType },
          { key: RUN_STATUS, value: 'running' },
        ],
        memo: { organizationId: input.organizationId, agentId: input.agentId, runType: run.runType },
      }));
    } catch (error) {
      // The run workflow did not finish its own record: an operator terminated it, or it timed out.
      await markRunAbandoned({
        runId: run.runId,
        organizationId: input.organizationId,
        reason: describeEnd(error),
      });
    }
    if (run.notify && patched(NOTIFY_RUN_FINISHED_PATCH)) {
      // The waiting workflow may have ended meanwhile (cancelled, or it gave up): nobody is left to tell.
      await getExternalWorkflowHandle(run.notify)
        .signal(runFinishedSignal, { runId: run.runId })
        .catch(() => undefined);
    }
  }
}
