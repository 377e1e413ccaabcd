import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { AppServices } from '../../services/index.js';
import { DEVICE_VERIFICATION_PAGE_PATH } from '../../services/oauth/oauth-provider.js';

/** Where the provider is mounted; its issuer is `<public URL>/oauth`. */
export const OAUTH_PREFIX = '/oauth';

type KoaHandler = (request: IncomingMessage & { originalUrl?: string }, response: ServerResponse) => Promise<void>;

const route = { schema: { hide: true }, config: { public: true } } as const;

/**
 * Spec 000 allows `code_challenge_method=plain`, which the library no longer implements. A plain
 * challenge is its own verifier, so checking `S256(verifier) == S256(challenge)` is the same check:
 * the request is handed on as S256 of the challenge, and the token endpoint verifies as usual.
 */
function withPlainChallengeAsS256(params: URLSearchParams): URLSearchParams {
  const challenge = params.get('code_challenge');
  if (params.get('code_challenge_method') !== 'plain' || !challenge) return params;
  const converted = new URLSearchParams(params);
  converted.set('code_challenge', createHash('sha256').update(challenge).digest('base64url'));
  converted.set('code_challenge_method', 'S256');
  return converted;
}

/**
 * The console is the only login: each authorization request starts a fresh provider session (its
 * cookie is not passed on), so the provider never holds on to a user who has since signed out or
 * switched accounts in the console.
 */
function withoutProviderSession(request: IncomingMessage): void {
  const cookies = request.headers.cookie;
  if (!cookies) return;
  request.headers.cookie = cookies
    .split(';')
    .filter((cookie) => !cookie.trim().startsWith('_session'))
    .join(';');
}

/** Runs the request through the provider (a Koa app) as if it were mounted at /oauth. */
function handOver(handle: KoaHandler, request: FastifyRequest, reply: FastifyReply, pathAndQuery: string): void {
  reply.hijack();
  const raw = request.raw as IncomingMessage & { originalUrl?: string };
  raw.originalUrl = `${OAUTH_PREFIX}${pathAndQuery}`;
  raw.url = pathAndQuery;
  void handle(raw, reply.raw);
}

const authorizePath = (params: URLSearchParams) => (params.size > 0 ? `/authorize?${params.toString()}` : '/authorize');

const queryOf = (request: FastifyRequest) => new URLSearchParams(request.url.includes('?') ? request.url.slice(request.url.indexOf('?') + 1) : '');

/** The routes the provider itself answers, with the raw request body left for it to read. */
async function protocolRoutes(app: FastifyInstance, handle: KoaHandler): Promise<void> {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));

  app.route({
    ...route,
    method: ['GET', 'POST', 'OPTIONS'],
    url: '/*',
    handler: async (request, reply) => handOver(handle, request, reply, request.url.slice(OAUTH_PREFIX.length)),
  });

  app.get('/authorize', route, async (request, reply) => {
    withoutProviderSession(request.raw);
    handOver(handle, request, reply, authorizePath(withPlainChallengeAsS256(queryOf(request))));
  });
}

/** `POST /oauth/authorize` (form-encoded): the same request as the GET, which is how it is handed on. */
async function authorizeByPost(app: FastifyInstance, handle: KoaHandler): Promise<void> {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) =>
    done(null, new URLSearchParams(body as string)),
  );

  app.post('/authorize', route, async (request, reply) => {
    const form = request.body instanceof URLSearchParams ? request.body : new URLSearchParams();
    withoutProviderSession(request.raw);
    request.raw.method = 'GET';
    delete request.raw.headers['content-type'];
    delete request.raw.headers['content-length'];
    handOver(handle, request, reply, authorizePath(withPlainChallengeAsS256(form)));
  });
}

/**
 * Engram's OAuth 2.1 endpoints (spec 000 §7), answered by oidc-provider: `GET|POST /oauth/authorize`,
 * `POST /oauth/token`, `POST /oauth/device/code`, `POST /oauth/revoke`, discovery at
 * `/oauth/.well-known/oauth-authorization-server`. Users answer in the console: the consent screen
 * and the device verification page, which `GET /oauth/device` (the verification URI) leads to.
 */
export function oauthProtocolRoutes(services: AppServices): FastifyPluginAsync {
  const handle = services.oauthProvider.callback() as KoaHandler;
  return async (app) => {
    app.get('/device', route, async (request, reply) => {
      const userCode = queryOf(request).get('user_code');
      const query = userCode ? `?${new URLSearchParams({ user_code: userCode }).toString()}` : '';
      return reply.redirect(`${DEVICE_VERIFICATION_PAGE_PATH}${query}`, 303);
    });
    await app.register(async (scope) => protocolRoutes(scope, handle));
    await app.register(async (scope) => authorizeByPost(scope, handle));
  };
}
