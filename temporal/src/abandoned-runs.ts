import type { Client } from '@temporalio/client';
import type { Worker } from '@temporalio/worker';
import type { AgentRunActivities } from '@engram/activities';
import { turnSignal } from '@engram/workflows/agent-run/messages';
import { ORGANIZATION_ID } from '@engram/workflows/search-attributes';

/** How often the closed run workflows are looked at: how soon a termination shows in the run's record. */
const INTERVAL_MS = 5_000;
/** Visibility trails the history a little, so each look goes back this far before the previous one. */
const VISIBILITY_LAG_MS = 30_000;
/** At start, terminations this recent are looked at too (the worker may have been down when they happened). */
const LOOKBACK_AT_START_MS = 60 * 60_000;

const STOPPED: ReadonlySet<string> = new Set(['STOPPING', 'DRAINING', 'DRAINED', 'STOPPED', 'FAILED']);

/**
 * Keeps run records in line with what operators do in the Temporal UI. A run's workflow closes its own record,
 * whatever the outcome, unless it never gets the chance: it was terminated, or it timed out. Every few seconds this
 * asks Temporal's visibility for run workflows that closed that way, closes their records as failed (saying why),
 * and hands their conversation's turn to the next run. It is one list call per interval for the whole deployment,
 * however many agents and conversations there are; an idle conversation costs nothing. Every worker process runs
 * it while its worker runs; closing a closed record is a no-op.
 */
export function watchAbandonedRuns(deps: {
  client: Client;
  worker: Pick<Worker, 'getState'>;
  markRunAbandoned: AgentRunActivities['markRunAbandoned'];
  onError?: (error: unknown) => void;
}): void {
  let since = new Date(Date.now() - LOOKBACK_AT_START_MS);
  const handled = new Map<string, number>();

  async function closeAbandoned(): Promise<void> {
    const lookedAt = Date.now();
    const query = `(WorkflowType = 'agentRunWorkflowV2' OR WorkflowType = 'agentRunWorkflow') AND (ExecutionStatus = 'Terminated' OR ExecutionStatus = 'TimedOut') AND CloseTime > '${since.toISOString()}'`;
    for await (const execution of deps.client.workflow.list({ query })) {
      const organizationId = execution.typedSearchAttributes.get(ORGANIZATION_ID);
      if (!organizationId || handled.has(execution.workflowId)) continue;
      const { nextInTurn } = await deps.markRunAbandoned({
        runId: execution.workflowId,
        organizationId,
        reason: execution.status.name === 'TERMINATED' ? 'it was terminated' : 'it timed out',
      });
      handled.set(execution.workflowId, lookedAt);
      if (nextInTurn) await deps.client.workflow.getHandle(nextInTurn).signal(turnSignal).catch(() => undefined);
    }
    since = new Date(lookedAt - VISIBILITY_LAG_MS);
    for (const [runId, at] of handled) if (at < lookedAt - 2 * VISIBILITY_LAG_MS) handled.delete(runId);
  }

  const tick = async () => {
    const state = deps.worker.getState();
    if (STOPPED.has(state)) return;
    if (state === 'RUNNING') await closeAbandoned().catch((error: unknown) => deps.onError?.(error));
    setTimeout(() => void tick(), INTERVAL_MS).unref();
  };
  setTimeout(() => void tick(), INTERVAL_MS).unref();
}
