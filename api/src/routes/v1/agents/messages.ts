import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { DEFAULT_MAX_STEPS, type RunInput, type RunRequest } from '@engram/core';
import { requireContext } from '../../../http/auth.js';
import { openSse } from '../../../http/sse.js';
import { runFailureError, UnprocessableError } from '../../../errors.js';
import type { AppServices } from '../../../services/index.js';
import { collectRunResponse, streamRunOutput } from '../../../services/runs/run-output.js';
import { runToWire } from '../../../services/runs/run-wire.js';
import type { SendOptions } from '../../../services/runs/run-service.js';
import { cursorId } from '../../../contracts/shared/input-limits.js';
import { RunResponse } from '../../../contracts/v1/runs.js';
import { eventStreamResponse } from '../shared/common-responses.js';
import { errorResponses } from '../shared/error-responses.js';
import { CancelledRunsResponse, LettaMessageResponse, LettaResponse, MessageType, SentContentPart, type LettaResponseWire } from '../../../contracts/v1/messages.js';

const AgentParams = z.object({ agent_id: z.string() });


const MessageCreate = z
  .object({
    type: z.literal('message').nullish(),
    role: z.enum(['user', 'system', 'assistant']),
    content: z.union([z.string(), z.array(SentContentPart)]),
    name: z.string().nullish(),
    otid: z.string().nullish(),
    sender_id: z.string().nullish(),
    batch_item_id: z.string().nullish(),
    group_id: z.string().nullish(),
  })
  .strict();

const ApprovalReturn = z.object({
  type: z.literal('approval').optional(),
  tool_call_id: z.string(),
  approve: z.boolean(),
  reason: z.string().nullish(),
});

const ToolReturn = z.object({
  type: z.literal('tool').optional(),
  tool_call_id: z.string(),
  tool_return: z.union([z.string(), z.array(SentContentPart)]),
  status: z.enum(['success', 'error']),
  stdout: z.array(z.string()).nullish(),
  stderr: z.array(z.string()).nullish(),
});

const ApprovalCreate = z
  .object({
    type: z.literal('approval').optional(),
    approvals: z.array(z.union([ApprovalReturn, ToolReturn])).nullish(),
    approve: z.boolean().nullish(),
    approval_request_id: z.string().nullish(),
    reason: z.string().nullish(),
    group_id: z.string().nullish(),
    otid: z.string().nullish(),
  })
  .strict();

const ToolReturnCreate = z
  .object({
    type: z.literal('tool_return'),
    tool_returns: z.array(ToolReturn),
    group_id: z.string().nullish(),
    otid: z.string().nullish(),
  })
  .strict();

const ClientTool = z.object({
  name: z.string().min(1),
  description: z.string().nullish(),
  parameters: z.record(z.string(), z.unknown()).nullish(),
});

export const SendFields = {
  messages: z.array(z.union([MessageCreate, ApprovalCreate, ToolReturnCreate])).nullish(),
  input: z.union([z.string(), z.array(SentContentPart)]).nullish(),
  max_steps: z.number().int().min(1).max(500).optional(),
  use_assistant_message: z.boolean().optional(),
  assistant_message_tool_name: z.string().optional(),
  assistant_message_tool_kwarg: z.string().optional(),
  include_return_message_types: z.array(MessageType).nullish(),
  enable_thinking: z.string().optional(),
  client_tools: z.array(ClientTool).nullish(),
  client_skills: z.array(z.unknown()).nullish(),
  override_model: z.string().nullish(),
  override_system: z.string().nullish(),
  include_compaction_messages: z.boolean().optional(),
  return_logprobs: z.boolean().optional(),
  top_logprobs: z.number().int().nullish(),
  return_token_ids: z.boolean().optional(),
};

export const StreamFields = {
  stream_tokens: z.boolean().optional(),
  include_pings: z.boolean().optional(),
  background: z.boolean().optional(),
};

export const SendMessageBody = z.object({ ...SendFields, ...StreamFields, streaming: z.boolean().optional() }).strict();
export const StreamMessageBody = z.object({ ...SendFields, ...StreamFields, streaming: z.boolean().optional() }).strict();
export const AsyncMessageBody = z.object({ ...SendFields, callback_url: z.string().url().nullish() }).strict();

export type SendBody = z.infer<typeof SendMessageBody> & { callback_url?: string | null };

