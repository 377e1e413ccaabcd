import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireContext } from '../../http/auth.js';
import type { DevelopmentServerView } from '../../services/tenancy/development-servers.js';
import type { AppServices } from '../../services/index.js';
import { iso, PageQuery, success, Success } from './schemas.js';

const DevelopmentServerSchema = z.object({
  id: z.string(),
  name: z.string(),
  url: z.string(),
  password: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

const serverWire = ({ server, password }: DevelopmentServerView): z.infer<typeof DevelopmentServerSchema> => ({
  id: server.id,
  name: server.name,
  url: server.url,
  password,
  createdAt: iso(server.createdAt),
  updatedAt: iso(server.updatedAt),
});

/** Spec 000 §5: a name of 3 to 50 characters and a valid URL. */
const ServerName = z.string().min(3, 'Name must be at least 3 characters long').max(50, 'Name must be at most 50 characters long');
const ServerUrl = z.url({ protocol: /^https?$/, error: 'URL must be a valid URL' });

const ServerParams = z.object({ developmentServerId: z.string() });
const ServerResponse = z.object({ developmentServer: DevelopmentServerSchema });

/** Agent servers members run themselves and open in the console's ADE. */
export function developmentServerRoutes(services: AppServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/development-servers',
      {
        schema: {
          tags: ['console: development servers'],
          querystring: PageQuery,
          response: { 200: z.object({ developmentServers: z.array(DevelopmentServerSchema), hasNextPage: z.boolean() }) },
        },
      },
      async (request) => {
        const page = await services.developmentServers.list(requireContext(request).organizationId, request.query);
        return { developmentServers: page.servers.map(serverWire), hasNextPage: page.hasNextPage };
      },
    );

    app.get(
      '/development-servers/:developmentServerId',
      { schema: { tags: ['console: development servers'], params: ServerParams, response: { 200: ServerResponse } } },
      async (request) => ({
        developmentServer: serverWire(
          await services.developmentServers.get(requireContext(request).organizationId, request.params.developmentServerId),
        ),
      }),
    );

    app.post(
      '/development-servers',
      {
        schema: {
          tags: ['console: development servers'],
          body: z.object({ name: ServerName, url: ServerUrl, password: z.string().max(1024).optional() }),
          response: { 201: ServerResponse },
        },
      },
      async (request, reply) =>
        reply
          .code(201)
          .send({ developmentServer: serverWire(await services.developmentServers.create(requireContext(request).organizationId, request.body)) }),
    );

    app.put(
      '/development-servers/:developmentServerId',
      {
        schema: {
          tags: ['console: development servers'],
          params: ServerParams,
          body: z.object({ name: ServerName.optional(), url: ServerUrl.optional(), password: z.string().max(1024).optional() }),
          response: { 200: ServerResponse },
        },
      },
      async (request) => ({
        developmentServer: serverWire(
          await services.developmentServers.update(requireContext(request).organizationId, request.params.developmentServerId, request.body),
        ),
      }),
    );

    app.delete(
      '/development-servers/:developmentServerId',
      { schema: { tags: ['console: development servers'], params: ServerParams, response: { 200: Success } } },
      async (request) => {
        await services.developmentServers.delete(requireContext(request).organizationId, request.params.developmentServerId);
        return success;
      },
    );
  };
}
