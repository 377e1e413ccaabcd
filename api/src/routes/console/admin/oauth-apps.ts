import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AGENT_ACCESS_SCOPES, OAUTH_GRANT_TYPES, type OAuthApp } from '@engram/db';
import type { AppServices } from '../../../services/index.js';
import { iso, PageQuery, success, Success } from '../schemas.js';

const tags = ['console: admin oauth apps'];

const AppParams = z.object({ appId: z.string() });

/** Spec 000 §3: an OAuth app; admins see its secret (null for public clients). */
const OAuthAppSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  logoUrl: z.string().nullable(),
  clientId: z.string(),
  clientSecret: z.string().nullable(),
  isPublicClient: z.boolean(),
  grantTypes: z.array(z.enum(OAUTH_GRANT_TYPES)),
  redirectUris: z.array(z.string()),
  allowedScopes: z.array(z.string()),
  createdAt: z.string(),
});

/** Spec 000 §5: a name and at least one grant type. */
const OAuthAppBody = z.object({
  name: z.string().trim().min(1, 'Name is required'),
  description: z.string().optional(),
  logoUrl: z.url().nullable().optional(),
  isPublicClient: z.boolean().default(false),
  grantTypes: z.array(z.enum(OAUTH_GRANT_TYPES)).min(1, 'At least one grant type is required'),
  redirectUris: z.array(z.url()).default([]),
  allowedScopes: z.array(z.enum(AGENT_ACCESS_SCOPES)).default([...AGENT_ACCESS_SCOPES]),
});

/** Provider-owned OAuth apps: the third-party apps users may connect to Engram. */
export function adminOAuthAppRoutes(services: AppServices): FastifyPluginAsyncZod {
  const { oauthApps } = services;
  const wire = (app: OAuthApp, clientSecret = oauthApps.secretOf(app)): z.infer<typeof OAuthAppSchema> => ({
    id: app.id,
    name: app.name,
    description: app.description,
    logoUrl: app.logoUrl,
    clientId: app.clientId,
    clientSecret,
    isPublicClient: app.isPublicClient,
    grantTypes: app.grantTypes,
    redirectUris: app.redirectUris,
    allowedScopes: app.allowedScopes,
    createdAt: iso(app.createdAt),
  });
  return async (app) => {
    app.get(
      '/admin/oauth-apps',
      { schema: { tags, querystring: PageQuery, response: { 200: z.object({ apps: z.array(OAuthAppSchema), hasNextPage: z.boolean() }) } } },
      async (request) => {
        const page = await oauthApps.list(request.query);
        return { apps: page.apps.map((found) => wire(found)), hasNextPage: page.hasNextPage };
      },
    );

    app.post(
      '/admin/oauth-apps',
      {
        schema: {
          tags,
          summary: 'Registers an app; a client id already taken answers clientIdAlreadyExists',
          body: OAuthAppBody.extend({ clientId: z.string().trim().min(1).optional() }),
          response: { 201: OAuthAppSchema },
        },
      },
      async (request, reply) => {
        const created = await oauthApps.create(request.body);
        return reply.code(201).send(wire(created.app, created.clientSecret));
      },
    );

    app.get('/admin/oauth-apps/:appId', { schema: { tags, params: AppParams, response: { 200: OAuthAppSchema } } }, async (request) =>
      wire(await oauthApps.get(request.params.appId)),
    );

    app.put('/admin/oauth-apps/:appId', { schema: { tags, params: AppParams, body: OAuthAppBody, response: { 200: OAuthAppSchema } } }, async (request) =>
      wire(await oauthApps.update(request.params.appId, request.body)),
    );

    app.delete(
      '/admin/oauth-apps/:appId',
      { schema: { tags, summary: "Deletes the app and every user's connection to it", params: AppParams, response: { 200: Success } } },
      async (request) => {
        await oauthApps.delete(request.params.appId);
        return success;
      },
    );

    app.post(
      '/admin/oauth-apps/:appId/regenerate-secret',
      { schema: { tags, summary: 'A new client secret; the old one stops working at once', params: AppParams, response: { 200: OAuthAppSchema } } },
      async (request) => {
        const regenerated = await oauthApps.regenerateSecret(request.params.appId);
        return wire(regenerated.app, regenerated.clientSecret);
      },
    );
  };
}
