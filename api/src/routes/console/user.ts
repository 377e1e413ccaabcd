import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { User } from '@engram/db';
import { clearSessionCookie, requireAccount, SESSION_COOKIE, setSessionCookie } from '../../http/auth.js';
import type { ClientInfo } from '../../services/accounts/account-service.js';
import type { AppServices } from '../../services/index.js';
import { EmailDeliverySchema, iso, success, Success } from './schemas.js';
import { OnboardingProgressSchema, OnboardingStatusSchema } from './onboarding.js';

const Password = z.string().min(8, 'Password must be at least 8 characters long').max(256);
const Name = z.string().trim().min(1).max(100);

export const PublicUserSchema = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string().nullable(),
  imageUrl: z.string(),
  permissions: z.array(z.string()),
  theme: z.string(),
  locale: z.string(),
  activeOrganizationId: z.string().nullable(),
  isVerified: z.boolean(),
  hasOnboarded: z.boolean(),
  createdAt: z.string(),
  hasCloudAccess: z.boolean(),
  onboardingStatus: OnboardingStatusSchema.nullable(),
  /** What the active organization has done of the tour, whoever clicked what; null without one. */
  onboardingProgress: OnboardingProgressSchema.nullable(),
});

async function publicUser(services: AppServices, user: User, activeOrganizationId: string | null): Promise<z.infer<typeof PublicUserSchema>> {
  return {
    id: user.id,
    name: user.name,
    email: user.email,
    imageUrl: user.imageUrl,
    permissions: user.permissions,
    theme: user.theme,
    locale: user.locale,
    activeOrganizationId,
    isVerified: user.emailVerifiedAt !== null,
    hasOnboarded: user.hasOnboarded,
    createdAt: iso(user.createdAt),
    hasCloudAccess: await services.cloudAccess.hasAccess(user, activeOrganizationId),
    onboardingStatus: user.onboardingStatus,
    onboardingProgress: activeOrganizationId ? await services.onboarding.progress(activeOrganizationId) : null,
  };
}

const client = (request: FastifyRequest): ClientInfo => ({ ip: request.ip, userAgent: request.headers['user-agent'] });

/** Sign-up, sign-in and the signed-in user's own account. */
export function userRoutes(services: AppServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/user/new',
      {
        schema: {
          tags: ['console: user'],
          summary: 'Create an account (with an organization of its own) and sign in',
          body: z.object({ email: z.email(), name: Name, password: Password, referralCode: z.string().trim().min(1).max(10).optional() }),
          response: { 201: Success },
        },
      },
      async (request, reply) => {
        setSessionCookie(request, reply, await services.accounts.signUp(request.body, client(request)));
        return reply.code(201).send(success);
      },
    );

    app.post(
      '/user/new-with-invite',
      {
        schema: {
          tags: ['console: user'],
          summary: 'Create an account that joins the inviting organization, and sign in',
          body: z.object({ email: z.email(), name: Name, password: Password, inviteCode: z.string().min(1) }),
          response: { 201: Success },
        },
      },
      async (request, reply) => {
        setSessionCookie(request, reply, await services.accounts.signUpWithInvite(request.body, client(request)));
        return reply.code(201).send(success);
      },
    );

    app.post(
      '/user/login',
      {
        schema: {
          tags: ['console: user'],
          summary: 'Sign in; the session cookie is replaced by a new one',
          body: z.object({ email: z.string().min(1), password: z.string().min(1) }),
          response: { 200: Success },
        },
      },
      async (request, reply) => {
        const session = await services.accounts.login(request.body, client(request), request.cookies[SESSION_COOKIE]);
        setSessionCookie(request, reply, session);
        return success;
      },
    );

    app.post(
      '/user/logout',
      { schema: { tags: ['console: user'], summary: 'Sign out: revoke this session', response: { 200: Success } } },
      async (request, reply) => {
        const token = request.cookies[SESSION_COOKIE];
        if (token) await services.accounts.logout(token);
        clearSessionCookie(request, reply);
        return success;
      },
    );

    app.get(
      '/user/self',
      { schema: { tags: ['console: user'], summary: 'The signed-in user', response: { 200: PublicUserSchema } } },
      async (request) => publicUser(services, await services.accounts.get(requireAccount(request).userId), request.access?.organizationId ?? null),
    );

    app.put(
      '/user/self',
      {
        schema: {
          tags: ['console: user'],
          body: z.object({ name: Name.optional(), theme: z.string().max(50).optional(), locale: z.string().max(35).optional() }),
          response: { 200: PublicUserSchema },
        },
      },
      async (request) =>
        publicUser(services, await services.accounts.update(requireAccount(request).userId, request.body), request.access?.organizationId ?? null),
    );

    app.delete(
      '/user/self',
      { schema: { tags: ['console: user'], summary: 'Delete the account', response: { 200: Success } } },
      async (request, reply) => {
        await services.accounts.delete(requireAccount(request).userId);
        clearSessionCookie(request, reply);
        return success;
      },
    );

    app.get(
      '/user/self/organizations',
      {
        schema: {
          tags: ['console: user'],
          summary: "The organizations the user belongs to",
          response: { 200: z.object({ organizations: z.array(z.object({ id: z.string(), name: z.string() })) }) },
        },
      },
      async (request) => ({
        organizations: (await services.organizations.listForUser(requireAccount(request).userId)).map(({ id, name }) => ({ id, name })),
      }),
    );

    app.put(
      '/user/self/active-organization',
      {
        schema: {
          tags: ['console: user'],
          summary: 'Act in another of your organizations',
          body: z.object({ activeOrganizationId: z.string().min(1) }),
          response: { 200: Success },
        },
      },
      async (request) => {
        await services.accounts.setActiveOrganization(requireAccount(request).userId, request.body.activeOrganizationId);
        return success;
      },
    );

    app.post(
      '/user/forgot-password/start',
      {
        schema: {
          tags: ['console: user'],
          summary: 'Email a password reset code (answers the same whether or not the account exists)',
          body: z.object({ email: z.string().min(1) }),
          response: { 200: Success.extend({ emailDelivery: EmailDeliverySchema }) },
        },
      },
      async (request) => {
        await services.accounts.startPasswordReset(request.body, client(request));
        return { ...success, emailDelivery: services.accounts.emailDelivery };
      },
    );

    app.post(
      '/user/forgot-password/update',
      {
        schema: {
          tags: ['console: user'],
          summary: 'Set a new password with the emailed code; signs out every session',
          body: z.object({ email: z.string().min(1), password: Password, code: z.string().min(1) }),
          response: { 200: Success },
        },
      },
      async (request) => {
        await services.accounts.finishPasswordReset(request.body, client(request));
        return success;
      },
    );

    app.post(
      '/user/self/set-email-marketing-consent',
      { schema: { tags: ['console: user'], body: z.object({ emailConsent: z.boolean() }), response: { 200: Success } } },
      async (request) => {
        await services.accounts.setMarketingConsent(requireAccount(request).userId, request.body.emailConsent);
        return success;
      },
    );

    app.get(
      '/user/self/intercom-token',
      {
        schema: {
          tags: ['console: user'],
          summary: 'An HMAC identity token for the support chat (null when not configured)',
          response: { 200: z.object({ token: z.string().nullable() }) },
        },
      },
      async (request) => ({ token: services.accounts.supportChatToken(requireAccount(request).userId) }),
    );
  };
}
