import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireContext } from '../../http/auth.js';
import type { AppServices } from '../../services/index.js';
import { BalanceResponse, CurrentUserResponse } from '../../contracts/v1/metadata.js';
import { errorResponses } from './shared/error-responses.js';

/** `/v1/metadata`: the caller and its organization's credits, for Letta's clients. */
export function metadataRoutes(services: AppServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/metadata/balance',
      {
        schema: {
          tags: ['metadata'],
          summary: "The organization's credit balance and tier, from the billing ledger",
          response: { 200: BalanceResponse, ...errorResponses(404) },
        },
      },
      async (request) => services.planOverview.balance(requireContext(request).organizationId),
    );

    app.get(
      '/metadata/user',
      {
        schema: {
          tags: ['metadata'],
          summary: 'The user the credentials act for, in their organization',
          response: { 200: CurrentUserResponse, ...errorResponses(404) },
        },
      },
      async (request) => {
        const ctx = requireContext(request);
        const user = await services.accounts.get(ctx.userId);
        return { id: user.id, name: user.name, email: user.email, organization_id: ctx.organizationId };
      },
    );
  };
}
