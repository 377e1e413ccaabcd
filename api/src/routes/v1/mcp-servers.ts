import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireContext } from '../../http/auth.js';
import { openSse } from '../../http/sse.js';
import type { AppServices } from '../../services/index.js';
import { toolToWire } from '../../services/agents/agent-wire.js';
import { McpServerCreateBody, McpServerUpdateBody, ToolArgumentsBody } from '../../services/mcp/mcp-server-input.js';
import { mcpServerToWire, mcpToolToWire } from '../../services/mcp/mcp-wire.js';
import type { McpConnectEvent } from '../../services/mcp/mcp-oauth-service.js';
import { McpServerResponse, ToolSyncSummaryResponse } from '../../contracts/v1/mcp-servers.js';
import { eventStreamResponse, NoContentResponse } from './shared/common-responses.js';
import { errorResponses } from './shared/error-responses.js';
import { ToolExecutionResult, ToolResponse } from '../../contracts/v1/tools.js';

const ServerParams = z.object({ mcp_server_id: z.string() });
const ServerToolParams = z.object({ mcp_server_id: z.string(), tool_id: z.string() });
const RefreshQuery = z.object({ agent_id: z.string().optional() });

/** What the two connect routes stream, one `data: {"event": …}` frame at a time. */
export const CONNECT_EVENTS = eventStreamResponse(
  'connection_attempt; oauth_required, authorization_url and waiting_for_auth when the server asks for OAuth; then success (with its tools) or error',
);

