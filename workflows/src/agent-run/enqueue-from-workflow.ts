import { getExternalWorkflowHandle, ParentClosePolicy, startChild } from '@temporalio/workflow';
import { AGENT_ID, ORGANIZATION_ID, RUN_TYPE } from '../search-attributes.js';
import { agentQueueWorkflowId } from './ids.js';
import { enqueueRunSignal } from './messages.js';
import type { QueueInput, QueuedRun } from './types.js';

/**
 * The queue's workflow type, by name: the run workflow enqueues runs too (agent calls, sleep-time runs), and the
 * queue starts run workflows, so importing the queue's function here would make the two import each other.
 */
const AGENT_QUEUE_WORKFLOW = 'agentQueueWorkflow';

/**
 * Appends a run to its agent's queue from inside a workflow, as the API's signal-with-start does: the queue
 * is signalled when it runs, and started (outliving the caller) when it does not, so runs a workflow starts
 * never interleave with the agent's other runs.
 */
export async function enqueueAgentRun(target: { agentId: string; organizationId: string }, run: QueuedRun): Promise<void> {
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
