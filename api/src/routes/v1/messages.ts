import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireContext } from '../../http/auth.js';
import type { AppServices } from '../../services/index.js';
import { cursorId } from '../../contracts/shared/input-limits.js';
import { LettaMessageResponse, MessageType } from '../../contracts/v1/messages.js';
import { errorResponses } from './shared/error-responses.js';

/** The organization's messages across agents and conversations, and one message by id. */
export function topLevelMessageRoutes(services: AppServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/messages/',
      {
        schema: {
          tags: ['messages'],
          summary: "List the organization's messages (of one conversation with `conversation_id`)",
          querystring: z.object({
            after: cursorId.optional(),
            before: cursorId.optional(),
            conversation_id: z.string().optional(),
            limit: z.coerce.number().int().min(1).max(1000).default(100),
            order: z.enum(['asc', 'desc']).default('desc'),
            include_return_message_types: z.union([MessageType, z.array(MessageType)]).optional(),
          }),
          response: { 200: z.array(LettaMessageResponse), ...errorResponses(404, 422) },
        },
      },
      async (request) => {
        const query = request.query;
        const messages = await services.messages.listMessages(requireContext(request), {
          after: query.after,
          before: query.before,
          conversationId: query.conversation_id,
          limit: query.limit,
          order: query.order,
        });
        const types = query.include_return_message_types;
        if (types === undefined) return messages;
        const wanted = Array.isArray(types) ? types : [types];
        return messages.filter((message) => wanted.includes(message.message_type));
      },
    );

    app.get(
      '/messages/:message_id',
      {
        schema: {
          tags: ['messages'],
          summary: 'Retrieve a message (as the messages it lists as: a tool-calling answer is several)',
          params: z.object({ message_id: z.string() }),
          response: { 200: z.array(LettaMessageResponse), ...errorResponses(404, 422) },
        },
      },
      async (request) => services.messages.retrieveMessage(requireContext(request), request.params.message_id),
    );
  };
}
