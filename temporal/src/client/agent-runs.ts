import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { agentRunWorkflowV2 } from '@engram/workflows/agent-run/run-workflow';
import { runWorkflowAttributes } from '@engram/workflows/search-attributes';

/** `conversationId`: the conversation the run answers in; absent (or null) for the agent's default conversation. */
export type EnqueueRun = { runId: string; agentId: string; organizationId: string; maxSteps: number; runType: string; conversationId?: string | null };

/** How the API starts and stops agent runs; routes and services never touch the Temporal SDK directly. */
export function createAgentRunClient(deps: { client: Client; taskQueue: string }) {
  return {
    /**
     * Starts the run's workflow (its id the run id). It begins once the earlier runs of its conversation have
     * ended, so a run is queued behind them without any queue workflow. The caller's trace context travels in
     * the start's headers, so the run joins the request's trace.
     */
    async enqueue(run: EnqueueRun): Promise<void> {
      try {
        await deps.client.workflow.start<typeof agentRunWorkflowV2>('agentRunWorkflowV2', {
          workflowId: run.runId,
          taskQueue: deps.taskQueue,
          args: [{
            runId: run.runId,
            agentId: run.agentId,
            organizationId: run.organizationId,
            maxSteps: run.maxSteps,
            ...(run.conversationId ? { conversationId: run.conversationId } : {}),
          }],
          ...runWorkflowAttributes(run),
        });
      } catch (error) {
        // A retried start of the same run: its workflow already runs it.
        if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
      }
    },

    /** Requests cancellation of a started run; false when its workflow has not started yet. */
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

export type AgentRunClient = ReturnType<typeof createAgentRunClient>;
