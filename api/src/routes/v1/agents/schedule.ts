import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireContext } from '../../../http/auth.js';
import type { AppServices } from '../../../services/index.js';
import type { ScheduledMessageView } from '../../../services/schedules/schedule-service.js';
import { cursorId } from '../../../contracts/shared/input-limits.js';
import { errorResponses } from '../shared/error-responses.js';

const AgentParams = z.object({ agent_id: z.string() });
const ScheduledParams = AgentParams.extend({ scheduled_message_id: z.string() });

const RETURN_MESSAGE_TYPES = [
  'system_message',
  'user_message',
  'assistant_message',
  'reasoning_message',
  'hidden_reasoning_message',
  'tool_call_message',
  'tool_return_message',
  'approval_request_message',
  'approval_response_message',
] as const;

const TextPart = z.object({ text: z.string(), signature: z.string().nullish(), type: z.literal('text').optional() });
const ImagePart = z.object({
  source: z.object({ data: z.string(), media_type: z.string(), detail: z.string().optional(), type: z.literal('base64').optional() }),
  type: z.literal('image'),
});

const ScheduledInput = z.object({
  content: z.union([z.string(), z.array(z.union([TextPart, ImagePart]))]),
  role: z.enum(['user', 'assistant', 'system']),
  name: z.string().optional(),
  otid: z.string().optional(),
  sender_id: z.string().optional(),
  type: z.literal('message').optional(),
});

const MessagePayload = {
  messages: z.array(ScheduledInput).min(1),
  callback_url: z.string().url().optional(),
  include_return_message_types: z.array(z.enum(RETURN_MESSAGE_TYPES)).optional(),
  max_steps: z.number().int().min(1).max(500).optional(),
};

const OneTime = z.object({ scheduled_at: z.number(), type: z.literal('one-time').optional() });
const Recurring = z.object({ cron_expression: z.string(), type: z.literal('recurring') });
const Schedule = z.union([Recurring, OneTime]);

const CreateScheduleBody = z.object({ ...MessagePayload, schedule: Schedule });

const ScheduledMessageResponse = z
  .object({
    id: z.string(),
    agent_id: z.string(),
    message: z.object(MessagePayload),
    next_scheduled_time: z.string().nullable(),
    schedule: Schedule,
  })
  .meta({ id: 'ScheduledMessage' });

function scheduledToWire({ scheduled, nextFiring }: ScheduledMessageView): z.infer<typeof ScheduledMessageResponse> {
  return {
    id: scheduled.id,
    agent_id: scheduled.agentId,
    message: scheduled.message as z.infer<typeof ScheduledMessageResponse>['message'],
    next_scheduled_time: nextFiring?.toISOString() ?? null,
    schedule: scheduled.schedule,
  };
}

export function agentScheduleRoutes(services: AppServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/agents/:agent_id/schedule',
      {
        schema: {
          tags: ['agents'],
          summary: 'Schedule a message to the agent, once at a time or on a cron (a Temporal Schedule)',
          params: AgentParams,
          body: CreateScheduleBody,
          response: { 200: z.object({ id: z.string(), next_scheduled_at: z.string().optional() }), ...errorResponses(404, 422) },
        },
      },
      async (request) => {
        const { schedule, ...message } = request.body;
        const created = await services.schedules.create(
          requireContext(request),
          request.params.agent_id,
          'cron_expression' in schedule ? { type: 'recurring', cron_expression: schedule.cron_expression } : { type: 'one-time', scheduled_at: schedule.scheduled_at },
          message,
        );
        return { id: created.scheduled.id, ...(created.nextFiring ? { next_scheduled_at: created.nextFiring.toISOString() } : {}) };
      },
    );

    app.get(
      '/agents/:agent_id/schedule',
      {
        schema: {
          tags: ['agents'],
          summary: "List the agent's scheduled messages",
          params: AgentParams,
          querystring: z.object({ after: cursorId.optional(), limit: z.coerce.number().int().min(1).max(100).default(50) }),
          response: { 200: z.object({ has_next_page: z.boolean(), scheduled_messages: z.array(ScheduledMessageResponse) }), ...errorResponses(404) },
        },
      },
      async (request) => {
        const page = await services.schedules.list(requireContext(request), request.params.agent_id, request.query);
        return { has_next_page: page.hasNextPage, scheduled_messages: page.items.map(scheduledToWire) };
      },
    );

    app.get(
      '/agents/:agent_id/schedule/:scheduled_message_id',
      { schema: { tags: ['agents'], params: ScheduledParams, response: { 200: ScheduledMessageResponse, ...errorResponses(404) } } },
      async (request) =>
        scheduledToWire(await services.schedules.get(requireContext(request), request.params.agent_id, request.params.scheduled_message_id)),
    );

    app.delete(
      '/agents/:agent_id/schedule/:scheduled_message_id',
      {
        schema: {
          tags: ['agents'],
          summary: 'Delete a scheduled message; its schedule never fires again',
          params: ScheduledParams,
          response: { 200: z.object({ success: z.literal(true) }), ...errorResponses(404) },
        },
      },
      async (request) => {
        await services.schedules.delete(requireContext(request), request.params.agent_id, request.params.scheduled_message_id);
        return { success: true as const };
      },
    );
  };
}
