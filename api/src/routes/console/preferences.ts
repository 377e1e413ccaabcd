import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireContext } from '../../http/auth.js';
import { FEATURE_FLAGS } from '../../services/tenancy/feature-flags.js';
import type { AppServices } from '../../services/index.js';

const AdePreferences = z.object({ displayConfig: z.record(z.string(), z.unknown()) });
const AgentParams = z.object({ agentId: z.string() });

/** What the console adapts to: the deployment's feature flags and each member's ADE layout per agent. */
export function preferenceRoutes(services: AppServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/feature-flags',
      { schema: { tags: ['console: preferences'], response: { 200: z.record(z.string(), z.boolean()) } } },
      async () => FEATURE_FLAGS,
    );

    app.get(
      '/ade-preferences/:agentId',
      { schema: { tags: ['console: preferences'], params: AgentParams, response: { 200: AdePreferences } } },
      async (request) => ({ displayConfig: await services.adePreferences.get(requireContext(request), request.params.agentId) }),
    );

    app.put(
      '/ade-preferences/:agentId',
      {
        schema: { tags: ['console: preferences'], params: AgentParams, body: AdePreferences, response: { 200: AdePreferences } },
      },
      async (request) => ({
        displayConfig: await services.adePreferences.set(requireContext(request), request.params.agentId, request.body.displayConfig),
      }),
    );
  };
}
