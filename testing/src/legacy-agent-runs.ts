import type { Client } from '@temporalio/client';
import { createAgentRunClient, type AgentRunClient, type EnqueueRun } from '@engram/temporal/client';
import { agentQueueWorkflowId } from '@engram/workflows/agent-run/ids';
import { enqueueRunSignal } from '@engram/workflows/agent-run/messages';
import { AGENT_ID, ORGANIZATION_ID, RUN_TYPE } from '@engram/workflows/search-attributes';

/**
 * How the API of the release before runs started their own workflows queued a run: signal-with-start of its
 * conversation's queue workflow (`agentQueueWorkflow`, still registered until such queues drain). Upgrade tests
 * queue runs through it to leave work of that release in flight for the current code.
 */
export function createLegacyAgentRunClient(deps: { client: Client; taskQueue: string }): Pick<AgentRunClient, 'enqueue' | 'cancel'> {
  return {
    async enqueue(run: EnqueueRun) {
      await deps.client.workflow.signalWithStart('agentQueueWorkflow', {
        workflowId: agentQueueWorkflowId(run.agentId, run.conversationId),
        taskQueue: deps.taskQueue,
        args: [{ agentId: run.agentId, organizationId: run.organizationId, ...(run.conversationId ? { conversationId: run.conversationId } : {}) }],
        signal: enqueueRunSignal,
        signalArgs: [{ runId: run.runId, maxSteps: run.maxSteps, runType: run.runType }],
        typedSearchAttributes: [
          { key: ORGANIZATION_ID, value: run.organizationId },
          { key: AGENT_ID, value: run.agentId },
          { key: RUN_TYPE, value: 'agent_queue' },
        ],
      });
    },
    // Cancelling was the same then: the run's workflow, by the run id.
    cancel: createAgentRunClient(deps).cancel,
  };
}
