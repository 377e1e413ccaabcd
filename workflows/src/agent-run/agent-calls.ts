import { CancellationScope, getExternalWorkflowHandle, isCancellation, proxyLocalActivities, workflowInfo } from '@temporalio/workflow';
import type { AgentCallToolName } from '@engram/core';
import type { AgentCallActivities } from '@engram/activities';
import type { RunAwaiter } from './await-runs.js';
import { enqueueAgentRun } from './enqueue-from-workflow.js';

// Recording calls and reading answers are short, idempotent transactions keyed by the tool call.
const calls = proxyLocalActivities<AgentCallActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '200 milliseconds', maximumInterval: '5 seconds', maximumAttempts: 10 },
});

/** Calls of the multi-agent tools become runs of the callees: changing how a run handles those calls. */
export const AGENT_CALLS_PATCH = 'agent-calls-as-child-runs';

export type AgentCallInput = {
  organizationId: string;
  runId: string;
  toolCall: { id: string; name: string; arguments: Record<string, unknown> };
};

export type AgentCallResult = { status: 'success' | 'error'; funcResponse: string; stdout: string[]; stderr: string[] };

/**
 * One multi-agent tool call: each callee gets a run of its own, queued behind its other runs (a child of this
 * run), and the caller waits for the answers unless the call is asynchronous. A callee the caller may not wait
 * for (it would close a cycle of agents waiting on each other) is refused when the call is recorded. Cancelling
 * the caller cancels the callees' runs.
 */
export async function callAgents(input: AgentCallInput, runs: RunAwaiter): Promise<AgentCallResult> {
  const ref = { organizationId: input.organizationId, callerRunId: input.runId, toolCallId: input.toolCall.id };
  const toolName = input.toolCall.name as AgentCallToolName;
  const planned = await calls.beginAgentCalls({ ...ref, toolName, arguments: input.toolCall.arguments });
  // Recording the calls and queueing their runs are one step: a cancel between them would leave runs never started.
  await CancellationScope.nonCancellable(async () => {
    for (const call of planned.runs) {
      await enqueueAgentRun(
        { agentId: call.agentId, organizationId: input.organizationId },
        { runId: call.runId, maxSteps: call.maxSteps, runType: call.runType, ...(planned.waits ? { notify: workflowInfo().workflowId } : {}) },
      );
    }
  });
  if (planned.waits && planned.runs.length > 0) {
    try {
      await runs.all(input.organizationId, planned.runs.map((call) => call.runId));
    } catch (error) {
      if (isCancellation(error)) {
        await CancellationScope.nonCancellable(async () => {
          const started = await calls.cancelAgentCalls(ref);
          // A callee still queued has no workflow yet: its run's cancel flag stops it when its turn comes.
          for (const runId of started) await getExternalWorkflowHandle(runId).cancel().catch(() => undefined);
        });
      }
      throw error;
    }
  }
  return calls.finishAgentCalls({ ...ref, toolName, ...(planned.refused ? { refused: planned.refused } : {}) });
}
