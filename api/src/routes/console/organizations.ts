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
  /** Whether the caller owns it (the admin member longest), who alone may delete it. */
  isOwner: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

const organizationWire = (organization: Organization, isOwner: boolean): z.infer<typeof OrganizationSchema> => ({
  id: organization.id,
  name: organization.name,
  isAdmin: organization.isAdmin,
  isOwner,
  createdAt: iso(organization.createdAt),
  updatedAt: iso(organization.updatedAt),
});

const DeletionImpactSchema = z.object({ members: z.number(), apiKeys: z.number(), agents: z.number(), projects: z.number(), templates: z.number() });

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

    const wireOf = async (organizationId: string, userId: string) =>
      organizationWire(await services.organizations.get(organizationId), await services.organizations.isOwner(organizationId, userId));

    app.get('/organizations/self', { schema: { tags: ['console: organizations'], response: { 200: OrganizationSchema } } }, async (request) => {
      const { organizationId, userId } = requireContext(request);
      return wireOf(organizationId, userId);
    });

    app.patch(
      '/organizations/self',
      {
        schema: { tags: ['console: organizations'], body: z.object({ name: OrganizationName }), response: { 200: OrganizationSchema } },
      },
      async (request) => {
        const { organizationId, userId } = requireContext(request);
        await services.organizations.rename(organizationId, request.body.name);
        return wireOf(organizationId, userId);
      },
    );

    app.get(
      '/organizations/self/deletion-impact',
      {
        schema: { tags: ['console: organizations'], summary: 'What deleting the organization takes with it', response: { 200: DeletionImpactSchema } },
      },
      async (request) => services.organizations.deletionImpact(requireContext(request).organizationId),
    );

    app.delete(
      '/organizations/self',
      {
        schema: {
          tags: ['console: organizations'],
          summary: 'Delete the organization with everything it owns (its owner only)',
          response: { 200: Success },
        },
      },
      async (request) => {
        const { organizationId, userId } = requireContext(request);
        await services.organizations.delete(organizationId, userId);
        return success;
      },
    );

    app.post(
      '/organizations/self/leave',
      {
        schema: {
          tags: ['console: organizations'],
          summary: 'Leave the organization (not as its last admin); you then act in another of yours',
          response: { 200: z.object({ activeOrganizationId: z.string().nullable() }) },
        },
      },
      async (request) => {
        const { organizationId, userId } = requireContext(request);
        return services.organizations.leave(organizationId, userId);
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
