import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireContext } from '../../http/auth.js';
import type { AppServices } from '../../services/index.js';
import { TemplateParams } from './agent-templates-schema.js';
import { success, Success } from './schemas.js';
import { SimulatedAgentParams, SimulatedAgentSchema, VariablesSchema, simulatedAgentToWire } from './simulated-agents-schema.js';

/**
 * Simulated agents (spec 000 §7): the agent a template's editor chats with. Refresh, sync and a change of the
 * variables rebuild it from the template's working state, and answer 500 with the reason when that fails.
 */
export function simulatedAgentRoutes(services: AppServices): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['console: simulated agents'];

    app.get(
      '/agent-templates/:agentTemplateId/simulated-agents/default',
      { schema: { tags, summary: "The template's default simulated agent, built on first use", params: TemplateParams, response: { 200: SimulatedAgentSchema } } },
      async (request) => simulatedAgentToWire(await services.simulatedAgents.getDefault(requireContext(request), request.params.agentTemplateId)),
    );

    app.post(
      '/agent-templates/:agentTemplateId/simulated-agents/default/sync',
      {
        schema: {
          tags,
          summary: "Take the edits made on the simulated agent into the template's working state, and rebuild the agent from it",
          params: TemplateParams,
          response: { 200: Success },
        },
      },
      async (request) => {
        await services.simulatedAgents.sync(requireContext(request), request.params.agentTemplateId);
        return success;
      },
    );

    app.get(
      '/simulated-agents/:simulatedAgentId',
      { schema: { tags, params: SimulatedAgentParams, response: { 200: SimulatedAgentSchema } } },
      async (request) => simulatedAgentToWire(await services.simulatedAgents.get(requireContext(request), request.params.simulatedAgentId)),
    );

    app.post(
      '/simulated-agents/:simulatedAgentId/flush',
      { schema: { tags, summary: "Reset the simulated agent's messages", params: SimulatedAgentParams, response: { 200: SimulatedAgentSchema } } },
      async (request) => simulatedAgentToWire(await services.simulatedAgents.flush(requireContext(request), request.params.simulatedAgentId)),
    );

    app.post(
      '/simulated-agents/:simulatedAgentId/refresh',
      {
        schema: { tags, summary: 'Rebuild the simulated agent from the working state, as a new conversation', params: SimulatedAgentParams, response: { 200: SimulatedAgentSchema } },
      },
      async (request) => simulatedAgentToWire(await services.simulatedAgents.refresh(requireContext(request), request.params.simulatedAgentId)),
    );

    app.get(
      '/simulated-agents/:simulatedAgentId/variables',
      { schema: { tags, params: SimulatedAgentParams, response: { 200: VariablesSchema } } },
      async (request) => ({ memoryVariables: await services.simulatedAgents.getVariables(requireContext(request), request.params.simulatedAgentId) }),
    );

    app.put(
      '/simulated-agents/:simulatedAgentId/variables',
      { schema: { tags, params: SimulatedAgentParams, body: VariablesSchema.partial(), response: { 200: VariablesSchema } } },
      async (request) => ({
        memoryVariables: await services.simulatedAgents.putVariables(
          requireContext(request),
          request.params.simulatedAgentId,
          request.body.memoryVariables ?? {},
        ),
      }),
    );
  };
}
