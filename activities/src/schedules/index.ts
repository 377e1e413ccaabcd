import { Context } from '@temporalio/activity';
import { DEFAULT_MAX_STEPS, type RunInput, type RunRequest } from '@engram/core';
import { insertQueuedRun, ScheduledMessage, type Database } from '@engram/db';

export type SchedulesDeps = { db: Database };

export type FiredMessage = { runId: string; agentId: string; maxSteps: number; runType: string } | null;

const RUN_TYPE = 'scheduled_message';

/** The stored client payload (`messages`, options) as the run request a send would make. */
function toRunRequest(message: ScheduledMessage['message']): RunRequest {
  return {
    messages: message.messages.map((input) => ({ ...input, type: 'message' }) as unknown as RunInput),
    maxSteps: message.max_steps ?? DEFAULT_MAX_STEPS,
    streamTokens: false,
    clientTools: [],
    useAssistantMessage: true,
    assistantMessageToolName: 'send_message',
    assistantMessageToolKwarg: 'message',
    includeReturnMessageTypes: message.include_return_message_types ?? null,
  };
}

export function createScheduleActivities(deps: SchedulesDeps) {
  return {
    /**
     * Records the run of one firing (once per firing, however often retried). A schedule whose record is gone
     * (deleted with its agent) deletes its Temporal Schedule and fires nothing.
     */
    async fireScheduledMessage(input: { organizationId: string; scheduledMessageId: string; firingId: string }): Promise<FiredMessage> {
      const fired = await deps.db.transaction(async (trx) => {
        const scheduled = await ScheduledMessage.query(trx).forOrg(input.organizationId).findById(input.scheduledMessageId).forUpdate();
        if (!scheduled) return null;
        const request = toRunRequest(scheduled.message);
        const run = await insertQueuedRun(trx, {
          organizationId: input.organizationId,
          agentId: scheduled.agentId,
          request,
          runType: RUN_TYPE,
          callbackUrl: scheduled.message.callback_url ?? null,
          metadata: { scheduled_message_id: scheduled.id },
          idempotencyKey: input.firingId,
        });
        if (!run) return null;
        return { runId: run.id, agentId: scheduled.agentId, maxSteps: request.maxSteps, runType: RUN_TYPE };
      });
      if (!fired) {
        await Context.current()
          .client.schedule.getHandle(input.scheduledMessageId)
          .delete()
          .catch(() => undefined);
      }
      return fired;
    },
  };
}

export type ScheduleActivities = ReturnType<typeof createScheduleActivities>;
