import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireContext } from '../../http/auth.js';
import { openSse } from '../../http/sse.js';
import type { AppServices } from '../../services/index.js';
import { errorResponses } from './shared/error-responses.js';

const ChatMessage = z.looseObject({
  role: z.enum(['system', 'developer', 'user', 'assistant', 'tool', 'function']),
  content: z.union([z.string(), z.array(z.looseObject({ type: z.string(), text: z.string().optional() }))]).nullish(),
});

/** The OpenAI request; sampling options are accepted and left to the agent's own model settings. */
const ChatCompletionBody = z.looseObject({
  model: z.string().min(1),
  messages: z.array(ChatMessage).min(1),
  stream: z.boolean().nullish(),
  temperature: z.number().nullish(),
  top_p: z.number().nullish(),
  n: z.number().int().nullish(),
  stop: z.union([z.string(), z.array(z.string())]).nullish(),
  max_tokens: z.number().int().nullish(),
  presence_penalty: z.number().nullish(),
  frequency_penalty: z.number().nullish(),
  user: z.string().nullish(),
});

const ChatCompletionResponse = z
  .object({
    id: z.string(),
    object: z.literal('chat.completion'),
    created: z.number().int(),
    model: z.string(),
    choices: z.array(
      z.object({
        index: z.number().int(),
        message: z.object({ role: z.literal('assistant'), content: z.string(), refusal: z.null() }),
        finish_reason: z.literal('stop'),
        logprobs: z.null(),
      }),
    ),
    usage: z.object({ prompt_tokens: z.number(), completion_tokens: z.number(), total_tokens: z.number() }),
  })
  .meta({ id: 'ChatCompletion' });

export function chatCompletionRoutes(services: AppServices, settings: { pollIntervalMs: number }): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/chat/completions',
      {
        schema: {
          tags: ['chat'],
          summary: 'OpenAI-compatible chat completion: `model` is an agent id, the last user message becomes a run of that agent',
          body: ChatCompletionBody,
          response: { 200: ChatCompletionResponse, ...errorResponses(404, 409, 422) },
        },
      },
      async (request, reply) => {
        const ctx = requireContext(request);
        const completionRequest = { agentId: request.body.model, messages: request.body.messages };
        if (request.body.stream) {
          const chunks = await services.chatCompletions.stream(ctx, completionRequest);
          const channel = openSse(request, reply);
          for await (const chunk of chunks({ signal: channel.signal, pollIntervalMs: settings.pollIntervalMs })) channel.send(chunk);
          channel.done();
          return reply;
        }
        const aborter = new AbortController();
        request.raw.once('close', () => {
          if (!reply.sent) aborter.abort();
        });
        return services.chatCompletions.complete(ctx, completionRequest, { signal: aborter.signal, pollIntervalMs: settings.pollIntervalMs });
      },
    );
  };
}
