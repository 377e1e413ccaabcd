import { z } from 'zod';

/** Request and response shapes of the console's billing routes (spec 000 §3, §7): credits, ledger, cards, plans. */

export const BillingInfoSchema = z
  .object({
    billingTier: z.enum(['free', 'pro', 'scale', 'enterprise']),
    totalCredits: z.number().int(),
    recurrentCredits: z.number().int(),
    isCancelled: z.boolean(),
    billingPeriodEnd: z.string(),
  })
  .meta({ id: 'BillingInfo' });

const UsageSchema = z.object({ used: z.number(), limit: z.number().nullable() });

export const QuotasSchema = z.object({ freeModelRequests: UsageSchema, premiumModelRequests: UsageSchema, agents: UsageSchema }).meta({ id: 'Quotas' });

export const FullQuotasSchema = z
  .object({
    freeModelRequests: UsageSchema,
    premiumModelRequests: UsageSchema,
    agents: UsageSchema,
    identities: UsageSchema,
    projects: UsageSchema,
    dataSources: UsageSchema,
    templates: UsageSchema,
    tools: UsageSchema,
    premiumInferencesPerMonth: UsageSchema,
    freeInferencesPerMonth: UsageSchema,
    storage: UsageSchema,
    memoryBlocks: UsageSchema,
    apiKeys: UsageSchema,
    members: UsageSchema,
  })
  .meta({ id: 'FullQuotas' });

export const TransactionSchema = z
  .object({
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
  })
  .meta({ id: 'CreditTransaction' });

const DateQuery = z.iso.datetime({ offset: true }).transform((value) => new Date(value));

export const TransactionsQuery = z.object({
  offset: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  type: z.enum(['addition', 'subtraction']).optional(),
  startDate: DateQuery.optional(),
  endDate: DateQuery.optional(),
});

export const UsageAggregationQuery = z.object({ startDate: DateQuery.optional(), endDate: DateQuery.optional() });

export const UsageBucketSchema = z.object({
  date: z.string(),
  model: z.string(),
  credits: z.number(),
  requests: z.number(),
  promptTokens: z.number(),
  completionTokens: z.number(),
});

export const RedeemedSchema = z.object({ code: z.string(), amount: z.number().int(), redeemedAt: z.string(), transactionId: z.string() });

export const ReferralStatsSchema = z.object({
  code: z.string(),
  usageCount: z.number().int(),
  totalRewardsEarned: z.number().int(),
  referredOrganizations: z.array(z.object({ id: z.string(), name: z.string(), referredAt: z.string() })),
});

export const PaymentCardSchema = z
  .object({
    id: z.string(),
    last4: z.string(),
    expMonth: z.number().int(),
    expYear: z.number().int(),
    brand: z.string(),
    billingAddress: z.object({
      address1: z.string().nullable(),
      address2: z.string().nullable(),
      city: z.string().nullable(),
      state: z.string().nullable(),
      postalCode: z.string().nullable(),
      country: z.string().nullable(),
    }),
    isDefault: z.boolean(),
    isExpired: z.boolean(),
    name: z.string().nullable(),
  })
  .meta({ id: 'PaymentCard' });

/** A Stripe PaymentMethod id (`pm_…`; Stripe's test cards such as `pm_card_visa` too). */
const StripeMethodId = z.string().regex(/^pm_[A-Za-z0-9_]{1,200}$/, 'Must be a Stripe payment method id (pm_…)');

export const MethodParams = z.object({ methodId: z.string() });

export const SetupIntentSchema = z.object({ clientSecret: z.string(), setupIntentId: z.string() }).meta({ id: 'SetupIntent' });

export const AddCardBody = z.object({
  setupIntentId: z.string().regex(/^seti_[A-Za-z0-9_]{1,200}$/, 'Must be a Stripe setup intent id (seti_…)'),
  paymentMethodId: StripeMethodId,
});

export const BillingHistoryEntrySchema = z
  .object({ id: z.string(), amount: z.number(), createdAt: z.string(), description: z.string(), receiptLink: z.string().nullable() })
  .meta({ id: 'BillingHistoryEntry' });

export const BillingHistoryQuery = z.object({
  cursor: z.string().optional(),
  limit: z.coerce.number().int().min(1).max(100).default(20),
});

export const PurchaseBody = z.object({ credits: z.number().int().positive().max(100_000_000), cardId: z.string().min(1) });

export const PurchaseSchema = z.object({ totalCredits: z.number().int(), payment: BillingHistoryEntrySchema }).meta({ id: 'CreditPurchase' });

export const UpgradeBody = z.object({ cardId: z.string().min(1), tier: z.enum(['pro', 'scale']) });

/** Spec 000 §3 "Auto top-up", amounts in credits. */
export const AutoTopUpSchema = z
  .object({
    threshold: z.number().int().min(0),
    refillAmount: z.number().int().positive(),
    maxMonthlySpend: z.number().int().positive().nullable(),
    enabled: z.boolean(),
  })
  .meta({ id: 'AutoTopUp' });

export const AutoTopUpStateSchema = AutoTopUpSchema.extend({
  /** Why auto top-up turned itself off (the card was declined); null while it has not. */
  disabledReason: z.string().nullable(),
}).meta({ id: 'AutoTopUpState' });
