import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireContext } from '../../../http/auth.js';
import type { AppServices } from '../../../services/index.js';
import { contextWindowToWire } from '../../../services/agents/agent-wire.js';
import { AgentParams } from './agents.js';
import { errorResponses } from '../shared/error-responses.js';
import { ContextWindowResponse } from '../../../contracts/v1/agents.js';

export function contextWindowRoutes(services: AppServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/agents/:agent_id/context',
      {
        schema: {
          tags: ['agents'],
          summary: "What fills the agent's context window, with token estimates",
          params: AgentParams,
          response: { 200: ContextWindowResponse, ...errorResponses(404, 422) },
        },
      },
      async (request) => contextWindowToWire(await services.contextWindow.overview(requireContext(request), request.params.agent_id)),
    );
  };
}
