import type { FastifyPluginAsync } from 'fastify';
import { registerApiKeyAuth } from '../../http/auth.js';
import type { AppServices } from '../../services/index.js';
import { healthRoutes } from './health.js';

/** The `/v1` agent API: every route below is authenticated by API key and scoped to its organization. */
export function v1Routes(services: AppServices, deps: { version: string }): FastifyPluginAsync {
  return async (app) => {
    registerApiKeyAuth(app, { apiKeys: services.apiKeys });
    await app.register(healthRoutes(deps));
  };
}