function toRunInputs(body: SendBody): RunInput[] {
  if (body.input !== undefined && body.input !== null) {
    if (body.messages?.length) throw new UnprocessableError(['body', 'input'], 'Send either `messages` or `input`, not both');
    return [{ type: 'message', role: 'user', content: body.input as RunInput extends infer _ ? string | Array<Record<string, unknown>> : never }];
  }
  if (!body.messages?.length) throw new UnprocessableError(['body', 'messages'], 'Send `messages` (a non-empty list) or `input`');
  return body.messages.map((message, index): RunInput => {
    if ('role' in message) {
      return {
        type: 'message',
        role: message.role,
        content: message.content as string | Array<Record<string, unknown>>,
        name: message.name ?? null,
        otid: message.otid ?? null,
        sender_id: message.sender_id ?? null,
      };
    }
    if (message.type === 'tool_return' && 'tool_returns' in message) {
      return {
        type: 'approval',
        approvals: message.tool_returns.map((toolReturn) => ({
          type: 'tool',
          tool_call_id: toolReturn.tool_call_id,
          tool_return: typeof toolReturn.tool_return === 'string' ? toolReturn.tool_return : JSON.stringify(toolReturn.tool_return),
          status: toolReturn.status,
          stdout: toolReturn.stdout ?? null,
          stderr: toolReturn.stderr ?? null,
        })),
      };
    }
    const approval = message as z.infer<typeof ApprovalCreate>;
    if (approval.approvals?.length) {
      return {
        type: 'approval',
        approvals: approval.approvals.map((decision) =>
          'approve' in decision
            ? { type: 'approval', tool_call_id: decision.tool_call_id, approve: decision.approve, reason: decision.reason ?? null }
            : {
                type: 'tool',
                tool_call_id: decision.tool_call_id,
                tool_return: typeof decision.tool_return === 'string' ? decision.tool_return : JSON.stringify(decision.tool_return),
                status: decision.status,
                stdout: decision.stdout ?? null,
                stderr: decision.stderr ?? null,
              },
        ),
      };
    }
    if (approval.approve !== null && approval.approve !== undefined && approval.approval_request_id) {
      return { type: 'approval', approvals: [], answerAll: { approve: approval.approve, reason: approval.reason ?? null } };
    }
    throw new UnprocessableError(['body', 'messages', index], 'An approval needs `approvals`, or `approve` with `approval_request_id`');
  });
}

export function toRunRequest(body: SendBody): RunRequest {
  return {
    messages: toRunInputs(body),
    maxSteps: body.max_steps ?? DEFAULT_MAX_STEPS,
    streamTokens: body.stream_tokens ?? false,
    clientTools: (body.client_tools ?? []).map((tool) => ({ name: tool.name, description: tool.description ?? null, parameters: tool.parameters ?? null })),
    useAssistantMessage: body.use_assistant_message ?? true,
    assistantMessageToolName: body.assistant_message_tool_name ?? 'send_message',
    assistantMessageToolKwarg: body.assistant_message_tool_kwarg ?? 'message',
    includeReturnMessageTypes: body.include_return_message_types ?? null,
  };
}

export type StreamSettings = { pingIntervalMs: number; pollIntervalMs: number };

/** A sync send answers `LettaResponse`; with `streaming: true` the run streams as Server-Sent Events instead. */
export const SendResponse = {
  description: 'The run\'s messages, stop reason and usage; an event stream with `streaming: true`',
  content: { 'application/json': { schema: LettaResponse }, 'text/event-stream': { schema: z.string() } },
};

/** Refuses the stream-only fields on a send that answers as JSON. */
export function assertStreamFieldsNeedStreaming(body: SendBody): void {
  for (const key of ['stream_tokens', 'include_pings', 'background'] as const) {
    if (body[key] !== undefined) throw new UnprocessableError(['body', key], `\`${key}\` requires \`streaming: true\``);
  }
}

/**
 * Starting a run for a send and answering it: as Server-Sent Events, or as one `LettaResponse` once it ends.
 * `conversationId` sends to one of the agent's conversations (absent: its default one).
 */
/** Where a send goes besides its agent: a conversation, and the model configuration its overrides make. */
export type SendScope = Pick<SendOptions, 'conversationId' | 'llmConfig'>;

export function createSender(services: AppServices, settings: StreamSettings) {
  const follow = (organizationId: string, runId: string, after: number, signal: AbortSignal, includeDeltas: boolean) =>
    services.runLog.follow({ organizationId, runId, after, signal, pollIntervalMs: settings.pollIntervalMs, batchSize: 500, includeDeltas });

  async function startRun(request: FastifyRequest, reply: FastifyReply, agentId: string, body: SendBody, streaming: boolean, scope: SendScope) {
    const ctx = requireContext(request);
    const runRequest = toRunRequest(body);
    const options: SendOptions = {
      runType: streaming ? 'send_message_streaming' : 'send_message',
      background: body.background ?? false,
      callbackUrl: null,
      conversationId: scope.conversationId ?? null,
      llmConfig: scope.llmConfig ?? null,
    };
    const { run } = await services.runs.createRun(ctx, agentId, runRequest, options);
    reply.header('x-run-id', run.id);
    return { ctx, run, runRequest };
  }

  async function streamRun(request: FastifyRequest, reply: FastifyReply, agentId: string, body: SendBody, scope: SendScope = {}): Promise<FastifyReply> {
    const { ctx, run, runRequest } = await startRun(request, reply, agentId, body, true, scope);
    const channel = openSse(request, reply, { 'x-run-id': run.id });
    await streamRunOutput(channel, follow(ctx.organizationId, run.id, 0, channel.signal, runRequest.streamTokens), {
      runId: run.id,
      includeTypes: runRequest.includeReturnMessageTypes,
      includePings: body.include_pings ?? true,
      pingIntervalMs: settings.pingIntervalMs,
      startingAfter: 0,
    });
    return reply;
  }

  async function answerRun(request: FastifyRequest, reply: FastifyReply, agentId: string, body: SendBody, scope: SendScope = {}): Promise<LettaResponseWire> {
    const { ctx, run, runRequest } = await startRun(request, reply, agentId, body, false, scope);
    const aborter = new AbortController();
    request.raw.once('close', () => {
      if (!reply.sent) aborter.abort();
    });
    const response = await collectRunResponse(follow(ctx.organizationId, run.id, 0, aborter.signal, false), { includeTypes: runRequest.includeReturnMessageTypes });
    if (response.error && response.messages.length === 0) {
      throw runFailureError(response.error);
    }
    return { messages: response.messages, stop_reason: response.stop_reason, usage: response.usage };
  }

  return { streamRun, answerRun };
}

