import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireContext } from '../../http/auth.js';
import type { AppServices } from '../../services/index.js';
import {
  BillingInfoSchema,
  FullQuotasSchema,
  QuotasSchema,
  RedeemedSchema,
  ReferralStatsSchema,
  TransactionSchema,
  TransactionsQuery,
  UsageAggregationQuery,
  UsageBucketSchema,
} from './billing-schema.js';
import { transactionWire } from './billing-wire.js';
import { iso } from './schemas.js';

const DAY_MS = 24 * 60 * 60 * 1000;

const TAGS = ['console: billing'];

/** The organization's credits, quotas, ledger, gift-code redemption and referral code (spec 000 §3, §7). */
export function billingRoutes(services: AppServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/organizations/self/billing-info',
      { schema: { tags: TAGS, summary: "The organization's tier, credit balance and billing period", response: { 200: BillingInfoSchema } } },
      async (request) => services.billing.billingInfo(requireContext(request).organizationId),
    );

    app.get(
      '/organizations/self/credits',
      { schema: { tags: TAGS, summary: "The organization's credit balance", response: { 200: z.object({ credits: z.number().int() }) } } },
      async (request) => ({ credits: await services.billing.balance(requireContext(request).organizationId) }),
    );

    app.get(
      '/organizations/self/quotas',
      { schema: { tags: TAGS, summary: 'Model requests this period and agents, against the tier limits', response: { 200: QuotasSchema } } },
      async (request) => services.quotas.quotas(requireContext(request).organizationId),
    );

    app.get(
      '/organizations/self/quotas/full',
      { schema: { tags: TAGS, summary: 'Every counted resource against its tier limit', response: { 200: FullQuotasSchema } } },
      async (request) => services.quotas.fullQuotas(requireContext(request).organizationId),
    );

    app.get(
      '/transactions',
      {
        schema: {
          tags: TAGS,
          summary: 'The credit ledger, newest first',
          querystring: TransactionsQuery,
          response: { 200: z.object({ transactions: z.array(TransactionSchema), hasNextPage: z.boolean() }) },
        },
      },
      async (request) => {
        const { offset, limit, ...filter } = request.query;
        const page = await services.billing.listTransactions(requireContext(request).organizationId, filter, { offset, limit });
        return { transactions: page.transactions.map(transactionWire), hasNextPage: page.hasNextPage };
      },
    );

    app.get(
      '/transactions/usage-aggregation',
      {
        schema: {
          tags: TAGS,
          summary: 'Metered steps per day and model (default: the last 30 days)',
          querystring: UsageAggregationQuery,
          response: { 200: z.object({ usage: z.array(UsageBucketSchema) }) },
        },
      },
      async (request) => {
        const endDate = request.query.endDate ?? new Date();
        const startDate = request.query.startDate ?? new Date(endDate.getTime() - 30 * DAY_MS);
        return { usage: await services.billing.usageAggregation(requireContext(request).organizationId, { startDate, endDate }) };
      },
    );

    app.post(
      '/gift-codes/redeem',
      {
        schema: { tags: TAGS, summary: 'Redeem a gift code for credits', body: z.object({ code: z.string().trim().min(1) }), response: { 200: RedeemedSchema } },
      },
      async (request) => {
        const redeemed = await services.giftCodes.redeem(requireContext(request).organizationId, request.body.code);
        return { ...redeemed, redeemedAt: iso(redeemed.redeemedAt) };
      },
    );

    app.get(
      '/referral/code',
      { schema: { tags: TAGS, summary: "The organization's referral code", response: { 200: z.object({ code: z.string() }) } } },
      async (request) => ({ code: await services.referrals.referralCode(requireContext(request).organizationId) }),
    );

    app.get(
      '/referral/stats',
      { schema: { tags: TAGS, summary: 'Organizations referred with this code and the rewards earned', response: { 200: ReferralStatsSchema } } },
      async (request) => {
        const { organizationId } = requireContext(request);
        const stats = await services.referrals.stats(organizationId, await services.referrals.referralCode(organizationId));
        return { ...stats, referredOrganizations: stats.referredOrganizations.map((referred) => ({ ...referred, referredAt: iso(referred.referredAt) })) };
      },
    );

    app.post(
      '/referral/validate',
      {
        schema: {
          tags: TAGS,
          summary: 'Whether a referral code can be used',
          body: z.object({ code: z.string().trim().min(1).max(10) }),
          response: { 200: z.object({ valid: z.boolean() }) },
        },
      },
      async (request) => ({ valid: await services.referrals.validate(request.body.code) }),
    );
  };
}
