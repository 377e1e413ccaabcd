import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Organization, User } from '@engram/db';
import type { AppServices } from '../../services/index.js';
import { cursorId } from '../../contracts/shared/input-limits.js';
import { errorResponses } from './shared/error-responses.js';

const UserWire = z.object({
  id: z.string(),
  name: z.string(),
  organization_id: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  is_deleted: z.boolean(),
});

const OrganizationWire = z.object({ id: z.string(), name: z.string(), created_at: z.string(), privileged_tools: z.boolean() });

const userWire = (user: User): z.infer<typeof UserWire> => ({
  id: user.id,
  name: user.name,
  organization_id: user.activeOrganizationId,
  created_at: user.createdAt.toISOString(),
  updated_at: user.updatedAt.toISOString(),
  is_deleted: false,
});

const organizationWire = (organization: Organization): z.infer<typeof OrganizationWire> => ({
  id: organization.id,
  name: organization.name,
  created_at: organization.createdAt.toISOString(),
  privileged_tools: false,
});

const Page = z.object({ after: cursorId.optional(), limit: z.coerce.number().int().min(1).max(1000).default(50) });

/** `/v1/admin/users` and `/v1/admin/orgs` of the public API, for platform admins (`http/permissions.ts`). */
export function adminRoutes(services: AppServices): FastifyPluginAsyncZod {
  const { adminUsers, adminOrganizations } = services;
  return async (app) => {
    app.get('/admin/users/', { schema: { tags: ['admin'], querystring: Page, response: { 200: z.array(UserWire), ...errorResponses(422) } } }, async (request) =>
      (await adminUsers.listAfter(request.query)).map(userWire),
    );

    app.post(
      '/admin/users/',
      { schema: { tags: ['admin'], body: z.object({ name: z.string().min(1), organization_id: z.string().min(1) }), response: { 200: UserWire, ...errorResponses(404, 422) } } },
      async (request) => userWire(await adminUsers.create({ name: request.body.name, organizationId: request.body.organization_id, role: 'editor' })),
    );

    app.put(
      '/admin/users/',
      { schema: { tags: ['admin'], body: z.object({ id: z.string(), name: z.string().min(1) }), response: { 200: UserWire, ...errorResponses(404, 422) } } },
      async (request) => userWire(await adminUsers.rename(request.body.id, request.body.name)),
    );

    app.delete(
      '/admin/users/',
      { schema: { tags: ['admin'], querystring: z.object({ user_id: z.string() }), response: { 200: UserWire, ...errorResponses(400, 404, 422) } } },
      async (request) => {
        const user = await adminUsers.get(request.query.user_id);
        await adminUsers.delete(user.id);
        return { ...userWire(user), is_deleted: true };
      },
    );

    app.get('/admin/orgs/', { schema: { tags: ['admin'], querystring: Page, response: { 200: z.array(OrganizationWire), ...errorResponses(422) } } }, async (request) =>
      (await adminOrganizations.listAfter(request.query)).map(organizationWire),
    );

    app.post(
      '/admin/orgs/',
      { schema: { tags: ['admin'], body: z.object({ name: z.string().min(1) }), response: { 200: OrganizationWire, ...errorResponses(422) } } },
      async (request) => organizationWire(await adminOrganizations.create(request.body.name)),
    );

    app.patch(
      '/admin/orgs/',
      {
        schema: {
          tags: ['admin'],
          querystring: z.object({ org_id: z.string() }),
          body: z.object({ name: z.string().min(1) }),
          response: { 200: OrganizationWire, ...errorResponses(404, 422) },
        },
      },
      async (request) => organizationWire(await adminOrganizations.rename(request.query.org_id, request.body.name)),
    );

    app.delete(
      '/admin/orgs/',
      { schema: { tags: ['admin'], querystring: z.object({ org_id: z.string() }), response: { 200: OrganizationWire, ...errorResponses(404, 422) } } },
      async (request) => {
        const organization = await adminOrganizations.get(request.query.org_id);
        await adminOrganizations.delete(organization.id);
        return organizationWire(organization);
      },
    );
  };
}
