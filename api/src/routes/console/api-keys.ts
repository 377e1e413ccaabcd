import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ApiKey } from '@engram/db';
import { requireContext } from '../../http/auth.js';
import type { AppServices } from '../../services/index.js';
import { iso, PageQuery, success, Success } from './schemas.js';

/** Only a hash is stored, so after creation a key shows as its first characters. */
const ApiKeySchema = z.object({
  id: z.string(),
  name: z.string(),
  keyPrefix: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

const apiKeyWire = (apiKey: ApiKey): z.infer<typeof ApiKeySchema> => ({
  id: apiKey.id,
  name: apiKey.name,
  keyPrefix: apiKey.keyPrefix,
  createdAt: iso(apiKey.createdAt),
  updatedAt: iso(apiKey.updatedAt),
});

const ApiKeyParams = z.object({ apiKeyId: z.string() });

/** API keys of the acting organization; each acts with its creator's role. */
export function apiKeyRoutes(services: AppServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/api-keys',
      {
        schema: {
          tags: ['console: api keys'],
          summary: 'Create a key; the response is the only time it is shown',
          body: z.object({ name: z.string().trim().min(1).max(100) }),
          response: { 201: ApiKeySchema.extend({ apiKey: z.string() }) },
        },
      },
      async (request, reply) => {
        const ctx = requireContext(request);
        const created = await services.apiKeys.create({ organizationId: ctx.organizationId, userId: ctx.userId, name: request.body.name });
        return reply.code(201).send({ ...apiKeyWire(created.apiKey), apiKey: created.key });
      },
    );

    app.get(
      '/api-keys',
      {
        schema: {
          tags: ['console: api keys'],
          querystring: PageQuery,
          response: { 200: z.object({ apiKeys: z.array(ApiKeySchema), hasNextPage: z.boolean() }) },
        },
      },
      async (request) => {
        const page = await services.apiKeys.list(requireContext(request).organizationId, request.query);
        return { apiKeys: page.apiKeys.map(apiKeyWire), hasNextPage: page.hasNextPage };
      },
    );

    app.get(
      '/api-keys/:apiKeyId',
      { schema: { tags: ['console: api keys'], params: ApiKeyParams, response: { 200: ApiKeySchema } } },
      async (request) => apiKeyWire(await services.apiKeys.get(requireContext(request).organizationId, request.params.apiKeyId)),
    );

    app.delete(
      '/api-keys/:apiKeyId',
      { schema: { tags: ['console: api keys'], params: ApiKeyParams, response: { 200: Success } } },
      async (request) => {
        await services.apiKeys.delete(requireContext(request).organizationId, request.params.apiKeyId);
        return success;
      },
    );
  };
}
