import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AGENT_ACCESS_SCOPES, type ClientSideAccessToken } from '@engram/db';
import { requireContext } from '../../http/auth.js';
import type { AppServices } from '../../services/index.js';

const PolicyEntrySchema = z.object({
  id: z.string().min(1),
  type: z.literal('agent'),
  access: z.array(z.enum(AGENT_ACCESS_SCOPES)).min(1),
});

const PolicySchema = z.object({ version: z.literal('1'), data: z.array(PolicyEntrySchema) });

/** The official client's `AccessTokenCreateResponse` and list entries. */
const ClientSideAccessTokenSchema = z.object({
  token: z.string(),
  expiresAt: z.string(),
  hostname: z.string(),
  policy: PolicySchema,
});

const CreateTokenBody = z.object({
  hostname: z
    .url({ protocol: /^https?$/, error: 'The hostname must be a full URL with http or https, like https://app.example.com' })
    .refine((hostname) => !hostname.endsWith('/'), 'The hostname should not end with a slash'),
  policy: z.array(PolicyEntrySchema).min(1),
  expires_at: z.iso.datetime({ offset: true }).optional(),
});

const ListTokensQuery = z.object({
  agentId: z.string().optional(),
  limit: z.coerce.number().int().min(1).max(100).default(10),
  offset: z.coerce.number().int().min(0).default(0),
});

const TokenParams = z.object({ token: z.string().min(1) });

/** `token` is the whole token once, on creation; afterwards only its id (the part before the dot) exists. */
function tokenWire(record: ClientSideAccessToken, token: string): z.infer<typeof ClientSideAccessTokenSchema> {
  return {
    token,
    expiresAt: record.expiresAt.toISOString(),
    hostname: record.hostname,
    policy: { version: '1', data: record.policy },
  };
}

/**
 * Client-side access tokens (the Cloud API's `client.accessTokens`): short-lived tokens a browser app
 * uses instead of an API key, limited to the agents and scopes of their policy and to one origin.
 */
export function clientSideAccessTokenRoutes(services: AppServices): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['client-side access tokens'];

    app.post(
      '/client-side-access-tokens',
      {
        schema: {
          tags,
          summary: 'Create a client-side access token (expires in 5 minutes unless expires_at is given)',
          body: CreateTokenBody,
          response: { 200: ClientSideAccessTokenSchema },
        },
      },
      async (request) => {
        const ctx = requireContext(request);
        const { body } = request;
        const created = await services.clientSideAccessTokens.create(ctx, {
          hostname: body.hostname,
          policy: body.policy,
          expiresAt: body.expires_at === undefined ? undefined : new Date(body.expires_at),
        });
        return tokenWire(created.record, created.token);
      },
    );

    app.get(
      '/client-side-access-tokens',
      {
        schema: {
          tags,
          summary: "The organization's live client-side access tokens, by id",
          querystring: ListTokensQuery,
          response: { 200: z.object({ tokens: z.array(ClientSideAccessTokenSchema), hasNextPage: z.boolean() }) },
        },
      },
      async (request) => {
        const page = await services.clientSideAccessTokens.list(requireContext(request).organizationId, request.query);
        return { tokens: page.tokens.map((record) => tokenWire(record, record.id)), hasNextPage: page.hasNextPage };
      },
    );

    app.delete(
      '/client-side-access-tokens/:token',
      {
        schema: {
          tags,
          summary: 'Delete a client-side access token (by the token or its id); it stops working at once',
          params: TokenParams,
          response: { 200: z.object({ success: z.literal(true) }) },
        },
      },
      async (request) => {
        await services.clientSideAccessTokens.delete(requireContext(request).organizationId, request.params.token);
        return { success: true as const };
      },
    );

    // Browsers ask before sending a token cross-origin. Only origins that hold a live token are told
    // yes; the request itself is then checked against its own token's origin (http/auth.ts).
    app.options('/*', { schema: { hide: true }, config: { public: true } }, async (request, reply) => {
      const origin = request.headers.origin;
      if (origin && (await services.clientSideAccessTokens.isTokenOrigin(origin))) {
        reply
          .header('access-control-allow-origin', origin)
          .header('access-control-allow-methods', 'GET, POST, PUT, PATCH, DELETE')
          .header('access-control-allow-headers', request.headers['access-control-request-headers'] ?? 'authorization, content-type')
          .header('access-control-max-age', '600');
      }
      return reply.header('vary', 'Origin').code(204).send();
    });
  };
}
