import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireContext } from '../../http/auth.js';
import type { AppServices } from '../../services/index.js';
import { ModelQuotaResponse } from '../../contracts/v1/organizations.js';
import { errorResponses } from './shared/error-responses.js';

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
