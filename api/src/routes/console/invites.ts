import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { OrganizationInvite } from '@engram/db';
import { requireContext } from '../../http/auth.js';
import type { InviteRuleView } from '../../services/tenancy/invites.js';
import type { AppServices } from '../../services/index.js';
import { EmailDeliverySchema, iso, PageQuery, RoleSchema, success, Success } from './schemas.js';

const InvitedMemberSchema = z.object({
  id: z.string(),
  email: z.string(),
  role: RoleSchema,
  inviteCode: z.string(),
  createdAt: z.string(),
  expiresAt: z.string(),
});

const invitedWire = (invite: OrganizationInvite): z.infer<typeof InvitedMemberSchema> => ({
  id: invite.id,
  email: invite.email,
  role: invite.role,
  inviteCode: invite.inviteCode,
  createdAt: iso(invite.createdAt),
  expiresAt: iso(invite.expiresAt),
});

const InviteRuleSchema = z.object({ id: z.string(), domain: z.string(), role: RoleSchema });

const ruleWire = ({ rule, domain }: InviteRuleView): z.infer<typeof InviteRuleSchema> => ({ id: rule.id, domain, role: rule.role });

const InviteParams = z.object({ inviteId: z.string() });

/** Invitations into the acting organization, and the domain rules that let people in on their own. */
export function inviteRoutes(services: AppServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/organizations/self/invited-members',
      {
        schema: {
          tags: ['console: invites'],
          querystring: PageQuery,
          response: { 200: z.object({ members: z.array(InvitedMemberSchema), hasNextPage: z.boolean() }) },
        },
      },
      async (request) => {
        const page = await services.invites.list(requireContext(request).organizationId, request.query);
        return { members: page.invites.map(invitedWire), hasNextPage: page.hasNextPage };
      },
    );

    app.post(
      '/organizations/self/invited-members',
      {
        schema: {
          tags: ['console: invites'],
          summary: 'Invite by email: 201 with a new invite, or 200 when the account exists and joins at once',
          body: z.object({ email: z.email(), role: RoleSchema.default('analyst') }),
          response: {
            201: InvitedMemberSchema.extend({ emailDelivery: EmailDeliverySchema }),
            200: z.object({ id: z.string(), email: z.string(), name: z.string() }),
          },
        },
      },
      async (request, reply) => {
        const outcome = await services.invites.invite(requireContext(request), request.body);
        if (outcome.kind === 'added') {
          return reply.code(200).send({ id: outcome.user.id, email: outcome.user.email ?? request.body.email, name: outcome.user.name });
        }
        return reply.code(201).send({ ...invitedWire(outcome.invite), emailDelivery: services.accounts.emailDelivery });
      },
    );

    app.delete(
      '/organizations/self/invited-members/:inviteId',
      { schema: { tags: ['console: invites'], params: InviteParams, response: { 200: Success } } },
      async (request) => {
        await services.invites.remove(requireContext(request).organizationId, request.params.inviteId);
        return success;
      },
    );

    app.post(
      '/organizations/self/invited-members/:inviteId/regenerate',
      {
        schema: {
          tags: ['console: invites'],
          summary: 'A new invite code; the old one stops working',
          params: InviteParams,
          response: { 200: InvitedMemberSchema },
        },
      },
      async (request) => invitedWire(await services.invites.regenerate(requireContext(request).organizationId, request.params.inviteId)),
    );

    app.get(
      '/invites/:inviteCode',
      {
        schema: {
          tags: ['console: invites'],
          summary: 'What an invite code is for (the code is the credential)',
          params: z.object({ inviteCode: z.string() }),
          response: { 200: z.object({ organizationName: z.string(), email: z.string() }) },
        },
      },
      async (request) => services.invites.lookup(request.params.inviteCode),
    );

    app.get(
      '/organizations/self/verified-domains',
      {
        schema: {
          tags: ['console: invites'],
          response: { 200: z.object({ domains: z.array(z.object({ id: z.string(), domain: z.string() })) }) },
        },
      },
      async (request) => ({
        domains: (await services.invites.listVerifiedDomains(requireContext(request).organizationId)).map(({ id, domain }) => ({ id, domain })),
      }),
    );

    app.get(
      '/organizations/self/invite-rules',
      { schema: { tags: ['console: invites'], response: { 200: z.object({ rules: z.array(InviteRuleSchema) }) } } },
      async (request) => ({ rules: (await services.invites.listInviteRules(requireContext(request).organizationId)).map(ruleWire) }),
    );

    app.post(
      '/organizations/self/invite-rules',
      {
        schema: {
          tags: ['console: invites'],
          summary: 'New accounts on a verified domain join with this role',
          body: z.object({ domainId: z.string(), role: RoleSchema }),
          response: { 201: InviteRuleSchema },
        },
      },
      async (request, reply) =>
        reply.code(201).send(ruleWire(await services.invites.createInviteRule(requireContext(request).organizationId, request.body))),
    );

    app.delete(
      '/organizations/self/invite-rules/:ruleId',
      { schema: { tags: ['console: invites'], params: z.object({ ruleId: z.string() }), response: { 200: Success } } },
      async (request) => {
        await services.invites.deleteInviteRule(requireContext(request).organizationId, request.params.ruleId);
        return success;
      },
    );
  };
}
