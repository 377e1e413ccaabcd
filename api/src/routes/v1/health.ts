import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';

/**
 * The Letta server release whose `/v1` API Engram serves. Letta's clients read `version` as the server's release and
 * compare it with the one they need (Letta Code warns below 0.16.6), so it names that API level, not Engram's own.
 */
export const LETTA_API_VERSION = '0.16.8';

export const HealthSchema = z.object({
  version: z.string().describe(`The Letta server release whose \`/v1\` API this server matches (${LETTA_API_VERSION}); Letta's clients compare it with the release they need`),
  engram_version: z.string().describe("Engram's own release"),
  status: z.literal('ok'),
});

export function healthRoutes(deps: { version: string }): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/health/',
      {
        config: { public: true },
        schema: { tags: ['health'], summary: 'Liveness of the API, the Letta API level it serves and its own release', response: { 200: HealthSchema } },
      },
      async () => ({ version: LETTA_API_VERSION, engram_version: deps.version, status: 'ok' as const }),
    );
  };
}
