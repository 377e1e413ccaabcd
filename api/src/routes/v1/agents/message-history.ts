import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireContext } from '../../../http/auth.js';
import type { AppServices } from '../../../services/index.js';
import { EVERY_RELATIONSHIP } from '../../../services/agents/agent-views.js';
import { agentToWire } from '../../../services/agents/agent-wire.js';
import { AgentParams } from './agents.js';
import { SendMessageBody, toRunRequest } from './messages.js';
import { AgentResponse } from '../../../contracts/v1/agents.js';
import { CompactionResponse, LettaMessageResponse, ProviderPayloadResponse } from '../../../contracts/v1/messages.js';
import { errorResponses } from '../shared/error-responses.js';

const MessageParams = AgentParams.extend({ message_id: z.string() });

const TextPart = z.object({ type: z.literal('text'), text: z.string() });
const ImagePart = z.looseObject({ type: z.literal('image'), source: z.looseObject({ type: z.string() }) });

/** The client's `Update*Message` union; `message_type` picks which part of the stored message is rewritten. */
export const UpdateMessageBody = z.discriminatedUnion('message_type', [
  z.object({ message_type: z.literal('user_message'), content: z.union([z.string(), z.array(z.union([TextPart, ImagePart]))]) }),
  z.object({ message_type: z.literal('assistant_message'), content: z.union([z.string(), z.array(TextPart).min(1)]) }),
  z.object({ message_type: z.literal('system_message'), content: z.string() }),
  z.object({ message_type: z.literal('reasoning_message'), reasoning: z.string() }),
]);

const ResetMessagesBody = z
  .object({
    // Agents here start without default initial messages (only `initial_message_sequence` adds any), so there
    // is nothing to add back; the flag is accepted for clients that send it.
    add_default_initial_messages: z.boolean().optional(),
  })
  .nullish();

export function messageHistoryRoutes(services: AppServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.patch(
      '/agents/:agent_id/messages/:message_id',
      {
        schema: {
          tags: ['messages'],
          summary: "Edit a message of an agent's history",
          params: MessageParams,
          body: UpdateMessageBody,
          response: { 200: LettaMessageResponse, ...errorResponses(400, 404, 422) },
        },
      },
      async (request) =>
        services.messageHistory.updateMessage(requireContext(request), request.params.agent_id, request.params.message_id, request.body),
    );

    app.patch(
      '/agents/:agent_id/reset-messages',
      {
        schema: {
          tags: ['messages'],
          summary: "Empty the agent's context window down to its system message; stored history is kept",
          params: AgentParams,
          body: ResetMessagesBody,
          response: { 200: AgentResponse, ...errorResponses(404, 409, 422) },
        },
      },
      async (request) => {
        const ctx = requireContext(request);
        await services.messageHistory.resetMessages(ctx, request.params.agent_id);
        return agentToWire(await services.agents.get(ctx, request.params.agent_id, EVERY_RELATIONSHIP));
      },
    );

    app.post(
      '/agents/:agent_id/recompile',
      {
        schema: {
          tags: ['agents'],
          summary: "Recompile the agent's system prompt from its memory now (every conversation's); answers the prompt",
          params: AgentParams,
          querystring: z.object({ dry_run: z.enum(['true', 'false']).default('false'), update_timestamp: z.enum(['true', 'false']).optional() }),
          response: { 200: z.string(), ...errorResponses(404, 422) },
        },
      },
      async (request) =>
        services.conversations.recompile(
          requireContext(request),
          { conversationId: 'default', agentId: request.params.agent_id, agentIdLoc: ['path', 'agent_id'] },
          { dryRun: request.query.dry_run === 'true' },
        ),
    );

    app.post(
      '/agents/:agent_id/summarize',
      {
        schema: {
          tags: ['messages'],
          summary: "Compact the agent's context now: the oldest messages are replaced by a summary",
          params: AgentParams,
          body: z.object({ compaction_settings: z.record(z.string(), z.unknown()).nullish() }).strict().nullish(),
          response: { 200: CompactionResponse, ...errorResponses(400, 404, 422) },
        },
      },
      async (request) => services.messageHistory.summarize(requireContext(request), request.params.agent_id),
    );

    app.post(
      '/agents/:agent_id/messages/preview-raw-payload',
      {
        schema: {
          tags: ['messages'],
          summary: 'The provider request body the next step would send for this input; nothing is stored or run',
          params: AgentParams,
          body: SendMessageBody,
          response: { 200: ProviderPayloadResponse, ...errorResponses(400, 404, 422) },
        },
      },
      async (request) =>
        services.messageHistory.previewProviderPayload(requireContext(request), request.params.agent_id, toRunRequest(request.body)),
    );
  };
}
