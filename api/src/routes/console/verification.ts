import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireAccount } from '../../http/auth.js';
import type { AppServices } from '../../services/index.js';
import { EmailDeliverySchema, iso } from './schemas.js';

const Started = z.object({ success: z.boolean(), nextResendTime: z.string() });
const EmailStarted = Started.extend({ emailDelivery: EmailDeliverySchema });
const Completed = z.object({ success: z.boolean(), allVerified: z.boolean() });

/** Proving the account's email and phone number with codes sent to them. */
export function verificationRoutes(services: AppServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/user/self/email-verification/start',
      { schema: { tags: ['console: user'], summary: 'Email a verification code', response: { 200: EmailStarted } } },
      async (request) => {
        const { nextResendTime } = await services.accounts.startEmailVerification(requireAccount(request).userId);
        return { success: true, nextResendTime: iso(nextResendTime), emailDelivery: services.accounts.emailDelivery };
      },
    );

    app.post(
      '/user/self/email-verification/complete',
      { schema: { tags: ['console: user'], body: z.object({ verificationCode: z.string() }), response: { 200: Completed } } },
      async (request) => ({
        success: true,
        ...(await services.accounts.completeEmailVerification(requireAccount(request).userId, request.body.verificationCode)),
      }),
    );

    app.post(
      '/user/self/phone-verification/start',
      {
        schema: {
          tags: ['console: user'],
          summary: 'Text a verification code',
          body: z.object({ phoneNumber: z.string() }),
          response: { 200: Started },
        },
      },
      async (request) => {
        const { nextResendTime } = await services.accounts.startPhoneVerification(requireAccount(request).userId, request.body.phoneNumber);
        return { success: true, nextResendTime: iso(nextResendTime) };
      },
    );

    app.post(
      '/user/self/phone-verification/complete',
      {
        schema: {
          tags: ['console: user'],
          body: z.object({ verificationCode: z.string(), phoneNumber: z.string() }),
          response: { 200: Completed },
        },
      },
      async (request) => ({
        success: true,
        ...(await services.accounts.completePhoneVerification(requireAccount(request).userId, request.body)),
      }),
    );

    app.get(
      '/user/self/verified-contacts',
      {
        schema: {
          tags: ['console: user'],
          response: { 200: z.object({ email: z.string().nullable(), phone: z.string().nullable() }) },
        },
      },
      async (request) => services.accounts.verifiedContacts(requireAccount(request).userId),
    );
  };
}
