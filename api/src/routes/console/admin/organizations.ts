import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppServices } from '../../../services/index.js';
import { iso, PageQuery, RoleSchema, success, Success } from '../schemas.js';
import { AdminOrganizationSchema, adminOrganizationWire, AdminUserSchema, adminUserWire, OrganizationParams, RateLimitSchema } from './schemas.js';

const tags = ['console: admin organizations'];

const DomainSchema = z.object({ id: z.string(), domain: z.string() });
const SsoConfigurationSchema = z.object({ id: z.string(), domain: z.string(), workOSOrganizationId: z.string(), createdAt: z.string() });

/** Every organization of the platform, for platform admins: inspect, ban, delete, members, limits, domains, SSO. */
export function adminOrganizationRoutes(services: AppServices): FastifyPluginAsyncZod {
  const { adminOrganizations, modelRateLimits } = services;
  return async (app) => {
    app.get(
      '/admin/organizations',
      {
        schema: {
          tags,
          summary: 'Organizations, newest first; search matches the name or the exact id',
          querystring: PageQuery,
          response: { 200: z.object({ organizations: z.array(AdminOrganizationSchema), hasNextPage: z.boolean() }) },
        },
      },
      async (request) => {
        const page = await adminOrganizations.list(request.query);
        return { organizations: page.organizations.map(adminOrganizationWire), hasNextPage: page.hasNextPage };
      },
    );

    app.get(
      '/admin/organizations/:organizationId',
      { schema: { tags, params: OrganizationParams, response: { 200: AdminOrganizationSchema } } },
      async (request) => adminOrganizationWire(await adminOrganizations.get(request.params.organizationId)),
    );

    app.delete(
      '/admin/organizations/:organizationId',
      { schema: { tags, summary: 'Deletes the organization and everything it owns', params: OrganizationParams, response: { 200: Success } } },
      async (request) => {
        await adminOrganizations.delete(request.params.organizationId);
        return success;
      },
    );

    app.post(
      '/admin/organizations/:organizationId/ban',
      {
        schema: {
          tags,
          summary: "Refuses every credential of the organization from now on and cancels its runs in flight",
          params: OrganizationParams,
          response: { 200: AdminOrganizationSchema.extend({ cancelledRuns: z.number() }) },
        },
      },
      async (request) => {
        const banned = await adminOrganizations.ban(request.params.organizationId);
        return { ...adminOrganizationWire(banned.organization), cancelledRuns: banned.cancelledRuns };
      },
    );

    app.post(
      '/admin/organizations/:organizationId/unban',
      { schema: { tags, params: OrganizationParams, response: { 200: AdminOrganizationSchema } } },
      async (request) => adminOrganizationWire(await adminOrganizations.unban(request.params.organizationId)),
    );

    app.get(
      '/admin/organizations/:organizationId/users',
      {
        schema: {
          tags,
          params: OrganizationParams,
          response: { 200: z.object({ users: z.array(AdminUserSchema.extend({ role: RoleSchema, joinedAt: z.string() })) }) },
        },
      },
      async (request) => {
        const members = await adminOrganizations.members(request.params.organizationId);
        return { users: members.map((member) => ({ ...adminUserWire(member.user), role: member.role, joinedAt: iso(member.joinedAt) })) };
      },
    );

    app.post(
      '/admin/organizations/:organizationId/add-user',
      {
        schema: {
          tags,
          params: OrganizationParams,
          body: z.object({ userId: z.string().min(1), role: RoleSchema.default('editor') }),
          response: { 200: Success },
        },
      },
      async (request) => {
        await adminOrganizations.addUser(request.params.organizationId, request.body);
        return success;
      },
    );

    app.post(
      '/admin/organizations/:organizationId/remove-user',
      { schema: { tags, params: OrganizationParams, body: z.object({ userId: z.string().min(1) }), response: { 200: Success } } },
      async (request) => {
        await adminOrganizations.removeUser(request.params.organizationId, request.body.userId);
        return success;
      },
    );

    app.get(
      '/admin/organizations/:organizationId/statistics',
      {
        schema: {
          tags,
          params: OrganizationParams,
          response: {
            200: z.object({
              members: z.number(),
              projects: z.number(),
              agents: z.number(),
              apiKeys: z.number(),
              runsLast30Days: z.number(),
              activeRuns: z.number(),
            }),
          },
        },
      },
      async (request) => adminOrganizations.statistics(request.params.organizationId),
    );

    app.get(
      '/admin/organizations/:organizationId/rate-limits',
      {
        schema: {
          tags,
          summary: "Each registered model's limit for the organization: the admin's override, else the model's default",
          params: OrganizationParams,
          response: { 200: z.object({ rateLimits: z.array(RateLimitSchema.extend({ isOverride: z.boolean() })) }) },
        },
      },
      async (request) => {
        const { rateLimits, overrides } = await modelRateLimits.list(request.params.organizationId);
        return { rateLimits: rateLimits.map((limit) => ({ ...limit, isOverride: overrides.includes(limit.model) })) };
      },
    );

    app.put(
      '/admin/organizations/:organizationId/rate-limits/:model',
      {
        schema: {
          tags,
          params: OrganizationParams.extend({ model: z.string().min(1) }),
          body: RateLimitSchema.omit({ model: true }),
          response: { 200: RateLimitSchema },
        },
      },
      async (request) => modelRateLimits.set(request.params.organizationId, { model: request.params.model, ...request.body }),
    );

    app.delete(
      '/admin/organizations/:organizationId/rate-limits/:model',
      { schema: { tags, summary: "Back to the model's default", params: OrganizationParams.extend({ model: z.string().min(1) }), response: { 200: Success } } },
      async (request) => {
        await modelRateLimits.remove(request.params.organizationId, request.params.model);
        return success;
      },
    );

    app.get(
      '/admin/organizations/:organizationId/verified-domains',
      { schema: { tags, params: OrganizationParams, response: { 200: z.object({ domains: z.array(DomainSchema) }) } } },
      async (request) => {
        const domains = await adminOrganizations.verifiedDomains(request.params.organizationId);
        return { domains: domains.map((domain) => ({ id: domain.id, domain: domain.domain })) };
      },
    );

    app.post(
      '/admin/organizations/:organizationId/verified-domains',
      { schema: { tags, params: OrganizationParams, body: z.object({ domain: z.string().trim().min(3).regex(/^[a-z0-9.-]+\.[a-z]{2,}$/i) }), response: { 201: DomainSchema } } },
      async (request, reply) => {
        const domain = await adminOrganizations.addVerifiedDomain(request.params.organizationId, request.body.domain);
        return reply.code(201).send({ id: domain.id, domain: domain.domain });
      },
    );

    app.delete(
      '/admin/organizations/:organizationId/verified-domains/:domainId',
      { schema: { tags, params: OrganizationParams.extend({ domainId: z.string() }), response: { 200: Success } } },
      async (request) => {
        await adminOrganizations.removeVerifiedDomain(request.params.organizationId, request.params.domainId);
        return success;
      },
    );

    app.get(
      '/admin/organizations/:organizationId/sso-configurations',
      { schema: { tags, params: OrganizationParams, response: { 200: z.object({ configurations: z.array(SsoConfigurationSchema) }) } } },
      async (request) => {
        const configurations = await adminOrganizations.ssoConfigurations(request.params.organizationId);
        return {
          configurations: configurations.map((configuration) => ({
            id: configuration.id,
            domain: configuration.domain,
            workOSOrganizationId: configuration.workosOrganizationId,
            createdAt: iso(configuration.createdAt),
          })),
        };
      },
    );

    app.post(
      '/admin/organizations/:organizationId/sso-configurations',
      {
        schema: {
          tags,
          params: OrganizationParams,
          body: z.object({ domain: z.string().trim().min(3), workOSOrganizationId: z.string().trim().min(1) }),
          response: { 201: SsoConfigurationSchema },
        },
      },
      async (request, reply) => {
        const configuration = await adminOrganizations.addSsoConfiguration(request.params.organizationId, request.body);
        return reply.code(201).send({
          id: configuration.id,
          domain: configuration.domain,
          workOSOrganizationId: configuration.workosOrganizationId,
          createdAt: iso(configuration.createdAt),
        });
      },
    );

    app.delete(
      '/admin/organizations/:organizationId/sso-configurations/:configurationId',
      { schema: { tags, params: OrganizationParams.extend({ configurationId: z.string() }), response: { 200: Success } } },
      async (request) => {
        await adminOrganizations.removeSsoConfiguration(request.params.organizationId, request.params.configurationId);
        return success;
      },
    );
  };
}
