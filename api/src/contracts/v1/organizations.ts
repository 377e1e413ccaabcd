import { z } from 'zod';

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
