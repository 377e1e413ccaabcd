import { MONTHS, ScheduleNotFoundError, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import type { scheduledMessageWorkflow } from '@engram/workflows/scheduled-message/workflow';
import { AGENT_ID, ORGANIZATION_ID, RUN_TYPE } from '@engram/workflows/search-attributes';

export type MessageScheduleSpec = { type: 'one-time'; at: Date } | { type: 'recurring'; cronExpression: string };

/** How the API manages the Temporal Schedule behind each scheduled message (same id), visible and pausable in the UI. */
export function createScheduledMessageClient(deps: { client: Client; taskQueue: string }) {
  return {
    async create(input: { scheduledMessageId: string; organizationId: string; agentId: string; schedule: MessageScheduleSpec }): Promise<void> {
      const oneTime = input.schedule.type === 'one-time' ? input.schedule.at : null;
      await deps.client.schedule.create({
        scheduleId: input.scheduledMessageId,
        spec: oneTime
          ? {
              calendars: [
                {
                  year: oneTime.getUTCFullYear(),
                  month: MONTHS[oneTime.getUTCMonth()],
                  dayOfMonth: oneTime.getUTCDate(),
                  hour: oneTime.getUTCHours(),
                  minute: oneTime.getUTCMinutes(),
                  second: oneTime.getUTCSeconds(),
                },
              ],
            }
          : { cronExpressions: [(input.schedule as { cronExpression: string }).cronExpression] },
        action: {
          type: 'startWorkflow',
          workflowType: 'scheduledMessageWorkflow',
          workflowId: `${input.scheduledMessageId}-firing`,
          taskQueue: deps.taskQueue,
          args: [{ organizationId: input.organizationId, scheduledMessageId: input.scheduledMessageId }] as Parameters<typeof scheduledMessageWorkflow>,
          typedSearchAttributes: [
            { key: ORGANIZATION_ID, value: input.organizationId },
            { key: AGENT_ID, value: input.agentId },
            { key: RUN_TYPE, value: 'scheduled_message' },
          ],
        },
        // A firing that overlaps a late previous one still happens: each is a run queued behind the agent's others.
        policies: { overlap: ScheduleOverlapPolicy.ALLOW_ALL, catchupWindow: '1 minute' },
        state: oneTime ? { remainingActions: 1 } : {},
      });
    },

    /** When the schedule fires next; null when it will not fire again (a one-time message already sent). */
    async nextFiring(scheduledMessageId: string): Promise<Date | null> {
      try {
        const description = await deps.client.schedule.getHandle(scheduledMessageId).describe();
        if (description.state.remainingActions === 0) return null;
        return description.info.nextActionTimes[0] ?? null;
      } catch (error) {
        if (error instanceof ScheduleNotFoundError) return null;
        throw error;
      }
    },

    /** Deletes the schedule; one already gone is fine. */
    async delete(scheduledMessageId: string): Promise<void> {
      try {
        await deps.client.schedule.getHandle(scheduledMessageId).delete();
      } catch (error) {
        if (!(error instanceof ScheduleNotFoundError)) throw error;
      }
    },
  };
}

export type ScheduledMessageClient = ReturnType<typeof createScheduledMessageClient>;
