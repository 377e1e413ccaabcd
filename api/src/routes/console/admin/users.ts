import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppServices } from '../../../services/index.js';
import { PageQuery, success, Success } from '../schemas.js';
import { AdminOrganizationSchema, adminOrganizationWire, AdminUserSchema, adminUserWire, UserParams } from './schemas.js';

const tags = ['console: admin users'];

/** Every account of the platform, for platform admins. */
export function adminUserRoutes(services: AppServices): FastifyPluginAsyncZod {
  const { adminUsers } = services;
  return async (app) => {
    app.get(
      '/admin/users',
      {
        schema: {
          tags,
          summary: 'Accounts, newest first; search matches the email, the name or the exact id',
          querystring: PageQuery,
          response: { 200: z.object({ users: z.array(AdminUserSchema), hasNextPage: z.boolean() }) },
        },
      },
      async (request) => {
        const page = await adminUsers.list(request.query);
        return { users: page.users.map(adminUserWire), hasNextPage: page.hasNextPage };
      },
    );

    app.get(
      '/admin/users/:userId',
      { schema: { tags, params: UserParams, response: { 200: AdminUserSchema } } },
      async (request) => adminUserWire(await adminUsers.get(request.params.userId)),
    );

    app.put(
      '/admin/users/:userId/name',
      { schema: { tags, params: UserParams, body: z.object({ name: z.string().trim().min(1).max(100) }), response: { 200: AdminUserSchema } } },
      async (request) => adminUserWire(await adminUsers.rename(request.params.userId, request.body.name)),
    );

    app.delete(
      '/admin/users/:userId',
      { schema: { tags, summary: 'Deletes the account; organizations it was alone in go with it', params: UserParams, response: { 200: Success } } },
      async (request) => {
        await adminUsers.delete(request.params.userId);
        return success;
      },
    );

    app.get(
      '/admin/users/:userId/organizations',
      { schema: { tags, params: UserParams, response: { 200: z.object({ organizations: z.array(AdminOrganizationSchema) }) } } },
      async (request) => ({ organizations: (await adminUsers.organizations(request.params.userId)).map(adminOrganizationWire) }),
    );

    app.post(
      '/admin/users/:userId/sync-hubspot',
      { schema: { tags, summary: 'Answers 503 unless a CRM is configured (none is part of Engram)', params: UserParams, response: { 200: Success } } },
      async (request) => adminUsers.syncToCrm(request.params.userId),
    );
  };
}
