import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { Tracer } from '@opentelemetry/api';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { jsonSchemaTransform, jsonSchemaTransformObject, serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import type { ApiConfig } from './config.js';
import { isPlatformAdminSession, registerAccessControl } from './http/auth.js';
import { registerErrorHandling } from './http/error-handler.js';
import { registerRequestTracing } from './http/tracing.js';
import { registerInputRules } from './http/input-rules.js';
import { JSON_BODY_LIMIT_BYTES, registerBodyLimits } from './http/body-limits.js';
import type { AppServices } from './services/index.js';
import { v1Routes } from './routes/v1/index.js';
import { consoleRoutes } from './routes/console/index.js';
import { consoleStatic } from './http/console-static.js';
import { OAUTH_PREFIX, oauthProtocolRoutes } from './routes/console/oauth-protocol.js';

export type AppDeps = {
  config: ApiConfig;
  services: AppServices;
  logger?: FastifyServerOptions['logger'];
  /** Every request becomes a span, the root of the traces of the runs it starts. */
  tracer?: Tracer;
};

/** Fastify's types leave out the hop count its runtime takes; as a function it is the same rule (proxy-addr's). */
function trustProxyOption(trust: ApiConfig['trustProxy']): FastifyServerOptions['trustProxy'] {
  return typeof trust === 'number' ? (_address: string, hop: number) => hop < trust : trust;
}

/** Builds the whole HTTP app without listening, so tests and the server share one composition. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    logger: deps.logger ?? { level: deps.config.logLevel },
    routerOptions: { ignoreTrailingSlash: true },
    requestIdHeader: 'x-request-id',
    genReqId: () => `req-${randomUUID()}`,
    bodyLimit: JSON_BODY_LIMIT_BYTES,
    trustProxy: trustProxyOption(deps.config.trustProxy),
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  registerErrorHandling(app);
  if (deps.tracer) registerRequestTracing(app, deps.tracer);
  // Before access control, whose tenant guard looks path ids up: input PostgreSQL cannot hold never reaches a query.
  registerInputRules(app);
  // Before any route, so each gets an explicit body limit as it is added.
  registerBodyLimits(app, { maxUploadBytes: deps.config.maxUploadBytes });
  // Before any route: it sees every route as it is added and guards all of them.
  registerAccessControl(app, { tenantGuard: deps.services.tenantGuard });
  // An empty body with a JSON content type (curl -XDELETE -H 'content-type: application/json') means "no body".
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    if (body === '') return done(null, undefined);
    try {
      done(null, JSON.parse(body as string));
    } catch (error) {
      done(error as Error, undefined);
    }
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Engram API', version: deps.config.version, description: 'Durable, stateful AI agents.' },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearer: [] }],
    },
    transform: jsonSchemaTransform,
    // Wire shapes named with `.meta({ id })` (Block, Tool, AgentState, …) become components the routes refer to.
    transformObject: jsonSchemaTransformObject,
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  await app.register(
    v1Routes(deps.services, {
      version: deps.config.version,
      pingIntervalMs: deps.config.streamPingIntervalMs,
      pollIntervalMs: deps.config.streamPollIntervalMs,
      maxUploadBytes: deps.config.maxUploadBytes,
    }),
    { prefix: '/v1' },
  );
  const { exposeDevelopmentOutbox, temporalUi } = deps.config;
  await app.register(
    consoleRoutes(deps.services, {
      exposeDevelopmentOutbox,
      temporalUi,
      billing: { enforced: deps.config.billingMode === 'on', cardPayments: deps.config.payments !== null },
      webSearch: { provider: deps.config.webSearch?.kind ?? null },
      pingIntervalMs: deps.config.streamPingIntervalMs,
      pollIntervalMs: deps.config.streamPollIntervalMs,
    }),
    { prefix: '/api' },
  );
  await app.register(oauthProtocolRoutes(deps.services), { prefix: OAUTH_PREFIX });
  await app.register(consoleStatic({ isPlatformAdmin: (request) => isPlatformAdminSession(request, deps.services) }));
  return app;
}
