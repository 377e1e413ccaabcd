import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireContext } from '../../http/auth.js';
import type { AppServices } from '../../services/index.js';
import { errorResponses } from './shared/error-responses.js';

const QuotaTier = z.object({
  bucket: z.enum(['full', 'high', 'medium', 'low', 'empty']).describe("How much of the month's allowance is left: full (three quarters or more), high, medium, low, empty"),
  dailyBucket: z.null().describe('Engram has no daily allowance'),
  used: z.number().int().describe("This month's requests"),
  limit: z.number().int().nullable().describe('The monthly allowance; null (or 0: every request paid with credits) when none applies'),
});

/** `GET /v1/organizations/self/quotas`, as Letta Code reads it (`letta usage`). */
export const ModelQuotaResponse = z
  .object({
    lettaTier: QuotaTier.describe("The tier's standard model requests"),
    premiumTier: QuotaTier.describe("The tier's premium model requests"),
    quotaWindowEnd: z.string().describe('When the allowance starts over (the billing period end)'),
    dailyQuotaWindowEnd: z.null(),
    unlimited: z.boolean().describe('true when billing is off (a self-hosted deployment): no allowance is ever enforced'),
  })
  .meta({ id: 'ModelQuota' });

/** `/v1/organizations/self`: what Letta's clients read of the caller's organization. */
export function organizationRoutes(services: AppServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/organizations/self/quotas',
      {
        schema: {
          tags: ['organizations'],
          summary: "How much of the month's model requests the organization's tier allows is left",
          response: { 200: ModelQuotaResponse, ...errorResponses(404) },
        },
      },
      async (request) => services.planOverview.modelQuotas(requireContext(request).organizationId),
    );
  };
}
