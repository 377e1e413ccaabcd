import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';

export const HealthSchema = z.object({ version: z.string(), status: z.literal('ok') });

export function healthRoutes(deps: { version: string }): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/health/',
      {
        config: { public: true },
        schema: { tags: ['health'], summary: 'Liveness of the API', response: { 200: HealthSchema } },
      },
      async () => ({ version: deps.version, status: 'ok' as const }),
    );
  };
}
