import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireContext } from '../../http/auth.js';
import { openSse } from '../../http/sse.js';
import type { AppServices } from '../../services/index.js';
import { conversationToWire } from '../../services/conversations/conversation-wire.js';
import { streamRunOutput } from '../../services/runs/run-output.js';
import { cursorId } from '../../contracts/shared/input-limits.js';
import { assertStreamFieldsNeedStreaming, createSender, SendFields, SendResponse, StreamFields, type StreamSettings } from './agents/messages.js';
import { CancelledRunsResponse, CompactionResponse, LettaMessageResponse, MessageType } from '../../contracts/v1/messages.js';
import {
  CompactionSettings,
  ConversationResponse,
  CreateConversationBody,
  UpdateConversationBody,
} from '../../contracts/v1/conversations.js';
import { ConfirmationResponse, eventStreamResponse } from './shared/common-responses.js';
import { errorResponses } from './shared/error-responses.js';

const ConversationParams = z.object({ conversation_id: z.string().min(1).max(200) });
const AgentIdQuery = z.object({ agent_id: z.string().nullish() });
const booleanQuery = z.enum(['true', 'false']);

/** A send to a conversation: the agent send's fields, streamed unless `streaming: false`, and `agent_id` for `default`. */
const ConversationSendBody = z.object({ ...SendFields, ...StreamFields, streaming: z.boolean().optional(), agent_id: z.string().nullish() }).strict();

const ResumeStreamBody = z
  .object({
    agent_id: z.string().nullish(),
    run_id: z.string().nullish(),
    otid: z.string().nullish(),
    starting_after: z.number().int().min(0).default(0),
    include_pings: z.boolean().nullish(),
    poll_interval: z.number().positive().max(60).nullish(),
    batch_size: z.number().int().min(1).max(1000).nullish(),
  })
  .strict()
  .default({ starting_after: 0 });

const typesIn = (types: string | string[] | undefined) => (types === undefined ? null : Array.isArray(types) ? types : [types]);

