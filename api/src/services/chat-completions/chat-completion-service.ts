import { DEFAULT_MAX_STEPS, type LettaMessage, type RunRequest } from '@engram/core';
import { UnprocessableError, runFailureError } from '../../errors.js';
import type { RequestContext } from '../../http/request-context.js';
import type { FollowOptions, LogItem } from '../runs/run-log-reader.js';
import { collectRunResponse } from '../runs/run-output.js';
import type { RunService } from '../runs/run-service.js';

export type ChatMessageInput = { role: string; content?: string | Array<{ type: string; text?: string }> | null };

export type ChatCompletionRequest = { agentId: string; messages: ChatMessageInput[] };

const textOf = (content: ChatMessageInput['content']): string =>
  typeof content === 'string' ? content : (content ?? []).flatMap((part) => (part.type === 'text' && part.text ? [part.text] : [])).join('\n');

const assistantText = (message: LettaMessage): string | null =>
  message.message_type === 'assistant_message' ? (typeof message.content === 'string' ? message.content : message.content.map((part) => ('text' in part ? String(part.text) : '')).join('')) : null;

const created = () => Math.floor(Date.now() / 1000);

/**
 * `POST /v1/chat/completions` in the OpenAI shape: `model` names the agent, the last user message is sent to it
 * as a normal durable run, and the agent's answer comes back as a completion or as completion chunks.
 */
export function createChatCompletionService(deps: { runs: RunService; follow: (options: FollowOptions) => AsyncIterable<LogItem> }) {
  async function startRun(ctx: RequestContext, request: ChatCompletionRequest) {
    const index = request.messages.findLastIndex((message) => message.role === 'user');
    const text = index >= 0 ? textOf(request.messages[index]!.content) : '';
    if (!text) throw new UnprocessableError(['body', 'messages'], 'The messages need a user message with text');
    const runRequest: RunRequest = {
      messages: [{ type: 'message', role: 'user', content: text }],
      maxSteps: DEFAULT_MAX_STEPS,
      streamTokens: false,
      clientTools: [],
      useAssistantMessage: true,
      assistantMessageToolName: 'send_message',
      assistantMessageToolKwarg: 'message',
      includeReturnMessageTypes: null,
    };
    const { run } = await deps.runs.createRun(ctx, request.agentId, runRequest, { runType: 'send_message', background: false, callbackUrl: null });
    return run;
  }

  type Reading = { signal: AbortSignal; pollIntervalMs: number };
  const follow = (organizationId: string, runId: string, reading: Reading) =>
    deps.follow({ organizationId, runId, after: 0, ...reading, batchSize: 500, includeDeltas: false });

  return {
    async complete(ctx: RequestContext, request: ChatCompletionRequest, reading: Reading) {
      const run = await startRun(ctx, request);
      const response = await collectRunResponse(follow(ctx.organizationId, run.id, reading), { includeTypes: null });
      if (response.error && response.messages.length === 0) throw runFailureError(response.error);
      const content = response.messages.flatMap((message) => assistantText(message) ?? []).join('\n');
      return {
        id: `chatcmpl-${run.id}`,
        object: 'chat.completion' as const,
        created: created(),
        model: request.agentId,
        choices: [{ index: 0, message: { role: 'assistant' as const, content, refusal: null }, finish_reason: 'stop' as const, logprobs: null }],
        usage: {
          prompt_tokens: response.usage.prompt_tokens,
          completion_tokens: response.usage.completion_tokens,
          total_tokens: response.usage.total_tokens,
        },
      };
    },

    /**
     * Starts the run (refusals are thrown here, before any stream opens), then gives its answer as
     * `chat.completion.chunk`s: the role first, each assistant message as it is written, then the finish.
     */
    async stream(ctx: RequestContext, request: ChatCompletionRequest) {
      const run = await startRun(ctx, request);
      const chunk = (delta: Record<string, unknown>, finishReason: 'stop' | null) => ({
        id: `chatcmpl-${run.id}`,
        object: 'chat.completion.chunk' as const,
        created: created(),
        model: request.agentId,
        choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }],
      });
      return async function* chunks(reading: Reading) {
        yield chunk({ role: 'assistant', content: '' }, null);
        for await (const item of follow(ctx.organizationId, run.id, reading)) {
          if (item.kind !== 'frame') continue;
          const text = assistantText(item.frame as unknown as LettaMessage);
          if (text !== null) yield chunk({ content: text }, null);
        }
        yield chunk({}, 'stop');
      };
    },
  };
}

export type ChatCompletionService = ReturnType<typeof createChatCompletionService>;
