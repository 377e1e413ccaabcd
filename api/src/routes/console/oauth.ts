import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AGENT_ACCESS_SCOPES } from '@engram/db';
import { requireAccount } from '../../http/auth.js';
import type { AppServices } from '../../services/index.js';
import type { AuthorizationDecision } from '../../services/oauth/oauth-authorizations.js';
import { Success, success } from './schemas.js';

const AuthorizationRequestSchema = z.object({
  app: z.object({ name: z.string(), description: z.string(), logoUrl: z.string().nullable(), clientId: z.string() }),
  scopes: z.array(z.enum(AGENT_ACCESS_SCOPES)),
  organizations: z.array(z.object({ id: z.string(), name: z.string() })),
});

/** Approving names the organization the app may act in; denying names nothing. */
const DecisionBody = z.discriminatedUnion('approve', [
  z.object({ approve: z.literal(true), organizationId: z.string().min(1) }),
  z.object({ approve: z.literal(false) }),
]);

const InteractionParams = z.object({ interactionId: z.string().min(1) });

const UserCodeBody = z.object({ userCode: z.string().trim().min(1, 'Enter the code your device shows') });

const toDecision = (body: z.infer<typeof DecisionBody>): AuthorizationDecision =>
  body.approve ? { approve: true, organizationId: body.organizationId } : { approve: false };

/**
 * The user's side of OAuth (spec 000 §7), for the console's consent screen and device verification
 * page: what an authorization asks for, and the user's answer.
 */
export function oauthConsoleRoutes(services: AppServices): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['console: oauth'];

    app.get(
      '/oauth/interactions/:interactionId',
      { schema: { tags, summary: 'The app, scopes and organizations of an authorization request', params: InteractionParams, response: { 200: AuthorizationRequestSchema } } },
      async (request) => services.oauthAuthorizations.authorizationRequest(requireAccount(request).userId, request.params.interactionId),
    );

    app.post(
      '/oauth/interactions/:interactionId',
      {
        schema: {
          tags,
          summary: 'Approve (for an organization) or deny an authorization request; the browser then goes to redirectTo',
          params: InteractionParams,
          body: DecisionBody,
          response: { 200: z.object({ redirectTo: z.string() }) },
        },
        // An unknown (or finished) request is a 404 whatever the body says, as for every path that names a thing.
        preValidation: async (request) => {
          await services.oauthAuthorizations.authorizationRequest(requireAccount(request).userId, (request.params as { interactionId: string }).interactionId);
        },
      },
      async (request) =>
        services.oauthAuthorizations.decideAuthorization(requireAccount(request).userId, request.params.interactionId, toDecision(request.body)),
    );

    app.post(
      '/oauth/device/verify-code',
      { schema: { tags, summary: 'What the device showing this user code asks for', body: UserCodeBody, response: { 200: AuthorizationRequestSchema } } },
      async (request) => services.oauthAuthorizations.deviceRequest(requireAccount(request).userId, request.body.userCode),
    );

    app.post(
      '/oauth/device/verify',
      {
        schema: {
          tags,
          summary: 'Approve (for an organization) or deny the device showing this user code',
          body: z.intersection(UserCodeBody, DecisionBody),
          response: { 200: Success },
        },
      },
      async (request) => {
        await services.oauthAuthorizations.decideDevice(requireAccount(request).userId, request.body.userCode, toDecision(request.body));
        return success;
      },
    );
  };
}
