import { CancellationScope, getExternalWorkflowHandle, isCancellation, proxyLocalActivities, workflowInfo } from '@temporalio/workflow';
import type { GroupActivities, GroupTurnPlan, MemberRunOutcome } from '@engram/activities';
import { awaitQueuedRuns } from '../agent-run/await-runs.js';
import { enqueueAgentRun } from '../agent-run/enqueue-from-workflow.js';

export type GroupTurnInput = { organizationId: string; turnId: string };

// Each step of a turn is a short transaction, idempotent by (turn, position): a retry finds what it wrote.
const bookkeeping = proxyLocalActivities<GroupActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '200 milliseconds', maximumInterval: '5 seconds', maximumAttempts: 20 },
});

type Ended = { stopReason: string; failure: { errorType: string; message: string } | null };

/** The group, its turn or a speaker was deleted while the turn went on: the turn ends there. */
class GroupGone extends Error {}

/**
 * One message to a group, answered by its members' runs in the order the manager type sets. Each run is
 * queued behind its agent's other runs (a member chatting directly never interleaves with the group), and
 * the turn waits for it before the next speaker starts. `position` numbers the runs of the turn, so a
 * replayed or retried step dispatches the same run.
 */
export async function groupTurnWorkflow(input: GroupTurnInput): Promise<void> {
  const runs = awaitQueuedRuns();
  const ref = { organizationId: input.organizationId, turnId: input.turnId };
  let position = 0;
  let current: string | null = null;

  async function speak(agentId: string, role: 'speak' | 'choose', plan: GroupTurnPlan, candidates: string[] = []): Promise<MemberRunOutcome> {
    const dispatched = await CancellationScope.nonCancellable(async () => {
      const run = await bookkeeping.dispatchGroupRun({ ...ref, position, agentId, role, candidates });
      if ('gone' in run) return run;
      await enqueueAgentRun(
        { agentId, organizationId: input.organizationId },
        { runId: run.runId, maxSteps: plan.maxSteps, runType: run.runType, notify: workflowInfo().workflowId },
      );
      return run;
    });
    if ('gone' in dispatched) throw new GroupGone(dispatched.gone);
    position += 1;
    current = dispatched.runId;
    await runs.all(input.organizationId, [dispatched.runId]);
    current = null;
    return bookkeeping.readGroupRun({ ...ref, runId: dispatched.runId, role, candidates });
  }

  async function play(plan: GroupTurnPlan): Promise<Ended> {
    // A member's failure is told by its own run (its error frame); the turn ends with its stop reason.
    const ended = (outcome: MemberRunOutcome): Ended | null => (outcome.status === 'completed' ? null : { stopReason: outcome.stopReason, failure: null });
    switch (plan.managerType) {
      case 'round_robin': {
        for (let turn = 0; turn < plan.maxTurns; turn++) {
          const stopped = ended(await speak(plan.memberIds[turn % plan.memberIds.length]!, 'speak', plan));
          if (stopped) return stopped;
        }
        return { stopReason: 'end_turn', failure: null };
      }
      case 'dynamic': {
        let previous: string | null = null;
        for (let turn = 0; turn < plan.maxTurns; turn++) {
          const candidates = plan.memberIds.filter((agentId) => agentId !== previous || plan.memberIds.length === 1);
          const choice = await speak(plan.managerAgentId!, 'choose', plan, candidates);
          const stopped = ended(choice);
          if (stopped) return stopped;
          if (choice.terminated || !choice.nextSpeakerId) return { stopReason: 'end_turn', failure: null };
          const reply = await speak(choice.nextSpeakerId, 'speak', plan);
          const replyStopped = ended(reply);
          if (replyStopped) return replyStopped;
          if (reply.terminated) return { stopReason: 'end_turn', failure: null };
          previous = choice.nextSpeakerId;
        }
        return { stopReason: 'end_turn', failure: null };
      }
      case 'supervisor':
      case 'sleeptime':
        // The manager answers: a supervisor delegates through its group tool, a sleeptime manager's run
        // queues the sleep-time agents when it ends.
        return ended(await speak(plan.managerAgentId!, 'speak', plan)) ?? { stopReason: 'end_turn', failure: null };
    }
  }

  let outcome: Ended;
  try {
    outcome = await CancellationScope.cancellable(async () => {
      const plan = await bookkeeping.beginGroupTurn(ref);
      if ('refused' in plan) return { stopReason: 'error', failure: { errorType: 'invalid_group', message: plan.refused } };
      return play(plan);
    });
  } catch (error) {
    if (error instanceof GroupGone) {
      outcome = { stopReason: 'error', failure: { errorType: 'invalid_group', message: error.message } };
    } else if (isCancellation(error)) {
      outcome = { stopReason: 'cancelled', failure: null };
      const running = current;
      if (running) {
        await CancellationScope.nonCancellable(async () => {
          await bookkeeping.flagRunCancelled({ organizationId: input.organizationId, runId: running });
          await getExternalWorkflowHandle(running).cancel().catch(() => undefined);
        });
      }
    } else {
      throw error;
    }
  }
  await CancellationScope.nonCancellable(() => bookkeeping.finishGroupTurn({ ...ref, stopReason: outcome.stopReason, failure: outcome.failure }));
}
