import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { CreditTransaction, GiftCode, Organization } from '@engram/db';
import type { AppServices } from '../../../services/index.js';
import { iso, PageQuery, success, Success } from '../schemas.js';
import { OrganizationParams } from './schemas.js';

const isoOrNull = (date: Date | null) => (date ? iso(date) : null);

/** Spec 000 §5: credit changes are positive integers. */
const CreditChangeBody = z.object({ amount: z.number().int().positive(), note: z.string().max(500).optional() });

const TransactionSchema = z.object({
  id: z.string(),
  type: z.enum(['addition', 'subtraction']),
  amount: z.number(),
  note: z.string().nullable(),
  source: z.string(),
  stepId: z.string().nullable(),
  createdAt: z.string(),
});

const transactionWire = (transaction: CreditTransaction): z.infer<typeof TransactionSchema> => ({
  id: transaction.id,
  type: transaction.type,
  amount: Number(transaction.amount),
  note: transaction.note,
  source: transaction.source,
  stepId: transaction.stepId,
  createdAt: iso(transaction.createdAt),
});

const GiftCodeSchema = z.object({
  id: z.string(),
  name: z.string(),
  code: z.string(),
  description: z.string(),
  redemptionAmount: z.number(),
  maxUses: z.number().nullable(),
  maxUsesPerOrganization: z.number(),
  uses: z.number(),
  expiresAt: z.string().nullable(),
  disabledAt: z.string().nullable(),
  creditExpiryTimeMs: z.number().nullable(),
});

const giftCodeWire = (giftCode: GiftCode): z.infer<typeof GiftCodeSchema> => ({
  id: giftCode.id,
  name: giftCode.name,
  code: giftCode.code,
  description: giftCode.description,
  redemptionAmount: giftCode.redemptionAmount,
  maxUses: giftCode.maxUses,
  maxUsesPerOrganization: giftCode.maxUsesPerOrganization,
  uses: giftCode.uses,
  expiresAt: isoOrNull(giftCode.expiresAt),
  disabledAt: isoOrNull(giftCode.disabledAt),
  creditExpiryTimeMs: giftCode.creditExpiryTimeMs === null ? null : Number(giftCode.creditExpiryTimeMs),
});

/** Spec 000 §5: name, code and description at least one character; amounts positive integers. */
const GiftCodeBody = z.object({
  name: z.string().trim().min(1),
  code: z.string().trim().min(1),
  description: z.string().trim().min(1),
  redemptionAmount: z.number().int().positive(),
  maxUses: z.number().int().positive().nullable().optional(),
  maxUsesPerOrganization: z.number().int().positive().optional(),
  expiresAt: z.iso.datetime({ offset: true }).transform((value) => new Date(value)).nullable().optional(),
  creditExpiryTimeMs: z.number().int().positive().nullable().optional(),
});

const GiftCodeParams = z.object({ giftCodeId: z.string() });

const ReferralConfigurationSchema = z.object({
  referrerRewardAmount: z.number().int().nonnegative(),
  referredRewardAmount: z.number().int().nonnegative(),
  maxReferralRewardPerOrg: z.number().int().nonnegative(),
  enabled: z.boolean(),
});

