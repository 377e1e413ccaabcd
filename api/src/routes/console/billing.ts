import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { CreditTransaction } from '@engram/db';
import { requireContext } from '../../http/auth.js';
import type { AppServices } from '../../services/index.js';
import { iso } from './schemas.js';

const TAGS = ['console: billing'];

const BillingInfoSchema = z.object({
  billingTier: z.enum(['free', 'pro', 'scale', 'enterprise']),
  totalCredits: z.number().int(),
  recurrentCredits: z.number().int(),
  isCancelled: z.boolean(),
  billingPeriodEnd: z.string(),
});

const UsageSchema = z.object({ used: z.number(), limit: z.number().nullable() });

const QuotasSchema = z.object({ freeModelRequests: UsageSchema, premiumModelRequests: UsageSchema, agents: UsageSchema });

const FullQuotasSchema = QuotasSchema.extend({
  identities: UsageSchema,
  projects: UsageSchema,
  dataSources: UsageSchema,
  premiumInferencesPerMonth: UsageSchema,
  freeInferencesPerMonth: UsageSchema,
  storage: UsageSchema,
  memoryBlocks: UsageSchema,
});

const TransactionSchema = z.object({
  id: z.string(),
  type: z.enum(['addition', 'subtraction']),
  amount: z.number().int(),
  trueCost: z.number().nullable(),
  note: z.string().nullable(),
  source: z.string(),
  stepId: z.string().nullable(),
  modelTier: z.enum(['free', 'premium', 'per-inference']).nullable(),
  createdAt: z.string(),
  metadata: z.record(z.string(), z.unknown()),
});

const transactionWire = (transaction: CreditTransaction): z.infer<typeof TransactionSchema> => ({
  id: transaction.id,
  type: transaction.type,
  amount: Number(transaction.amount),
  trueCost: transaction.trueCost,
  note: transaction.note,
  source: transaction.source,
  stepId: transaction.stepId,
  modelTier: transaction.modelTier,
  createdAt: iso(transaction.createdAt),
  metadata: transaction.metadata,
});

const DateQuery = z.iso.datetime({ offset: true }).transform((value) => new Date(value));

const TransactionsQuery = z.object({
  offset: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  type: z.enum(['addition', 'subtraction']).optional(),
  startDate: DateQuery.optional(),
  endDate: DateQuery.optional(),
});

const DAY_MS = 24 * 60 * 60 * 1000;

const UsageAggregationQuery = z.object({ startDate: DateQuery.optional(), endDate: DateQuery.optional() });

const UsageBucketSchema = z.object({
  date: z.string(),
  model: z.string(),
  credits: z.number(),
  requests: z.number(),
  promptTokens: z.number(),
  completionTokens: z.number(),
});

const RedeemedSchema = z.object({ code: z.string(), amount: z.number().int(), redeemedAt: z.string(), transactionId: z.string() });

const ReferralStatsSchema = z.object({
  code: z.string(),
  usageCount: z.number().int(),
  totalRewardsEarned: z.number().int(),
  referredOrganizations: z.array(z.object({ id: z.string(), name: z.string(), referredAt: z.string() })),
});

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
