import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireContext } from '../../http/auth.js';
import type { AppServices } from '../../services/index.js';
import { errorResponses } from './shared/error-responses.js';

const ListTagsQuery = z.object({
  name: z.string().optional(),
  /** The deprecated spelling of `name`. */
  query_text: z.string().optional(),
  before: z.string().optional(),
  after: z.string().optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(50),
  order: z.enum(['asc', 'desc']).default('asc'),
  order_by: z.literal('name').optional(),
});

export function tagRoutes(services: AppServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/tags/',
      {
        schema: {
          tags: ['tags'],
          summary: "The tags on the organization's agents, each once, by name",
          querystring: ListTagsQuery,
          response: { 200: z.array(z.string()), ...errorResponses(422) },
        },
      },
      async (request) => {
        const { query } = request;
        return services.agentTags.list(requireContext(request), query.name ?? query.query_text, {
          before: query.before,
          after: query.after,
          limit: query.limit,
          order: query.order,
        });
      },
    );
  };
}
