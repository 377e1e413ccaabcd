import { proxyLocalActivities, workflowInfo } from '@temporalio/workflow';
import type { ScheduleActivities } from '@engram/activities';
import { enqueueAgentRun } from '../agent-run/enqueue-from-workflow.js';

export type ScheduledMessageInput = { organizationId: string; scheduledMessageId: string };

const { fireScheduledMessage } = proxyLocalActivities<ScheduleActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 milliseconds', maximumInterval: '10 seconds', maximumAttempts: 10 },
});

/**
 * One firing of a scheduled message (started by its Temporal Schedule): the message becomes a normal run,
 * queued behind the agent's other runs. The firing's workflow id names the run, so a retry records it once.
 */
export async function scheduledMessageWorkflow(input: ScheduledMessageInput): Promise<string | null> {
  const fired = await fireScheduledMessage({ ...input, firingId: workflowInfo().workflowId });
  if (!fired) return null;
  await enqueueAgentRun(
    { agentId: fired.agentId, organizationId: input.organizationId },
    { runId: fired.runId, maxSteps: fired.maxSteps, runType: fired.runType },
  );
  return fired.runId;
}
