import { ScheduleAlreadyRunning, type Client } from '@temporalio/client';
import type { traceRetentionWorkflow } from '@engram/workflows/trace-retention/workflow';
import { TRACE_RETENTION_WORKFLOW_ID } from '@engram/workflows/trace-retention/ids';

/**
 * The hourly Temporal schedule of the trace retention workflow. Created at API start, and brought in line with
 * the configured retention when it exists already (another API process made it, or the setting changed).
 */
export async function ensureTraceRetentionSchedule(deps: {
  client: Client;
  taskQueue: string;
  retentionDays: number;
  /** One per namespace in production; tests that share a namespace pass their own. */
  scheduleId?: string;
}): Promise<void> {
  const scheduleId = deps.scheduleId ?? TRACE_RETENTION_WORKFLOW_ID;
  const action = {
    type: 'startWorkflow' as const,
    workflowType: 'traceRetentionWorkflow',
    workflowId: scheduleId,
    taskQueue: deps.taskQueue,
    args: [{ retentionDays: deps.retentionDays }] as Parameters<typeof traceRetentionWorkflow>,
  };
  try {
    await deps.client.schedule.create({ scheduleId, spec: { intervals: [{ every: '1 hour' }] }, action });
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
    await deps.client.schedule.getHandle(scheduleId).update((previous) => ({ ...previous, action }));
  }
}
