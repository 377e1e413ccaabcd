import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppServices } from '../../../services/index.js';
import { iso, PageQuery, success, Success } from '../schemas.js';

const WhitelistedEmailSchema = z.object({ id: z.string(), email: z.string(), createdAt: z.string() });

/** The platform-wide lists of the admin area: content violations, the usage leaderboard, whitelisted emails. */
export function adminPlatformRoutes(services: AppServices): FastifyPluginAsyncZod {
  const { contentViolations, usageLeaderboard, whitelistedEmails } = services;
  return async (app) => {
    app.get(
      '/admin/content-violations',
      {
        schema: {
          tags: ['console: admin content violations'],
          summary: 'Flagged content, newest first, 20 to a page',
          querystring: z.object({ page: z.coerce.number().int().min(0).default(0) }),
          response: {
            200: z.object({
              violations: z.array(
                z.object({ id: z.string(), organizationId: z.string(), organizationName: z.string(), reasons: z.array(z.string()), content: z.string(), flaggedAt: z.string() }),
              ),
              hasNextPage: z.boolean(),
            }),
          },
        },
      },
      async (request) => {
        const page = await contentViolations.list(request.query.page);
        return {
          violations: page.violations.map(({ violation, organizationName }) => ({
            id: violation.id,
            organizationId: violation.organizationId,
            organizationName,
            reasons: violation.reasons,
            content: violation.content,
            flaggedAt: iso(violation.flaggedAt),
          })),
          hasNextPage: page.hasNextPage,
        };
      },
    );

    app.get(
      '/admin/usage-leaderboard',
      {
        schema: {
          tags: ['console: admin usage'],
          summary: 'Organizations by tokens used over the last days',
          querystring: z.object({ days: z.coerce.number().int().min(1).max(365).default(30), limit: z.coerce.number().int().min(1).max(100).default(20) }),
          response: {
            200: z.object({
              leaderboard: z.array(z.object({ organizationId: z.string(), organizationName: z.string(), runs: z.number(), steps: z.number(), totalTokens: z.number() })),
            }),
          },
        },
      },
      async (request) => ({ leaderboard: await usageLeaderboard.top(request.query) }),
    );

    app.get(
      '/admin/whitelisted-emails',
      {
        schema: {
          tags: ['console: admin whitelisted emails'],
          querystring: PageQuery,
          response: { 200: z.object({ emails: z.array(WhitelistedEmailSchema), hasNextPage: z.boolean() }) },
        },
      },
      async (request) => {
        const page = await whitelistedEmails.list(request.query);
        return { emails: page.emails.map((email) => ({ id: email.id, email: email.email, createdAt: iso(email.createdAt) })), hasNextPage: page.hasNextPage };
      },
    );

    app.post(
      '/admin/whitelisted-emails',
      { schema: { tags: ['console: admin whitelisted emails'], body: z.object({ email: z.email() }), response: { 201: WhitelistedEmailSchema } } },
      async (request, reply) => {
        const email = await whitelistedEmails.add(request.body.email);
        return reply.code(201).send({ id: email.id, email: email.email, createdAt: iso(email.createdAt) });
      },
    );

    app.delete(
      '/admin/whitelisted-emails/:whitelistedEmailId',
      { schema: { tags: ['console: admin whitelisted emails'], params: z.object({ whitelistedEmailId: z.string() }), response: { 200: Success } } },
      async (request) => {
        await whitelistedEmails.remove(request.params.whitelistedEmailId);
        return success;
      },
    );

    app.post(
      '/admin/flush-whitelists',
      { schema: { tags: ['console: admin whitelisted emails'], summary: 'Empties the whitelist', response: { 200: z.object({ success: z.boolean(), removed: z.number() }) } } },
      async () => ({ success: true, removed: await whitelistedEmails.flush() }),
    );
  };
}
