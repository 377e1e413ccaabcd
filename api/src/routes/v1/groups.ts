import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireContext } from '../../http/auth.js';
import { openSse } from '../../http/sse.js';
import { runFailureError, UnprocessableError } from '../../errors.js';
import type { AppServices } from '../../services/index.js';
import { groupToWire } from '../../services/groups/group-wire.js';
import { collectRunResponse, streamRunOutput } from '../../services/runs/run-output.js';
import { pageOf } from '../../contracts/shared/paging.js';
import { AgentParams } from './agents/agents.js';
import { UpdateMessageBody } from './agents/message-history.js';
import { LettaMessageResponse, LettaResponse, type LettaResponseWire } from '../../contracts/v1/messages.js';
import { SendMessageBody, StreamMessageBody, toRunRequest } from './agents/messages.js';
import {
  CreateGroupBody,
  GroupParams,
  GroupResponse,
  ListGroupMessagesQuery,
  ListGroupsQuery,
  ManagerType,
  ResetGroupMessagesBody,
  UpdateGroupBody,
} from '../../contracts/v1/groups.js';
import { ConfirmationResponse, CountResponse, eventStreamResponse, NullResponse } from './shared/common-responses.js';
import { errorResponses } from './shared/error-responses.js';

const GroupMessageParams = GroupParams.extend({ message_id: z.string() });
const GroupBlockParams = GroupParams.extend({ block_id: z.string() });

type SendBody = z.infer<typeof SendMessageBody>;

const SendResponse = {
  description: "The members' messages (each with who said it), the turn's stop reason and usage; an event stream with `streaming: true`",
  content: { 'application/json': { schema: LettaResponse }, 'text/event-stream': { schema: z.string() } },
};

type StreamSettings = { pingIntervalMs: number; pollIntervalMs: number };

