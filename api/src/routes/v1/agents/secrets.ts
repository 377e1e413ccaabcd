import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireContext } from '../../../http/auth.js';
import type { AppServices } from '../../../services/index.js';
import { AgentSecretNameResponse } from '../../../contracts/v1/agent-secrets.js';
import { errorResponses } from '../shared/error-responses.js';
import { AgentParams } from './agents.js';

/** `GET /v1/agents/{id}/secrets`: the names of the secrets the agent's tools run with. */
export function agentSecretRoutes(services: AppServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/agents/:agent_id/secrets',
      {
        schema: {
          tags: ['agents'],
          summary: "The names of the agent's secrets (never their values)",
          params: AgentParams,
          response: { 200: z.array(AgentSecretNameResponse), ...errorResponses(404, 422) },
        },
      },
      async (request) => {
        const agentId = request.params.agent_id;
        const secrets = await services.agentTools.secretNamesOf(requireContext(request), agentId);
        return secrets.map((secret) => ({ agent_id: agentId, key: secret.key, value: null, description: secret.description }));
      },
    );
  };
}