export function messageRoutes(services: AppServices, settings: StreamSettings): FastifyPluginAsyncZod {
  const { streamRun, answerRun } = createSender(services, settings);

  return async (app) => {
    app.post(
      '/agents/:agent_id/messages',
      {
        schema: {
          tags: ['messages'],
          summary: 'Send messages to an agent (streams with `streaming: true`)',
          params: AgentParams,
          body: SendMessageBody,
          response: { 200: SendResponse, ...errorResponses(400, 404, 409, 422) },
        },
      },
      async (request, reply) => {
        const body = request.body;
        if (!body.streaming) assertStreamFieldsNeedStreaming(body);
        return body.streaming ? streamRun(request, reply, request.params.agent_id, body) : answerRun(request, reply, request.params.agent_id, body);
      },
    );

    app.post(
      '/agents/:agent_id/messages/stream',
      {
        schema: {
          tags: ['messages'],
          summary: 'Send messages and stream the run as SSE',
          params: AgentParams,
          body: StreamMessageBody,
          response: { 200: eventStreamResponse("The run's messages and its stop reason and usage, as they happen"), ...errorResponses(400, 404, 409, 422) },
        },
      },
      async (request, reply) => streamRun(request, reply, request.params.agent_id, request.body),
    );

    app.post(
      '/agents/:agent_id/messages/async',
      {
        schema: {
          tags: ['messages'],
          summary: 'Send messages; returns the run at once',
          params: AgentParams,
          body: AsyncMessageBody,
          response: { 200: RunResponse, ...errorResponses(400, 404, 409, 422) },
        },
      },
      async (request) => {
        const ctx = requireContext(request);
        const { run } = await services.runs.createRun(ctx, request.params.agent_id, toRunRequest(request.body), {
          runType: 'send_message_async',
          background: true,
          callbackUrl: request.body.callback_url ?? null,
        });
        return runToWire(run);
      },
    );

    app.post(
      '/agents/:agent_id/messages/cancel',
      {
        schema: {
          tags: ['messages'],
          summary: "Cancel the agent's active runs",
          params: AgentParams,
          body: z.object({ run_ids: z.array(z.string()).nullish() }).strict().nullish(),
          response: { 200: CancelledRunsResponse, ...errorResponses(404, 409, 422) },
        },
      },
      async (request) =>
        services.runs.cancelAgentRuns(requireContext(request), request.params.agent_id, request.body?.run_ids ?? undefined),
    );

    app.get(
      '/agents/:agent_id/messages',
      {
        schema: {
          tags: ['messages'],
          summary: "List an agent's messages",
          params: AgentParams,
          querystring: z.object({
            before: cursorId.optional(),
            after: cursorId.optional(),
            limit: z.coerce.number().int().min(1).max(1000).default(100),
            order: z.enum(['asc', 'desc']).default('desc'),
            order_by: z.literal('created_at').optional(),
            group_id: z.string().optional(),
            /** One of the agent's conversations (`default`: its own history, as without it). */
            conversation_id: z.string().min(1).max(200).optional(),
            use_assistant_message: z.enum(['true', 'false']).default('true'),
            assistant_message_tool_name: z.string().default('send_message'),
            assistant_message_tool_kwarg: z.string().default('message'),
            include_err: z.enum(['true', 'false']).default('false'),
          }),
          response: { 200: z.array(LettaMessageResponse), ...errorResponses(404, 422) },
        },
      },
      async (request) => {
        const query = request.query;
        const ctx = requireContext(request);
        const listQuery = {
          before: query.before,
          after: query.after,
          limit: query.limit,
          order: query.order,
          useAssistantMessage: query.use_assistant_message === 'true',
          assistantMessageToolName: query.assistant_message_tool_name,
          assistantMessageToolKwarg: query.assistant_message_tool_kwarg,
          includeErr: query.include_err === 'true',
          groupId: query.group_id,
        };
        if (query.conversation_id === undefined) return services.messages.listAgentMessages(ctx, request.params.agent_id, listQuery);
        const address = { conversationId: query.conversation_id, agentId: request.params.agent_id, agentIdLoc: ['path', 'agent_id'] };
        return services.conversations.listMessages(ctx, address, listQuery);
      },
    );
  };
}
