import { CancellationScope, condition, getExternalWorkflowHandle, isCancellation, proxyLocalActivities, setHandler } from '@temporalio/workflow';
import type { AgentRunActivities } from '@engram/activities';
import { agentQueueWorkflowId } from './ids.js';
import { turnSignal } from './messages.js';
import type { AgentRunInput } from './types.js';

const bookkeeping = proxyLocalActivities<AgentRunActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '100 milliseconds', maximumInterval: '5 seconds', maximumAttempts: 10 },
});

/**
 * How long a waiting run trusts that the run before it will hand over the turn. A handover cannot be lost, but a
 * run an operator terminated hands over nothing; only a run that waits has this timer, never an idle conversation.
 */
const RECHECK_TURN_AFTER = '1 minute';

/** The unfinished run of the conversation a run waits for, as `beginRun` names it. */
export type Predecessor = Extract<Awaited<ReturnType<AgentRunActivities['beginRun']>>, { waitingFor: unknown }>['waitingFor'];

export type Turns = {
  /**
   * Begins the run once every earlier run of its conversation has ended, so its runs never interleave and follow
   * the order they were sent in, while other conversations of the agent run meanwhile. `attempt` begins the run
   * (`beginRun`, or the first step that begins it) and tells, through `waitingFor`, whom it still waits for; it is
   * tried again each time a handover comes. Cancelling the workflow while it waits makes the next attempt a
   * cancelled one (made where cancellation cannot stop it): the run ends as cancelled when its turn comes, its input
   * listed there.
   */
  begin<T>(attempt: (cancelled: boolean) => Promise<T>, waitingFor: (result: T) => Predecessor | undefined): Promise<T>;
  /** Tells the next run of the conversation (as `finishRun` named it) that its turn may have come. */
  handOver(nextInTurn: string | undefined): Promise<void>;
};

/** Call once, at the start of the run's workflow, so no handover arrives before its handler. */
export function takeTurns(input: AgentRunInput): Turns {
  let offered = false;
  setHandler(turnSignal, () => {
    offered = true;
  });

  return {
    async begin(attempt, waitingFor) {
      let cancelled = false;
      for (;;) {
        offered = false;
        const result = cancelled ? await CancellationScope.nonCancellable(() => attempt(true)) : await attempt(false);
        const predecessor = waitingFor(result);
        if (!predecessor) return result;
        let handedOver: boolean;
        try {
          const wait = () => condition(() => offered, RECHECK_TURN_AFTER);
          handedOver = cancelled ? await CancellationScope.nonCancellable(wait) : await wait();
        } catch (error) {
          if (!isCancellation(error)) throw error;
          cancelled = true;
          continue;
        }
        if (!handedOver) {
          const unfinished = { ...predecessor, organizationId: input.organizationId, agentId: input.agentId, conversationId: input.conversationId ?? null };
          await CancellationScope.nonCancellable(() => abandonIfGone(unfinished));
        }
      }
    },

    handOver,
  };
}

/** Tells the next run of a conversation that its turn may have come (a no-op when there is none). */
async function handOver(nextInTurn: string | undefined): Promise<void> {
  if (!nextInTurn) return;
  // The next run may not have started its workflow yet: it then finds its turn free when it begins.
  await CancellationScope.nonCancellable(() => isRunning(nextInTurn));
}

/** Whether a workflow with this id runs now: a signal to one that ended (or never started) fails. */
function isRunning(workflowId: string): Promise<boolean> {
  return getExternalWorkflowHandle(workflowId)
    .signal(turnSignal)
    .then(() => true, () => false);
}

/** A run of a conversation that has not finished, as a run waiting behind it sees it. */
type UnfinishedRun = { runId: string; organizationId: string; agentId: string; conversationId: string | null; status: 'created' | 'running' };

/**
 * Closes the record of an unfinished run whose workflow is gone, and hands its turn on. A run that had begun was
 * terminated or timed out; one that had not may still be held by an agent queue of an earlier release, or was
 * never started (its API process died between recording it and starting its workflow).
 */
async function abandonIfGone(run: UnfinishedRun): Promise<void> {
  if (await isRunning(run.runId)) return;
  if (run.status === 'created' && (await isRunning(agentQueueWorkflowId(run.agentId, run.conversationId)))) return;
  const { nextInTurn } = await bookkeeping.markRunAbandoned({
    runId: run.runId,
    organizationId: run.organizationId,
    reason: run.status === 'running' ? 'it was terminated or timed out' : 'it was never started',
  });
  await handOver(nextInTurn);
}
