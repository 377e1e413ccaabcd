import { getExternalWorkflowHandle, ParentClosePolicy, patched, startChild } from '@temporalio/workflow';
import { AGENT_ID, ORGANIZATION_ID, RUN_TYPE, runWorkflowAttributes } from '../search-attributes.js';
import { agentQueueWorkflowId } from './ids.js';
import { enqueueRunSignal } from './messages.js';
import type { AgentRunInput, QueueInput, QueuedRun } from './types.js';

/**
 * The workflow types, by name: the run workflow starts runs too (agent calls, sleep-time runs), so importing the
 * run workflow's function here would make the two import each other.
 */
const AGENT_RUN_WORKFLOW = 'agentRunWorkflowV2';
const AGENT_QUEUE_WORKFLOW = 'agentQueueWorkflow';

/** Runs a workflow starts are started directly, as the API's are, instead of through an agent queue. */
export const RUNS_START_DIRECTLY_PATCH = 'runs-start-directly';

/**
 * Starts a run of an agent's default conversation from inside a workflow, as the API does: the run's own workflow
 * (its id the run id) outlives the caller and begins when its turn comes, so runs a workflow starts never
 * interleave with the agent's other runs. `notify` names a workflow to signal when the run ends.
 */
export async function enqueueAgentRun(target: { agentId: string; organizationId: string }, run: QueuedRun): Promise<void> {
  if (!patched(RUNS_START_DIRECTLY_PATCH)) return enqueueThroughQueue(target, run);
  const args: [AgentRunInput] = [{
    runId: run.runId,
    agentId: target.agentId,
    organizationId: target.organizationId,
    maxSteps: run.maxSteps,
    ...(run.notify ? { notify: run.notify } : {}),
  }];
  await startChild(AGENT_RUN_WORKFLOW, {
    workflowId: run.runId,
    args,
    parentClosePolicy: ParentClosePolicy.ABANDON,
    ...runWorkflowAttributes({ organizationId: target.organizationId, agentId: target.agentId, runType: run.runType }),
  });
}

/** How workflows started before runs started directly queue theirs: through the agent's queue workflow. */
async function enqueueThroughQueue(target: { agentId: string; organizationId: string }, run: QueuedRun): Promise<void> {
  const workflowId = agentQueueWorkflowId(target.agentId);
  try {
    await getExternalWorkflowHandle(workflowId).signal(enqueueRunSignal, run);
    return;
  } catch {
    // No queue is running for this agent: start one holding this run.
  }
  try {
    const args: [QueueInput] = [{ agentId: target.agentId, organizationId: target.organizationId, pending: [run] }];
    await startChild(AGENT_QUEUE_WORKFLOW, {
      workflowId,
      args,
      parentClosePolicy: ParentClosePolicy.ABANDON,
      typedSearchAttributes: [
        { key: ORGANIZATION_ID, value: target.organizationId },
        { key: AGENT_ID, value: target.agentId },
        { key: RUN_TYPE, value: 'agent_queue' },
      ],
    });
  } catch (startError) {
    // The API started the queue in between (the start is refused as already started): it takes the signal.
    await getExternalWorkflowHandle(workflowId)
      .signal(enqueueRunSignal, run)
      .catch(() => {
        throw startError;
      });
  }
}
