import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireContext } from '../../../http/auth.js';
import type { AppServices } from '../../../services/index.js';
import { messageListResultToWire, messageSearchResultToWire } from '../../../services/archival/archival-wire.js';
import { MessageListResultResponse, MessageSearchResultResponse } from '../../../contracts/v1/archives.js';
import { errorResponses } from '../shared/error-responses.js';

const searchFields = {
  query: z.string().min(1),
  search_mode: z.enum(['vector', 'fts', 'hybrid']).default('hybrid'),
  limit: z.number().int().min(1).max(100).default(50),
  start_date: z.string().nullish(),
  end_date: z.string().nullish(),
};

/** The reference server's body; `template_id` is accepted for clients that send it, and matches every agent (Engram has no templates). */
const AgentMessageSearchBody = z.object({
  ...searchFields,
  roles: z.array(z.enum(['assistant', 'user', 'tool', 'system', 'approval', 'summary'])).nullish(),
  project_id: z.string().nullish(),
  template_id: z.string().nullish(),
});

/** The 1.x client's body: `conversation_id` narrows to one conversation (`default`: agents' own histories). */
const MessageSearchBody = z.object({
  ...searchFields,
  agent_id: z.string().nullish(),
  conversation_id: z.string().nullish(),
});

export function messageSearchRoutes(services: AppServices): FastifyPluginAsyncZod {
  const { messageSearch } = services;
  return async (app) => {
    app.post(
      '/agents/messages/search',
      {
        schema: {
          tags: ['messages'],
          summary: "Search the organization's messages by words (fts), meaning (vector) or both (hybrid, the default)",
          body: AgentMessageSearchBody,
          response: { 200: z.array(MessageSearchResultResponse), ...errorResponses(422) },
        },
      },
      async (request) => {
        const { body } = request;
        const results = await messageSearch.search(requireContext(request), {
          query: body.query,
          searchMode: body.search_mode,
          roles: body.roles ?? undefined,
          projectId: body.project_id ?? undefined,
          limit: body.limit,
          startDate: body.start_date,
          endDate: body.end_date,
        });
        return results.map(messageSearchResultToWire);
      },
    );

    app.post(
      '/messages/search',
      {
        schema: {
          tags: ['messages'],
          summary: "Search the organization's messages (the 1.x client's shape)",
          body: MessageSearchBody,
          response: { 200: z.array(MessageListResultResponse), ...errorResponses(404, 422) },
        },
      },
      async (request) => {
        const { body } = request;
        const results = await messageSearch.search(requireContext(request), {
          query: body.query,
          searchMode: body.search_mode,
          agentId: body.agent_id ?? undefined,
          conversationId: body.conversation_id ?? undefined,
          limit: body.limit,
          startDate: body.start_date,
          endDate: body.end_date,
        });
        return results.flatMap(messageListResultToWire);
      },
    );
  };
}