/** The billing side of the admin area, on billing's services: credits and their ledger, gift codes, the referral programme. */
export function adminBillingRoutes(services: AppServices): FastifyPluginAsyncZod {
  const { billing, giftCodes, referrals, adminGiftCodes, adminOrganizations } = services;
  return async (app) => {
    const organizationTags = ['console: admin organizations'];
    const found = (organizationId: string): Promise<Organization> => adminOrganizations.get(organizationId);

    app.get(
      '/admin/organizations/:organizationId/credits',
      { schema: { tags: organizationTags, params: OrganizationParams, response: { 200: z.object({ credits: z.number() }) } } },
      async (request) => {
        await found(request.params.organizationId);
        return { credits: await billing.balance(request.params.organizationId) };
      },
    );

    for (const [path, change] of [
      ['add-credits', billing.addCredits],
      ['remove-credits', billing.removeCredits],
    ] as const) {
      app.post(
        `/admin/organizations/:organizationId/${path}`,
        { schema: { tags: organizationTags, params: OrganizationParams, body: CreditChangeBody, response: { 200: z.object({ credits: z.number() }) } } },
        async (request) => {
          const { organizationId } = request.params;
          await found(organizationId);
          await change(organizationId, { amount: request.body.amount, note: request.body.note ?? null, source: 'admin' });
          return { credits: await billing.balance(organizationId) };
        },
      );
    }

    app.get(
      '/admin/organizations/:organizationId/credit-transactions',
      {
        schema: {
          tags: organizationTags,
          params: OrganizationParams,
          querystring: PageQuery,
          response: { 200: z.object({ transactions: z.array(TransactionSchema), hasNextPage: z.boolean() }) },
        },
      },
      async (request) => {
        await found(request.params.organizationId);
        const page = await billing.listTransactions(request.params.organizationId, {}, request.query);
        return { transactions: page.transactions.map(transactionWire), hasNextPage: page.hasNextPage };
      },
    );

    const giftTags = ['console: admin gift codes'];

    app.get('/admin/gift-codes', { schema: { tags: giftTags, response: { 200: z.object({ giftCodes: z.array(GiftCodeSchema) }) } } }, async () => ({
      giftCodes: (await giftCodes.listGiftCodes()).map(giftCodeWire),
    }));

    app.post(
      '/admin/gift-codes',
      { schema: { tags: giftTags, summary: 'A code already taken (case-insensitively) answers giftCodeAlreadyExists', body: GiftCodeBody, response: { 201: GiftCodeSchema } } },
      async (request, reply) => reply.code(201).send(giftCodeWire(await giftCodes.createGiftCode(request.body))),
    );

    app.get('/admin/gift-codes/:giftCodeId', { schema: { tags: giftTags, params: GiftCodeParams, response: { 200: GiftCodeSchema } } }, async (request) =>
      giftCodeWire(await giftCodes.getGiftCode(request.params.giftCodeId)),
    );

    app.put('/admin/gift-codes/:giftCodeId', { schema: { tags: giftTags, params: GiftCodeParams, body: GiftCodeBody, response: { 200: GiftCodeSchema } } }, async (request) =>
      giftCodeWire(await adminGiftCodes.update(request.params.giftCodeId, request.body)),
    );

    app.delete('/admin/gift-codes/:giftCodeId', { schema: { tags: giftTags, params: GiftCodeParams, response: { 200: Success } } }, async (request) => {
      await adminGiftCodes.delete(request.params.giftCodeId);
      return success;
    });

    for (const [path, disabled] of [
      ['disable', true],
      ['enable', false],
    ] as const) {
      app.post(`/admin/gift-codes/:giftCodeId/${path}`, { schema: { tags: giftTags, params: GiftCodeParams, response: { 200: GiftCodeSchema } } }, async (request) =>
        giftCodeWire(await giftCodes.setGiftCodeDisabled(request.params.giftCodeId, disabled)),
      );
    }

    app.get(
      '/admin/gift-codes/:giftCodeId/redemptions',
      {
        schema: {
          tags: giftTags,
          params: GiftCodeParams,
          response: { 200: z.object({ redemptions: z.array(z.object({ organizationId: z.string(), organizationName: z.string(), code: z.string(), amount: z.number(), redeemedAt: z.string() })) }) },
        },
      },
      async (request) => {
        const giftCode = await giftCodes.getGiftCode(request.params.giftCodeId);
        const redemptions = await giftCodes.listRedemptions(giftCode.id);
        const names = new Map<string, string>();
        for (const organizationId of new Set(redemptions.map((redemption) => redemption.organizationId))) {
          names.set(organizationId, (await adminOrganizations.get(organizationId)).name);
        }
        return {
          redemptions: redemptions.map((redemption) => ({
            organizationId: redemption.organizationId,
            organizationName: names.get(redemption.organizationId) ?? '',
            code: giftCode.code,
            amount: redemption.amount,
            redeemedAt: iso(redemption.createdAt),
          })),
        };
      },
    );

    app.get('/admin/referral-configuration', { schema: { tags: ['console: admin referrals'], response: { 200: ReferralConfigurationSchema } } }, async () =>
      referrals.getReferralConfiguration(),
    );

    app.patch(
      '/admin/referral-configuration',
      { schema: { tags: ['console: admin referrals'], body: ReferralConfigurationSchema.partial(), response: { 200: ReferralConfigurationSchema } } },
      async (request) => referrals.setReferralConfiguration(Object.fromEntries(Object.entries(request.body).filter(([, value]) => value !== undefined))),
    );
  };
}
