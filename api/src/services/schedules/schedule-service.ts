import { CronExpressionParser } from 'cron-parser';
import { Agent, newId, ScheduledMessage, type Database, type MessageSchedule, type ScheduledMessagePayload } from '@engram/db';
import type { ScheduledMessageClient } from '@engram/temporal/client';
import { NotFoundError, ServiceUnavailableError, UnprocessableError } from '../../errors.js';
import type { RequestContext } from '../../http/request-context.js';
import { assertReachableUrl, type UrlGate } from '../shared/egress.js';

export type ScheduledMessageView = { scheduled: ScheduledMessage; nextFiring: Date | null };

/** Standard five-field cron (minute hour day-of-month month day-of-week), which Temporal reads the same way. */
export function checkCronExpression(expression: string): string | null {
  const fields = expression.trim().split(/\s+/);
  if (fields.length !== 5) return 'A cron expression has five fields: minute hour day-of-month month day-of-week';
  try {
    CronExpressionParser.parse(expression, { strict: false });
    return null;
  } catch (error) {
    return `Invalid cron expression: ${(error as Error).message}`;
  }
}

export function createScheduleService(deps: { db: Database; scheduledMessages: ScheduledMessageClient; egress: UrlGate; now?: () => Date }) {
  const now = deps.now ?? (() => new Date());

  async function requireAgent(ctx: RequestContext, agentId: string): Promise<Agent> {
    const agent = await Agent.query(deps.db).forOrg(ctx.organizationId).findById(agentId);
    if (!agent) throw new NotFoundError('Agent');
    return agent;
  }

  async function requireScheduled(ctx: RequestContext, agentId: string, id: string): Promise<ScheduledMessage> {
    await requireAgent(ctx, agentId);
    const scheduled = await ScheduledMessage.query(deps.db).forOrg(ctx.organizationId).findOne({ id, agentId });
    if (!scheduled) throw new NotFoundError('Scheduled message');
    return scheduled;
  }

  const view = async (scheduled: ScheduledMessage): Promise<ScheduledMessageView> => ({
    scheduled,
    nextFiring: await deps.scheduledMessages.nextFiring(scheduled.id),
  });

  return {
    /** Records the message and creates its Temporal Schedule; a time in the past or a bad cron is a 422. */
    async create(ctx: RequestContext, agentId: string, schedule: MessageSchedule, message: ScheduledMessagePayload): Promise<ScheduledMessageView> {
      await requireAgent(ctx, agentId);
      if (schedule.type === 'one-time' && schedule.scheduled_at <= now().getTime()) {
        throw new UnprocessableError(['body', 'schedule', 'scheduled_at'], 'The scheduled time is in the past');
      }
      if (schedule.type === 'recurring') {
        const problem = checkCronExpression(schedule.cron_expression);
        if (problem) throw new UnprocessableError(['body', 'schedule', 'cron_expression'], problem);
      }
      if (message.callback_url) await assertReachableUrl(deps.egress, ctx.organizationId, message.callback_url, ['body', 'callback_url']);
      const scheduled = await ScheduledMessage.query(deps.db).insertAndFetch({
        id: newId('scheduledMessage'),
        organizationId: ctx.organizationId,
        agentId,
        schedule,
        message,
      } as Partial<ScheduledMessage>);
      try {
        await deps.scheduledMessages.create({
          scheduledMessageId: scheduled.id,
          organizationId: ctx.organizationId,
          agentId,
          schedule: schedule.type === 'one-time' ? { type: 'one-time', at: new Date(schedule.scheduled_at) } : { type: 'recurring', cronExpression: schedule.cron_expression },
        });
      } catch (error) {
        await ScheduledMessage.query(deps.db).deleteById(scheduled.id);
        throw new ServiceUnavailableError(`The schedule could not be created: ${(error as Error).message}`);
      }
      return view(scheduled);
    },

    async list(ctx: RequestContext, agentId: string, page: { after?: string | undefined; limit: number }): Promise<{ items: ScheduledMessageView[]; hasNextPage: boolean }> {
      await requireAgent(ctx, agentId);
      const query = ScheduledMessage.query(deps.db).forOrg(ctx.organizationId).where({ agentId });
      if (page.after) {
        query.whereRaw('(created_at, id) > (select created_at, id from scheduled_messages where id = ?)', [page.after]);
      }
      const rows = await query.orderBy([{ column: 'created_at' }, { column: 'id' }]).limit(page.limit + 1);
      return { items: await Promise.all(rows.slice(0, page.limit).map(view)), hasNextPage: rows.length > page.limit };
    },

    async get(ctx: RequestContext, agentId: string, id: string): Promise<ScheduledMessageView> {
      return view(await requireScheduled(ctx, agentId, id));
    },

    /** Stops the schedule for good: its Temporal Schedule first, so nothing fires after the answer. */
    async delete(ctx: RequestContext, agentId: string, id: string): Promise<void> {
      const scheduled = await requireScheduled(ctx, agentId, id);
      await deps.scheduledMessages.delete(scheduled.id);
      await ScheduledMessage.query(deps.db).forOrg(ctx.organizationId).deleteById(scheduled.id);
    },

    /** An agent about to be deleted takes its schedules with it (its records go by cascade). */
    async deleteAgentSchedules(organizationId: string, agentId: string): Promise<void> {
      const rows = await ScheduledMessage.query(deps.db).forOrg(organizationId).where({ agentId }).select('id');
      for (const row of rows) await deps.scheduledMessages.delete(row.id);
    },
  };
}

export type ScheduleService = ReturnType<typeof createScheduleService>;