export function groupRoutes(services: AppServices, settings: StreamSettings): FastifyPluginAsyncZod {
  const follow = (organizationId: string, turnId: string, signal: AbortSignal, includeDeltas: boolean) =>
    services.groupTurnLog.follow({ organizationId, turnId, signal, pollIntervalMs: settings.pollIntervalMs, includeDeltas });

  async function streamTurn(request: FastifyRequest, reply: FastifyReply, groupId: string, body: SendBody): Promise<FastifyReply> {
    const ctx = requireContext(request);
    const runRequest = toRunRequest(body);
    const turn = await services.groupMessages.send(ctx, groupId, runRequest);
    const channel = openSse(request, reply, { 'x-group-turn-id': turn.id });
    await streamRunOutput(channel, follow(ctx.organizationId, turn.id, channel.signal, runRequest.streamTokens), {
      runId: turn.id,
      includeTypes: runRequest.includeReturnMessageTypes,
      includePings: body.include_pings ?? true,
      pingIntervalMs: settings.pingIntervalMs,
      startingAfter: 0,
    });
    return reply;
  }

  async function answerTurn(request: FastifyRequest, reply: FastifyReply, groupId: string, body: SendBody): Promise<LettaResponseWire> {
    const ctx = requireContext(request);
    const runRequest = toRunRequest(body);
    const turn = await services.groupMessages.send(ctx, groupId, runRequest);
    reply.header('x-group-turn-id', turn.id);
    const aborter = new AbortController();
    request.raw.once('close', () => {
      if (!reply.sent) aborter.abort();
    });
    const response = await collectRunResponse(follow(ctx.organizationId, turn.id, aborter.signal, false), { includeTypes: runRequest.includeReturnMessageTypes });
    if (response.error && response.messages.length === 0) throw runFailureError(response.error);
    return { messages: response.messages, stop_reason: response.stop_reason, usage: response.usage };
  }

  return async (app) => {
    app.get(
      '/groups/',
      { schema: { tags: ['groups'], summary: 'List groups', querystring: ListGroupsQuery, response: { 200: z.array(GroupResponse), ...errorResponses(404, 422) } } },
      async (request) => {
        const { query } = request;
        const views = await services.groups.list(requireContext(request), { managerType: query.manager_type, projectId: query.project_id }, pageOf(query, 'asc'));
        return views.map(groupToWire);
      },
    );

    app.post(
      '/groups/',
      {
        schema: {
          tags: ['groups'],
          summary: 'Create a multi-agent group',
          body: CreateGroupBody,
          response: { 200: GroupResponse, ...errorResponses(404, 409, 422) },
        },
      },
      async (request) => groupToWire(await services.groups.create(requireContext(request), request.body)),
    );

    app.get(
      '/groups/count',
      { schema: { tags: ['groups'], summary: "Count the organization's groups", response: { 200: CountResponse } } },
      async (request) => services.groups.count(requireContext(request)),
    );

    app.get(
      '/groups/:group_id',
      { schema: { tags: ['groups'], summary: 'Get a group', params: GroupParams, response: { 200: GroupResponse, ...errorResponses(404, 422) } } },
      async (request) => groupToWire(await services.groups.get(requireContext(request), request.params.group_id)),
    );

    app.patch(
      '/groups/:group_id',
      {
        schema: {
          tags: ['groups'],
          summary: "Change a group's members, manager settings, shared blocks or description",
          params: GroupParams,
          body: UpdateGroupBody,
          response: { 200: GroupResponse, ...errorResponses(404, 409, 422) },
        },
      },
      async (request) => groupToWire(await services.groups.update(requireContext(request), request.params.group_id, request.body)),
    );

    app.delete(
      '/groups/:group_id',
      {
        schema: {
          tags: ['groups'],
          summary: 'Delete a group; its members and their histories stay',
          params: GroupParams,
          response: { 200: ConfirmationResponse, ...errorResponses(404, 422) },
        },
      },
      async (request) => {
        await services.groups.delete(requireContext(request), request.params.group_id);
        return { message: `Group id=${request.params.group_id} successfully deleted` };
      },
    );

    app.post(
      '/groups/:group_id/messages',
      {
        schema: {
          tags: ['groups'],
          summary: 'Send messages to a group; its members answer in turn (streams with `streaming: true`)',
          params: GroupParams,
          body: SendMessageBody,
          response: { 200: SendResponse, ...errorResponses(400, 404, 409, 422) },
        },
      },
      async (request, reply) => {
        const body = request.body;
        if (!body.streaming) {
          for (const key of ['stream_tokens', 'include_pings', 'background'] as const) {
            if (body[key] !== undefined) throw new UnprocessableError(['body', key], `\`${key}\` requires \`streaming: true\``);
          }
        }
        return body.streaming ? streamTurn(request, reply, request.params.group_id, body) : answerTurn(request, reply, request.params.group_id, body);
      },
    );

    app.post(
      '/groups/:group_id/messages/stream',
      {
        schema: {
          tags: ['groups'],
          summary: "Send messages to a group and stream its members' answers as SSE",
          params: GroupParams,
          body: StreamMessageBody,
          response: { 200: eventStreamResponse("Each member's frames in speaking order, marked with `name` and `sender_id`"), ...errorResponses(400, 404, 409, 422) },
        },
      },
      async (request, reply) => streamTurn(request, reply, request.params.group_id, request.body),
    );

    app.get(
      '/groups/:group_id/messages',
      {
        schema: {
          tags: ['groups'],
          summary: "The group's conversation: each thing said once, with who said it",
          params: GroupParams,
          querystring: ListGroupMessagesQuery,
          response: { 200: z.array(LettaMessageResponse), ...errorResponses(404, 422) },
        },
      },
      async (request) => {
        const { query } = request;
        return services.groupMessages.list(requireContext(request), request.params.group_id, {
          ...pageOf(query, 'desc'),
          useAssistantMessage: query.use_assistant_message,
          assistantMessageToolName: query.assistant_message_tool_name,
          assistantMessageToolKwarg: query.assistant_message_tool_kwarg,
        });
      },
    );

    app.patch(
      '/groups/:group_id/messages/:message_id',
      {
        schema: {
          tags: ['groups'],
          summary: "Edit a message of the group's conversation",
          params: GroupMessageParams,
          body: UpdateMessageBody,
          response: { 200: LettaMessageResponse, ...errorResponses(404, 422) },
        },
      },
      async (request) => services.groupMessages.update(requireContext(request), request.params.group_id, request.params.message_id, request.body),
    );

    app.patch(
      '/groups/:group_id/reset-messages',
      {
        schema: {
          tags: ['groups'],
          summary: "Delete the group's messages from its members' histories",
          params: GroupParams,
          body: ResetGroupMessagesBody,
          response: { 200: NullResponse, ...errorResponses(404, 409, 422) },
        },
      },
      async (request) => {
        await services.groupMessages.reset(requireContext(request), request.params.group_id);
        return null;
      },
    );

    app.patch(
      '/groups/:group_id/blocks/attach/:block_id',
      {
        schema: {
          tags: ['groups'],
          summary: "Share a block with the group: it joins every member's core memory",
          params: GroupBlockParams,
          response: { 200: NullResponse, ...errorResponses(404, 409, 422) },
        },
      },
      async (request) => {
        await services.groups.attachBlock(requireContext(request), request.params.group_id, request.params.block_id);
        return null;
      },
    );

    app.patch(
      '/groups/:group_id/blocks/detach/:block_id',
      {
        schema: {
          tags: ['groups'],
          summary: "Stop sharing a block with the group: it leaves its members' core memory",
          params: GroupBlockParams,
          response: { 200: NullResponse, ...errorResponses(404, 422) },
        },
      },
      async (request) => {
        await services.groups.detachBlock(requireContext(request), request.params.group_id, request.params.block_id);
        return null;
      },
    );

    app.get(
      '/agents/:agent_id/groups',
      {
        schema: {
          tags: ['agents'],
          summary: 'The groups an agent is a member or the manager of',
          params: AgentParams,
          querystring: z.object({ manager_type: ManagerType.optional() }),
          response: { 200: z.array(GroupResponse), ...errorResponses(404, 422) },
        },
      },
      async (request) => (await services.groups.listForAgent(requireContext(request), request.params.agent_id, request.query.manager_type)).map(groupToWire),
    );
  };
}
