import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Organization } from '@engram/db';
import { requireAccount, requireContext } from '../../http/auth.js';
import type { AppServices } from '../../services/index.js';
import { iso, success, Success } from './schemas.js';

const OrganizationSchema = z.object({
  id: z.string(),
  name: z.string(),
  isAdmin: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

const organizationWire = (organization: Organization): z.infer<typeof OrganizationSchema> => ({
  id: organization.id,
  name: organization.name,
  isAdmin: organization.isAdmin,
  createdAt: iso(organization.createdAt),
  updatedAt: iso(organization.updatedAt),
});

const OrganizationName = z.string().trim().min(1).max(100);

/** Organizations: creating one, and the one the user acts in (`self`). */
export function organizationRoutes(services: AppServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/organizations',
      {
        schema: {
          tags: ['console: organizations'],
          summary: 'Create an organization you administer, and switch to it',
          body: z.object({ name: OrganizationName }),
          response: { 201: z.object({ id: z.string(), name: z.string() }) },
        },
      },
      async (request, reply) => {
        const { organizationId } = await services.organizations.createForUser(requireAccount(request).userId, request.body.name);
        return reply.code(201).send({ id: organizationId, name: request.body.name });
      },
    );

    app.get(
      '/organizations/self',
      { schema: { tags: ['console: organizations'], response: { 200: OrganizationSchema } } },
      async (request) => organizationWire(await services.organizations.get(requireContext(request).organizationId)),
    );

    app.patch(
      '/organizations/self',
      {
        schema: { tags: ['console: organizations'], body: z.object({ name: OrganizationName }), response: { 200: OrganizationSchema } },
      },
      async (request) => organizationWire(await services.organizations.rename(requireContext(request).organizationId, request.body.name)),
    );

    app.delete(
      '/organizations/self',
      {
        schema: {
          tags: ['console: organizations'],
          summary: 'Delete the organization with everything it owns',
          response: { 200: Success },
        },
      },
      async (request) => {
        await services.organizations.delete(requireContext(request).organizationId);
        return success;
      },
    );

    app.get(
      '/organizations/self/preferences',
      {
        schema: { tags: ['console: organizations'], response: { 200: z.object({ defaultProjectId: z.string().nullable() }) } },
      },
      async (request) => ({ defaultProjectId: await services.organizations.defaultProjectId(requireContext(request).organizationId) }),
    );
  };
}
