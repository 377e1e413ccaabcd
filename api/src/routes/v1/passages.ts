import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireContext } from '../../http/auth.js';
import type { AppServices } from '../../services/index.js';
import { passageSearchResultToWire } from '../../services/archival/archival-wire.js';
import { PassageSearchResultResponse } from '../../contracts/v1/archives.js';
import { errorResponses } from './shared/error-responses.js';

const PassageSearchBody = z.strictObject({
  query: z.string().nullish(),
  agent_id: z.string().nullish(),
  archive_id: z.string().nullish(),
  tags: z.array(z.string()).nullish(),
  tag_match_mode: z.enum(['any', 'all']).default('any'),
  start_date: z.string().nullish(),
  end_date: z.string().nullish(),
  limit: z.number().int().min(1).max(100).default(50),
});

export function passageRoutes(services: AppServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/passages/search',
      {
        schema: {
          tags: ['passages'],
          summary: "Search the organization's archival passages (one archive, one agent's, or all), best first",
          body: PassageSearchBody,
          response: { 200: z.array(PassageSearchResultResponse), ...errorResponses(404, 422) },
        },
      },
      async (request) => (await services.archives.search(requireContext(request), request.body)).map(passageSearchResultToWire),
    );
  };
}
