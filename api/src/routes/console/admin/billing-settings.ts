import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppServices } from '../../../services/index.js';
import { BillingMethodSchema, billingMethodWire, BillingSettingsSchema, ReferralProgrammeStatsSchema, referralStatsWire, ReferralStatsQuery, SetBillingMethodBody } from './billing-settings-schema.js';
import { OrganizationParams } from './schemas.js';

const tags = ['console: admin organizations'];

/** How an organization pays, as platform admins set it, and the referral programme's totals. */
export function adminBillingSettingsRoutes(services: AppServices): FastifyPluginAsyncZod {
  const { adminBilling } = services;
  return async (app) => {
    app.get(
      '/admin/organizations/:organizationId/billing-settings',
      { schema: { tags, params: OrganizationParams, response: { 200: BillingSettingsSchema } } },
      async (request) => adminBilling.billingSettings(request.params.organizationId),
    );

    app.put(
      '/admin/organizations/:organizationId/billing-settings',
      {
        schema: {
          tags,
          summary: 'Sets the tier (its limits and monthly grants) and the pricing model (cpm: runs go on below a zero balance, usage is invoiced)',
          params: OrganizationParams,
          body: BillingSettingsSchema,
          response: { 200: BillingSettingsSchema },
        },
      },
      async (request) => adminBilling.setBillingSettings(request.params.organizationId, request.body),
    );

    app.get(
      '/admin/organizations/:organizationId/billing-method',
      { schema: { tags, params: OrganizationParams, response: { 200: BillingMethodSchema } } },
      async (request) => billingMethodWire(await adminBilling.billingMethod(request.params.organizationId)),
    );

    app.put(
      '/admin/organizations/:organizationId/billing-method',
      { schema: { tags, params: OrganizationParams, body: SetBillingMethodBody, response: { 200: BillingMethodSchema } } },
      async (request) => billingMethodWire(await adminBilling.setBillingMethod(request.params.organizationId, request.body.billingMethod)),
    );

    app.post(
      '/admin/organizations/:organizationId/billing-method/refresh',
      {
        schema: {
          tags,
          summary: "Re-reads the organization's default card from the payment provider (503 while none is configured; nothing to read for enterprise)",
          params: OrganizationParams,
          response: { 200: BillingMethodSchema },
        },
      },
      async (request) => billingMethodWire(await adminBilling.refreshBillingMethod(request.params.organizationId)),
    );

    app.get(
      '/admin/referral-stats',
      { schema: { tags: ['console: admin referrals'], querystring: ReferralStatsQuery, response: { 200: ReferralProgrammeStatsSchema } } },
      async (request) => referralStatsWire(await adminBilling.referralStats(request.query.top)),
    );
  };
}
