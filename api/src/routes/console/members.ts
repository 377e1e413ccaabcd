import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireContext } from '../../http/auth.js';
import { ASSIGNABLE_PERMISSIONS } from '../../http/permissions.js';
import type { MemberView } from '../../services/tenancy/members.js';
import type { AppServices } from '../../services/index.js';
import { iso, PageQuery, RoleSchema, success, Success } from './schemas.js';

const MemberSchema = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string().nullable(),
  role: RoleSchema,
  customPermissions: z.array(z.string()),
  createdAt: z.string(),
  updatedAt: z.string(),
});

const memberWire = ({ member, user }: MemberView): z.infer<typeof MemberSchema> => ({
  id: user.id,
  name: user.name,
  email: user.email,
  role: member.role,
  customPermissions: member.customPermissions,
  createdAt: iso(member.createdAt),
  updatedAt: iso(member.updatedAt),
});

const MemberParams = z.object({ memberId: z.string() });

/** The acting organization's members and their roles. */
export function memberRoutes(services: AppServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/organizations/self/members',
      {
        schema: {
          tags: ['console: members'],
          querystring: PageQuery,
          response: { 200: z.object({ members: z.array(MemberSchema), hasNextPage: z.boolean() }) },
        },
      },
      async (request) => {
        const page = await services.members.list(requireContext(request).organizationId, request.query);
        return { members: page.members.map(memberWire), hasNextPage: page.hasNextPage };
      },
    );

    app.delete(
      '/organizations/self/members/:memberId',
      { schema: { tags: ['console: members'], params: MemberParams, response: { 200: Success } } },
      async (request) => {
        await services.members.remove(requireContext(request), request.params.memberId);
        return success;
      },
    );

    app.patch(
      '/organizations/self/members/:memberId/role',
      {
        schema: {
          tags: ['console: members'],
          summary: "Change a member's role; `customPermissions` apply to the custom role",
          params: MemberParams,
          body: z.object({ role: RoleSchema, customPermissions: z.array(z.enum(ASSIGNABLE_PERMISSIONS)).optional() }),
          response: { 200: Success },
        },
      },
      async (request) => {
        await services.members.changeRole(requireContext(request), request.params.memberId, request.body);
        return success;
      },
    );
  };
}
