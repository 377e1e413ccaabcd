import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireContext } from '../../../http/auth.js';
import type { AppServices } from '../../../services/index.js';
import { mcpServerToWire } from '../../../services/mcp/mcp-wire.js';
import { McpServerResponse } from '../../../contracts/v1/mcp-servers.js';
import { errorResponses } from '../shared/error-responses.js';
import { AgentParams } from './agents.js';

/** `GET /v1/agents/{id}/mcp-servers`: what `letta mcp list` shows for the agent. */
export function agentMcpServerRoutes(services: AppServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/agents/:agent_id/mcp-servers',
      {
        schema: {
          tags: ['agents'],
          summary: 'The MCP servers whose tools the agent has',
          params: AgentParams,
          response: { 200: z.array(McpServerResponse), ...errorResponses(404, 422) },
        },
      },
      async (request) => {
        const servers = await services.agentTools.mcpServersOf(requireContext(request), request.params.agent_id);
        return servers.map((server) => mcpServerToWire(server, services.mcpServers.secretsOf(server)));
      },
    );
  };
}
