import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import { BILLING_PERIOD_WORKFLOW_ID } from '@engram/workflows/billing-period/ids';

/**
 * The hourly Temporal schedule of the billing period workflow (monthly grants, credit expiry, cancelled plans ending).
 * One schedule for every organization, not one each: its run finds the organizations due in one query and books each
 * under a per-period key, so nothing is created or removed per organization, and an hour Temporal was down is made up
 * by the next run. Created at API start, and left as it is when it exists.
 */
export async function ensureBillingPeriodSchedule(deps: {
  client: Client;
  taskQueue: string;
  /** One per namespace in production; tests that share a namespace pass their own. */
  scheduleId?: string;
}): Promise<void> {
  const scheduleId = deps.scheduleId ?? BILLING_PERIOD_WORKFLOW_ID;
  const action = { type: 'startWorkflow' as const, workflowType: 'billingPeriodWorkflow', workflowId: scheduleId, taskQueue: deps.taskQueue, args: [] };
  try {
    await deps.client.schedule.create({
      scheduleId,
      spec: { intervals: [{ every: '1 hour' }] },
      action,
      policies: { overlap: ScheduleOverlapPolicy.SKIP },
    });
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
    await deps.client.schedule.getHandle(scheduleId).update((previous) => ({ ...previous, action }));
  }
}
