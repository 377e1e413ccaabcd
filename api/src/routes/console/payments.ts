import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireContext } from '../../http/auth.js';
import type { AppServices } from '../../services/index.js';
import {
  AddCardBody,
  AutoTopUpSchema,
  AutoTopUpStateSchema,
  BillingHistoryEntrySchema,
  BillingHistoryQuery,
  BillingInfoSchema,
  MethodParams,
  PaymentCardSchema,
  PurchaseBody,
  PurchaseSchema,
  SetupIntentSchema,
  UpgradeBody,
} from './billing-schema.js';
import { billingHistoryWire, cardWire } from './billing-wire.js';
import { success, Success } from './schemas.js';

const TAGS = ['console: billing'];

/** A client's key for one purchase: the same key sent again is the same purchase, never a second charge. */
const PurchaseHeaders = z.object({ 'idempotency-key': z.string().trim().min(1).max(200).optional() });

/** Cards, credit purchases, plans, auto top-up and the billing history (spec 000 §3, §4, §7), through Stripe. */
export function paymentRoutes(services: AppServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/organizations/self/setup-intent',
      { schema: { tags: TAGS, summary: 'A Stripe setup intent for saving a card', response: { 200: SetupIntentSchema } } },
      async (request) => services.payments.setupIntent(requireContext(request).organizationId),
    );

    app.get(
      '/organizations/self/billing-info/methods',
      { schema: { tags: TAGS, summary: "The organization's saved cards", response: { 200: z.object({ methods: z.array(PaymentCardSchema) }) } } },
      async (request) => ({ methods: (await services.payments.listCards(requireContext(request).organizationId)).map(cardWire) }),
    );

    app.post(
      '/organizations/self/billing-info/methods',
      {
        schema: {
          tags: TAGS,
          summary: 'Save the card a setup intent is confirmed with (the first card becomes the default)',
          body: AddCardBody,
          response: { 201: PaymentCardSchema },
        },
      },
      async (request, reply) => reply.code(201).send(cardWire(await services.payments.addCard(requireContext(request).organizationId, request.body))),
    );

    app.delete(
      '/organizations/self/billing-info/methods/:methodId',
      { schema: { tags: TAGS, summary: 'Remove a saved card', params: MethodParams, response: { 200: Success } } },
      async (request) => {
        await services.payments.deleteCard(requireContext(request).organizationId, request.params.methodId);
        return success;
      },
    );

    app.post(
      '/organizations/self/billing-info/methods/:methodId/default',
      { schema: { tags: TAGS, summary: 'Make a saved card the default', params: MethodParams, response: { 200: Success } } },
      async (request) => {
        await services.payments.setDefaultCard(requireContext(request).organizationId, request.params.methodId);
        return success;
      },
    );

    app.post(
      '/organizations/self/credits',
      {
        schema: {
          tags: TAGS,
          summary: 'Buy credits with a saved card (1 credit = $0.001)',
          headers: PurchaseHeaders,
          body: PurchaseBody,
          response: { 200: PurchaseSchema },
        },
      },
      async (request) => {
        const bought = await services.payments.purchaseCredits(requireContext(request).organizationId, request.body, request.headers['idempotency-key']);
        return { totalCredits: bought.totalCredits, payment: billingHistoryWire(bought.payment) };
      },
    );

    app.post(
      '/organizations/self/upgrade',
      { schema: { tags: TAGS, summary: 'Subscribe to a paid tier with a saved card', body: UpgradeBody, response: { 200: BillingInfoSchema } } },
      async (request) => {
        const { organizationId } = requireContext(request);
        await services.payments.upgrade(organizationId, request.body);
        return services.billing.billingInfo(organizationId);
      },
    );

    app.delete(
      '/organizations/self/subscription',
      { schema: { tags: TAGS, summary: 'Cancel the paid plan at the end of the billing period', response: { 200: BillingInfoSchema } } },
      async (request) => {
        const { organizationId } = requireContext(request);
        await services.payments.cancelSubscription(organizationId);
        return services.billing.billingInfo(organizationId);
      },
    );

    app.post(
      '/organizations/self/subscription/resume',
      { schema: { tags: TAGS, summary: 'Keep a cancelled plan after all', response: { 200: BillingInfoSchema } } },
      async (request) => {
        const { organizationId } = requireContext(request);
        await services.payments.resumeSubscription(organizationId);
        return services.billing.billingInfo(organizationId);
      },
    );

    app.get(
      '/organizations/self/auto-top-up',
      { schema: { tags: TAGS, summary: 'Auto top-up settings (amounts in credits)', response: { 200: AutoTopUpStateSchema } } },
      async (request) => services.autoTopUps.get(requireContext(request).organizationId),
    );

    app.put(
      '/organizations/self/auto-top-up',
      {
        schema: {
          tags: TAGS,
          summary: 'Refill credits from the default card when a step takes the balance below the threshold',
          body: AutoTopUpSchema,
          response: { 200: AutoTopUpStateSchema },
        },
      },
      async (request) => services.autoTopUps.set(requireContext(request).organizationId, request.body),
    );

    app.get(
      '/organizations/self/billing-history',
      {
        schema: {
          tags: TAGS,
          summary: 'Charges made, newest first',
          querystring: BillingHistoryQuery,
          response: { 200: z.object({ history: z.array(BillingHistoryEntrySchema), nextCursor: z.string().nullable() }) },
        },
      },
      async (request) => {
        const page = await services.payments.billingHistory(requireContext(request).organizationId, request.query);
        return { history: page.payments.map(billingHistoryWire), nextCursor: page.nextCursor };
      },
    );
  };
}
