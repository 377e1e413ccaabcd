import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { EnvironmentVariable } from '@engram/db';
import { requireContext } from '../../http/auth.js';
import type { AppServices } from '../../services/index.js';
import { iso, PageQuery, success, Success } from './schemas.js';

/** Values are write-only: they go to tool execution, never back to the console. */
const EnvironmentVariableSchema = z.object({ id: z.string(), key: z.string(), updatedAt: z.string() });

const variableWire = (variable: EnvironmentVariable): z.infer<typeof EnvironmentVariableSchema> => ({
  id: variable.id,
  key: variable.key,
  updatedAt: iso(variable.updatedAt),
});

const VariableBody = z.object({ key: z.string().min(1).max(255), value: z.string().max(64 * 1024) });

/** The acting organization's environment variables. */
export function environmentVariableRoutes(services: AppServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/environment-variables',
      {
        schema: {
          tags: ['console: environment variables'],
          querystring: PageQuery,
          response: { 200: z.object({ environmentVariables: z.array(EnvironmentVariableSchema), hasNextPage: z.boolean() }) },
        },
      },
      async (request) => {
        const page = await services.environmentVariables.list(requireContext(request).organizationId, request.query);
        return { environmentVariables: page.variables.map(variableWire), hasNextPage: page.hasNextPage };
      },
    );

    app.post(
      '/environment-variables',
      {
        schema: {
          tags: ['console: environment variables'],
          summary: 'Add a variable (the key must be new)',
          body: VariableBody,
          response: { 201: EnvironmentVariableSchema },
        },
      },
      async (request, reply) =>
        reply.code(201).send(variableWire(await services.environmentVariables.create(requireContext(request).organizationId, request.body))),
    );

    app.put(
      '/environment-variables',
      {
        schema: {
          tags: ['console: environment variables'],
          summary: "Set a variable's value, adding it when the key is new",
          body: VariableBody,
          response: { 200: EnvironmentVariableSchema },
        },
      },
      async (request) => variableWire(await services.environmentVariables.set(requireContext(request).organizationId, request.body)),
    );

    app.get(
      '/environment-variables/:key',
      {
        schema: { tags: ['console: environment variables'], params: z.object({ key: z.string() }), response: { 200: EnvironmentVariableSchema } },
      },
      async (request) => variableWire(await services.environmentVariables.getByKey(requireContext(request).organizationId, request.params.key)),
    );

    app.delete(
      '/environment-variables/:environmentVariableId',
      {
        schema: { tags: ['console: environment variables'], params: z.object({ environmentVariableId: z.string() }), response: { 200: Success } },
      },
      async (request) => {
        await services.environmentVariables.delete(requireContext(request).organizationId, request.params.environmentVariableId);
        return success;
      },
    );
  };
}
