import { condition, proxyLocalActivities, setHandler } from '@temporalio/workflow';
import type { AgentRunActivities } from '@engram/activities';
import { runFinishedSignal } from './messages.js';

const { finishedRuns } = proxyLocalActivities<AgentRunActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '200 milliseconds', maximumInterval: '5 seconds', maximumAttempts: 10 },
});

/**
 * How long to trust the queues' notices before looking at the runs themselves: a notice cannot be lost,
 * but a queue an operator terminated sends none.
 */
const RECHECK_AFTER = '1 minute';

export type RunAwaiter = {
  /** Resolves once every run has ended (completed, failed or cancelled). */
  all(organizationId: string, runIds: string[]): Promise<void>;
};

/**
 * Waits for runs queued with `notify` set to this workflow: each agent's queue signals when a run ends.
 * Call it once, at the start of the workflow, so no notice arrives before its handler.
 */
export function awaitQueuedRuns(): RunAwaiter {
  const ended = new Set<string>();
  setHandler(runFinishedSignal, ({ runId }) => {
    ended.add(runId);
  });
  return {
    async all(organizationId, runIds) {
      for (;;) {
        if (runIds.every((runId) => ended.has(runId))) return;
        if (await condition(() => runIds.every((runId) => ended.has(runId)), RECHECK_AFTER)) return;
        for (const runId of await finishedRuns({ organizationId, runIds: runIds.filter((runId) => !ended.has(runId)) })) ended.add(runId);
      }
    },
  };
}