export function conversationRoutes(services: AppServices, settings: StreamSettings): FastifyPluginAsyncZod {
  const { streamRun, answerRun } = createSender(services, settings);
  const conversations = services.conversations;

  return async (app) => {
    app.post(
      '/conversations/',
      {
        schema: {
          tags: ['conversations'],
          summary: 'Create a conversation of an agent',
          querystring: z.object({ agent_id: z.string() }),
          body: CreateConversationBody.default({}),
          response: { 200: ConversationResponse, ...errorResponses(404, 422) },
        },
      },
      async (request) => {
        const body = request.body;
        const created = await conversations.create(requireContext(request), request.query.agent_id, {
          summary: body.summary,
          description: body.description,
          model: body.model,
          modelSettings: body.model_settings,
          contextWindowLimit: body.context_window_limit,
          hidden: body.hidden,
        });
        return conversationToWire(created);
      },
    );

    app.get(
      '/conversations/',
      {
        schema: {
          tags: ['conversations'],
          summary: "List an agent's conversations (or the organization's)",
          querystring: z.object({
            agent_id: z.string().optional(),
            after: cursorId.optional(),
            limit: z.coerce.number().int().min(1).max(1000).default(50),
            order: z.enum(['asc', 'desc']).default('desc'),
            order_by: z.enum(['created_at', 'last_run_completion', 'last_message_at']).default('created_at'),
            archive_status: z.enum(['unarchived', 'archived', 'all']).default('unarchived'),
            summary_search: z.string().max(500).optional(),
          }),
          response: { 200: z.array(ConversationResponse), ...errorResponses(404, 422) },
        },
      },
      async (request) => {
        const query = request.query;
        const rows = await conversations.list(requireContext(request), {
          agentId: query.agent_id,
          after: query.after,
          limit: query.limit,
          order: query.order,
          orderBy: query.order_by,
          archiveStatus: query.archive_status,
          summarySearch: query.summary_search,
        });
        return rows.map(conversationToWire);
      },
    );

    app.get(
      '/conversations/:conversation_id',
      {
        schema: {
          tags: ['conversations'],
          summary: 'Retrieve a conversation',
          params: ConversationParams,
          response: { 200: ConversationResponse, ...errorResponses(404, 422) },
        },
      },
      async (request) => conversationToWire(await conversations.retrieve(requireContext(request), request.params.conversation_id)),
    );

    app.patch(
      '/conversations/:conversation_id',
      {
        schema: {
          tags: ['conversations'],
          summary: 'Update a conversation (rename it with `summary`, archive it with `archived`)',
          params: ConversationParams,
          body: UpdateConversationBody,
          response: { 200: ConversationResponse, ...errorResponses(404, 422) },
        },
      },
      async (request) => {
        const body = request.body;
        const updated = await conversations.update(requireContext(request), request.params.conversation_id, {
          summary: body.summary,
          description: body.description,
          model: body.model,
          modelSettings: body.model_settings,
          contextWindowLimit: body.context_window_limit,
          archived: body.archived,
          lastMessageAt: body.last_message_at === undefined ? undefined : body.last_message_at === null ? null : new Date(body.last_message_at),
        });
        return conversationToWire(updated);
      },
    );

    app.delete(
      '/conversations/:conversation_id',
      {
        schema: {
          tags: ['conversations'],
          summary: 'Delete a conversation (its active runs are cancelled; its messages stay stored)',
          params: ConversationParams,
          response: { 200: ConfirmationResponse, ...errorResponses(404, 422) },
        },
      },
      async (request) => {
        await conversations.delete(requireContext(request), request.params.conversation_id);
        return { message: `Conversation id=${request.params.conversation_id} successfully deleted` };
      },
    );

    app.post(
      '/conversations/:conversation_id/messages',
      {
        schema: {
          tags: ['conversations'],
          summary: 'Send messages to a conversation (streams unless `streaming: false`)',
          params: ConversationParams,
          body: ConversationSendBody,
          response: { 200: SendResponse, ...errorResponses(400, 404, 409, 422) },
        },
      },
      async (request, reply) => {
        const { agent_id: agentId, ...body } = request.body;
        const ctx = requireContext(request);
        const { agent, conversation } = await conversations.resolve(ctx, {
          conversationId: request.params.conversation_id,
          agentId,
          agentIdLoc: ['body', 'agent_id'],
        });
        if (body.streaming === false) assertStreamFieldsNeedStreaming(body);
        const scope = { conversationId: conversation?.id ?? null, llmConfig: await conversations.llmConfigFor(ctx, agent, conversation) };
        return body.streaming === false ? answerRun(request, reply, agent.id, body, scope) : streamRun(request, reply, agent.id, body, scope);
      },
    );

    app.get(
      '/conversations/:conversation_id/messages',
      {
        schema: {
          tags: ['conversations'],
          summary: "List a conversation's messages",
          params: ConversationParams,
          querystring: z.object({
            agent_id: z.string().optional(),
            before: cursorId.optional(),
            after: cursorId.optional(),
            limit: z.coerce.number().int().min(1).max(1000).default(100),
            order: z.enum(['asc', 'desc']).default('desc'),
            group_id: z.string().optional(),
            include_err: booleanQuery.default('false'),
            include_return_message_types: z.union([MessageType, z.array(MessageType)]).optional(),
          }),
          response: { 200: z.array(LettaMessageResponse), ...errorResponses(404, 422) },
        },
      },
      async (request) => {
        const query = request.query;
        const messages = await conversations.listMessages(
          requireContext(request),
          { conversationId: request.params.conversation_id, agentId: query.agent_id, agentIdLoc: ['query', 'agent_id'] },
          {
            before: query.before,
            after: query.after,
            limit: query.limit,
            order: query.order,
            groupId: query.group_id,
            includeErr: query.include_err === 'true',
            useAssistantMessage: true,
            assistantMessageToolName: 'send_message',
            assistantMessageToolKwarg: 'message',
          },
        );
        const types = typesIn(query.include_return_message_types);
        return types ? messages.filter((message) => types.includes(message.message_type)) : messages;
      },
    );

    app.post(
      '/conversations/:conversation_id/stream',
      {
        schema: {
          tags: ['conversations'],
          summary: "Resume the stream of a conversation's active run (or the run named by `run_id` or `otid`)",
          params: ConversationParams,
          body: ResumeStreamBody,
          response: { 200: eventStreamResponse("The run's frames after `starting_after`, until it ends"), ...errorResponses(404, 422) },
        },
      },
      async (request, reply) => {
        const ctx = requireContext(request);
        const body = request.body;
        const run = await conversations.runToResume(
          ctx,
          { conversationId: request.params.conversation_id, agentId: body.agent_id, agentIdLoc: ['body', 'agent_id'] },
          { runId: body.run_id, otid: body.otid },
        );
        const channel = openSse(request, reply, { 'x-run-id': run.id });
        const items = services.runLog.follow({
          organizationId: ctx.organizationId,
          runId: run.id,
          after: body.starting_after,
          signal: channel.signal,
          pollIntervalMs: Math.min(settings.pollIntervalMs, (body.poll_interval ?? 0.1) * 1000),
          batchSize: body.batch_size ?? 100,
          includeDeltas: false,
        });
        await streamRunOutput(channel, items, {
          runId: run.id,
          includeTypes: (run.requestConfig?.include_return_message_types as string[] | null | undefined) ?? null,
          includePings: body.include_pings ?? true,
          pingIntervalMs: settings.pingIntervalMs,
          startingAfter: body.starting_after,
        });
        return reply;
      },
    );

    app.post(
      '/conversations/:conversation_id/cancel',
      {
        schema: {
          tags: ['conversations'],
          summary: "Cancel a conversation's active runs",
          params: ConversationParams,
          querystring: AgentIdQuery,
          response: { 200: CancelledRunsResponse, ...errorResponses(404, 409, 422) },
        },
      },
      async (request) =>
        conversations.cancel(requireContext(request), {
          conversationId: request.params.conversation_id,
          agentId: request.query.agent_id,
          agentIdLoc: ['query', 'agent_id'],
        }),
    );

    app.post(
      '/conversations/:conversation_id/fork',
      {
        schema: {
          tags: ['conversations'],
          summary: "Fork a conversation: a new one starting from its context (up to `message_id`) with a freshly compiled system message",
          params: ConversationParams,
          querystring: AgentIdQuery.extend({ hidden: booleanQuery.optional(), message_id: z.string().optional() }),
          response: { 200: ConversationResponse, ...errorResponses(404, 422) },
        },
      },
      async (request) => {
        const query = request.query;
        const forked = await conversations.fork(
          requireContext(request),
          { conversationId: request.params.conversation_id, agentId: query.agent_id, agentIdLoc: ['query', 'agent_id'] },
          { messageId: query.message_id, hidden: query.hidden === undefined ? undefined : query.hidden === 'true' },
        );
        return conversationToWire(forked);
      },
    );

    app.post(
      '/conversations/:conversation_id/compact',
      {
        schema: {
          tags: ['conversations'],
          summary: "Summarize the oldest part of a conversation's context now",
          params: ConversationParams,
          body: z.object({ agent_id: z.string().nullish(), compaction_settings: CompactionSettings }).strict().default({}),
          response: { 200: CompactionResponse, ...errorResponses(400, 404, 422) },
        },
      },
      async (request) =>
        conversations.compact(requireContext(request), {
          conversationId: request.params.conversation_id,
          agentId: request.body.agent_id,
          agentIdLoc: ['body', 'agent_id'],
        }),
    );

    app.post(
      '/conversations/:conversation_id/recompile',
      {
        schema: {
          tags: ['conversations'],
          summary: "Recompile the system prompt from the agent's memory now; answers the prompt",
          params: ConversationParams,
          querystring: z.object({ dry_run: booleanQuery.default('false') }),
          body: z.object({ agent_id: z.string().nullish(), compaction_settings: CompactionSettings }).strict().default({}),
          response: { 200: z.string(), ...errorResponses(404, 422) },
        },
      },
      async (request) =>
        conversations.recompile(
          requireContext(request),
          { conversationId: request.params.conversation_id, agentId: request.body.agent_id, agentIdLoc: ['body', 'agent_id'] },
          { dryRun: request.query.dry_run === 'true' },
        ),
    );
  };
}
