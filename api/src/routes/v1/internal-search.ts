import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { CacheWarmResponse } from '../../contracts/v1/internal-search.js';

/** `/v1/_internal_search`: what Letta Code calls before searching messages. */
export function internalSearchRoutes(): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/_internal_search/cache-warm',
      {
        schema: {
          tags: ['messages'],
          summary: 'Warm the search cache: a no-op here, accepted for Letta Code (message search reads the database directly)',
          body: z.record(z.string(), z.unknown()).nullish().describe('Whatever the client sends; it has no effect'),
          response: { 200: CacheWarmResponse },
        },
      },
      async () => ({ warmed: false as const }),
    );
  };
}