/** Where the OAuth authorization server sends the browser back: this API, as the caller reached it. */
export function oauthCallbackBase(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}/v1/tools/mcp/oauth/callback`;
}

/**
 * Writes connect events as Server-Sent Events (`data: {"event": …}`), as the reference server
 * streams them. The stream ends with the last event, without a `[DONE]` marker.
 */
export async function streamConnectEvents(request: FastifyRequest, reply: FastifyReply, events: (signal: AbortSignal) => AsyncGenerator<McpConnectEvent>): Promise<void> {
  const channel = openSse(request, reply);
  // The response closing is the client leaving; the request's own 'close' (which the channel also
  // heeds) fires as soon as a POST body has been read, long before the OAuth wait is over.
  const clientLeft = new AbortController();
  reply.raw.once('close', () => clientLeft.abort());
  try {
    for await (const event of events(clientLeft.signal)) {
      channel.send(event.event === 'success' ? { event: 'success', tools: event.tools.map(({ tool, health }) => mcpToolToWire(tool, health)) } : event);
    }
  } catch (error) {
    request.log.error({ err: error }, 'MCP connect stream failed');
    channel.send({ event: 'error', message: 'An unknown error occurred' });
  } finally {
    reply.raw.end();
  }
}

/** `/v1/mcp-servers`: MCP servers by id, their registered tools, and connecting them (with OAuth). */
export function mcpServerRoutes(services: AppServices): FastifyPluginAsyncZod {
  return async (app) => {
    const { mcpServers, mcpTools } = services;
    const wire = (server: Awaited<ReturnType<typeof mcpServers.get>>) => mcpServerToWire(server, mcpServers.secretsOf(server));

    app.post(
      '/mcp-servers/',
      {
        schema: {
          tags: ['mcp-servers'],
          summary: 'Add an MCP server (its tools are registered if it answers)',
          body: McpServerCreateBody,
          response: { 200: McpServerResponse, ...errorResponses(409, 422) },
        },
      },
      async (request) => wire(await mcpServers.create(requireContext(request), request.body)),
    );

    app.get(
      '/mcp-servers/',
      {
        schema: {
          tags: ['mcp-servers'],
          summary: "The organization's MCP servers",
          response: { 200: z.array(McpServerResponse) },
        },
      },
      async (request) =>
        (await mcpServers.list(requireContext(request))).map(wire),
    );

    app.get(
      '/mcp-servers/:mcp_server_id',
      {
        schema: {
          tags: ['mcp-servers'],
          summary: 'Get an MCP server',
          params: ServerParams,
          response: { 200: McpServerResponse, ...errorResponses(404, 422) },
        },
      },
      async (request) => wire(await mcpServers.get(requireContext(request), request.params.mcp_server_id)),
    );

    app.patch(
      '/mcp-servers/:mcp_server_id',
      {
        schema: {
          tags: ['mcp-servers'],
          summary: 'Update an MCP server',
          params: ServerParams,
          body: McpServerUpdateBody,
          response: { 200: McpServerResponse, ...errorResponses(404, 409, 422) },
        },
      },
      async (request) => {
        const ctx = requireContext(request);
        return wire(await mcpServers.update(ctx, await mcpServers.get(ctx, request.params.mcp_server_id), request.body));
      },
    );

    app.delete(
      '/mcp-servers/:mcp_server_id',
      {
        schema: {
          tags: ['mcp-servers'],
          summary: 'Delete an MCP server and its tools',
          params: ServerParams,
          response: { 204: NoContentResponse, ...errorResponses(404, 422) },
        },
      },
      async (request, reply) => {
        const ctx = requireContext(request);
        await mcpServers.delete(ctx, await mcpServers.get(ctx, request.params.mcp_server_id));
        return reply.code(204).send();
      },
    );

    app.get(
      '/mcp-servers/:mcp_server_id/tools',
      {
        schema: {
          tags: ['mcp-servers'],
          summary: "The server's registered tools",
          params: ServerParams,
          response: { 200: z.array(ToolResponse), ...errorResponses(404, 422) },
        },
      },
      async (request) => {
        const ctx = requireContext(request);
        return (await mcpTools.listRegistered(ctx, await mcpServers.get(ctx, request.params.mcp_server_id))).map(toolToWire);
      },
    );

    app.get(
      '/mcp-servers/:mcp_server_id/tools/:tool_id',
      {
        schema: {
          tags: ['mcp-servers'],
          summary: 'Get a registered tool of the server',
          params: ServerToolParams,
          response: { 200: ToolResponse, ...errorResponses(404, 422) },
        },
      },
      async (request) => {
        const ctx = requireContext(request);
        const server = await mcpServers.get(ctx, request.params.mcp_server_id);
        return toolToWire(await mcpTools.getRegistered(ctx, server, request.params.tool_id));
      },
    );

    app.post(
      '/mcp-servers/:mcp_server_id/tools/:tool_id/run',
      {
        schema: {
          tags: ['mcp-servers'],
          summary: 'Run a registered tool on its server',
          params: ServerToolParams,
          body: ToolArgumentsBody,
          response: { 200: ToolExecutionResult, ...errorResponses(404, 422) },
        },
      },
      async (request) => {
        const ctx = requireContext(request);
        const server = await mcpServers.get(ctx, request.params.mcp_server_id);
        return mcpTools.runRegistered(ctx, server, request.params.tool_id, request.body.args);
      },
    );

    app.patch(
      '/mcp-servers/:mcp_server_id/refresh',
      {
        schema: {
          tags: ['mcp-servers'],
          summary: "Resync the server's registered tools with the server",
          params: ServerParams,
          querystring: RefreshQuery,
          response: { 200: ToolSyncSummaryResponse, ...errorResponses(404, 422) },
        },
      },
      async (request) => {
        const ctx = requireContext(request);
        return mcpTools.resync(ctx, await mcpServers.get(ctx, request.params.mcp_server_id), request.query.agent_id);
      },
    );

    app.get(
      '/mcp-servers/connect/:mcp_server_id',
      {
        schema: {
          tags: ['mcp-servers'],
          summary: 'Connect to the server, through OAuth if it asks (Server-Sent Events)',
          params: ServerParams,
          response: { 200: CONNECT_EVENTS, ...errorResponses(404, 422) },
        },
      },
      async (request, reply) => {
        const ctx = requireContext(request);
        const server = await mcpServers.get(ctx, request.params.mcp_server_id);
        await streamConnectEvents(request, reply, await services.mcpOAuth.connect(ctx, { server }, oauthCallbackBase(request)));
      },
    );

    // The MCP sessions (and stdio processes) this process opened end with it.
    app.addHook('onClose', async () => services.mcpConnections.close());
  };
}
