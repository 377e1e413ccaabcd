import { context, propagation } from '@opentelemetry/api';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { agentQueueWorkflow } from '@engram/workflows/agent-run/queue-workflow';
import { enqueueRunSignal } from '@engram/workflows/agent-run/messages';
import { agentQueueWorkflowId } from '@engram/workflows/agent-run/ids';
import { AGENT_ID, ORGANIZATION_ID, RUN_TYPE } from '@engram/workflows/search-attributes';

/** `conversationId`: the conversation the run answers in; absent (or null) for the agent's default conversation. */
export type EnqueueRun = { runId: string; agentId: string; organizationId: string; maxSteps: number; runType: string; conversationId?: string | null };

/** How the API starts and stops agent runs; routes and services never touch the Temporal SDK directly. */
export function createAgentRunClient(deps: { client: Client; taskQueue: string }) {
  return {
    /** Appends a run to its conversation's queue, starting the queue workflow when the conversation has none running. */
    async enqueue(run: EnqueueRun): Promise<void> {
      await deps.client.workflow.signalWithStart<typeof agentQueueWorkflow, [EnqueueRunArgs]>('agentQueueWorkflow', {
        workflowId: agentQueueWorkflowId(run.agentId, run.conversationId),
        taskQueue: deps.taskQueue,
        args: [{ agentId: run.agentId, organizationId: run.organizationId, ...(run.conversationId ? { conversationId: run.conversationId } : {}) }],
        signal: enqueueRunSignal,
        signalArgs: [{ runId: run.runId, maxSteps: run.maxSteps, runType: run.runType, traceContext: activeTraceContext() }],
        typedSearchAttributes: [
          { key: ORGANIZATION_ID, value: run.organizationId },
          { key: AGENT_ID, value: run.agentId },
          { key: RUN_TYPE, value: 'agent_queue' },
        ],
      });
    },

    /** Requests cancellation of a started run; false when its workflow has not started yet (still queued). */
    async cancel(runId: string): Promise<boolean> {
      try {
        await deps.client.workflow.getHandle(runId).cancel();
        return true;
      } catch (error) {
        if (error instanceof WorkflowNotFoundError) return false;
        throw error;
      }
    },
  };
}

type EnqueueRunArgs = { runId: string; maxSteps: number; runType: string; traceContext?: Record<string, string> };

/** The caller's trace context, carried in the queued run so the run's workflow joins the caller's trace. */
function activeTraceContext(): Record<string, string> | undefined {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return Object.keys(carrier).length > 0 ? carrier : undefined;
}

export type AgentRunClient = ReturnType<typeof createAgentRunClient>;
