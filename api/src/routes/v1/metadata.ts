import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireContext } from '../../http/auth.js';
import type { AppServices } from '../../services/index.js';
import { errorResponses } from './shared/error-responses.js';

const UNLIMITED = 'true when billing is off (a self-hosted deployment): steps are metered but nothing is ever refused';

/** `GET /v1/metadata/balance`, as Letta Code reads it (`letta usage`, its choice of sub-agent models). */
export const BalanceResponse = z
  .object({
    total_balance: z.number().describe("The organization's credit balance (may be below zero with billing off or invoiced usage)"),
    monthly_credit_balance: z.number().describe("The part of the balance the tier's monthly grant covers"),
    purchased_credit_balance: z.number().describe('The rest of the balance: purchased, gifted or added by an operator'),
    billing_tier: z.string().describe("The organization's tier (free, pro, scale, enterprise), or `self-hosted` when billing is off"),
    unlimited: z.boolean().describe(UNLIMITED),
    billing_period_end: z.string().describe('When the current billing period (a calendar month, UTC) ends'),
  })
  .meta({ id: 'BalanceMetadata' });

/** `GET /v1/metadata/user`: who the caller is (Letta Code tags its favourites with the id). */
export const CurrentUserResponse = z
  .object({ id: z.string(), name: z.string(), email: z.string().nullable(), organization_id: z.string() })
  .meta({ id: 'CurrentUserMetadata' });

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
