import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { McpServer } from '@engram/db';
import { requireContext } from '../../http/auth.js';
import type { AppServices } from '../../services/index.js';
import { toolToWire } from '../../services/agents/agent-wire.js';
import { LegacyServerConfigBody, LegacyServerUpdateBody, ToolArgumentsBody } from '../../services/mcp/mcp-server-input.js';
import { mcpServerToLegacyConfig, mcpToolToWire } from '../../services/mcp/mcp-wire.js';
import type { RequestContext } from '../../http/request-context.js';
import { CONNECT_EVENTS, oauthCallbackBase, streamConnectEvents } from './mcp-servers.js';
import { LegacyMcpServerConfig, McpOAuthCallbackResponse, McpServerTestResponse, McpToolResponse, ToolSyncSummaryResponse } from '../../contracts/v1/mcp-servers.js';
import { errorResponses } from './shared/error-responses.js';
import { ToolExecutionResult, ToolResponse } from '../../contracts/v1/tools.js';

const ServerParams = z.object({ mcp_server_name: z.string() });
const RegisterParams = z.object({ mcp_server_name: z.string(), mcp_tool_name: z.string() });
const ExecuteParams = z.object({ mcp_server_name: z.string(), tool_name: z.string() });
const ResyncQuery = z.object({ agent_id: z.string().optional() });
const CallbackParams = z.object({ session_id: z.string() });
const CallbackQuery = z.object({ code: z.string().optional(), state: z.string().optional(), error: z.string().optional(), error_description: z.string().optional() });

/** `/v1/tools/mcp/…`: MCP servers by name, live tool discovery, registration, and the OAuth callback. */
export function toolsMcpRoutes(services: AppServices): FastifyPluginAsyncZod {
  return async (app) => {
    const { mcpServers, mcpTools } = services;
    const legacy = (server: McpServer) => mcpServerToLegacyConfig(server, mcpServers.secretsOf(server));
    const allConfigs = async (ctx: RequestContext) => (await mcpServers.list(ctx)).map(legacy);

    app.get(
      '/tools/mcp/servers',
      {
        schema: {
          tags: ['tools'],
          summary: "The organization's MCP servers, by name",
          response: { 200: z.record(z.string(), LegacyMcpServerConfig) },
        },
      },
      async (request) =>
        Object.fromEntries((await mcpServers.list(requireContext(request))).map((server) => [server.serverName, legacy(server)])),
    );

    app.put(
      '/tools/mcp/servers',
      {
        schema: {
          tags: ['tools'],
          summary: 'Add an MCP server (its tools are registered if it answers); answers every server',
          body: LegacyServerConfigBody,
          response: { 200: z.array(LegacyMcpServerConfig), ...errorResponses(409, 422) },
        },
      },
      async (request) => {
        const ctx = requireContext(request);
        await mcpServers.create(ctx, request.body);
        return allConfigs(ctx);
      },
    );

    app.patch(
      '/tools/mcp/servers/:mcp_server_name',
      {
        schema: {
          tags: ['tools'],
          summary: 'Update an MCP server',
          params: ServerParams,
          body: LegacyServerUpdateBody,
          response: { 200: LegacyMcpServerConfig, ...errorResponses(404, 409, 422) },
        },
      },
      async (request) => {
        const ctx = requireContext(request);
        return legacy(await mcpServers.update(ctx, await mcpServers.getByName(ctx, request.params.mcp_server_name), request.body));
      },
    );

    app.delete(
      '/tools/mcp/servers/:mcp_server_name',
      {
        schema: {
          tags: ['tools'],
          summary: 'Delete an MCP server and its tools; answers the servers left',
          params: ServerParams,
          response: { 200: z.array(LegacyMcpServerConfig), ...errorResponses(404, 422) },
        },
      },
      async (request) => {
        const ctx = requireContext(request);
        await mcpServers.delete(ctx, await mcpServers.getByName(ctx, request.params.mcp_server_name));
        return allConfigs(ctx);
      },
    );

    app.get(
      '/tools/mcp/servers/:mcp_server_name/tools',
      {
        schema: {
          tags: ['tools'],
          summary: "The server's tools, asked live, with their schema health",
          params: ServerParams,
          response: { 200: z.array(McpToolResponse), ...errorResponses(404, 422) },
        },
      },
      async (request) => {
        const ctx = requireContext(request);
        const tools = await mcpTools.listLive(ctx, await mcpServers.getByName(ctx, request.params.mcp_server_name));
        return tools.map(({ tool, health }) => mcpToolToWire(tool, health));
      },
    );

    app.post(
      '/tools/mcp/servers/:mcp_server_name/resync',
      {
        schema: {
          tags: ['tools'],
          summary: "Resync the server's registered tools (new ones attached to agent_id if given)",
          params: ServerParams,
          querystring: ResyncQuery,
          response: { 200: ToolSyncSummaryResponse, ...errorResponses(404, 422) },
        },
      },
      async (request) => {
        const ctx = requireContext(request);
        return mcpTools.resync(ctx, await mcpServers.getByName(ctx, request.params.mcp_server_name), request.query.agent_id);
      },
    );

    app.post(
      '/tools/mcp/servers/test',
      {
        schema: {
          tags: ['tools'],
          summary: 'Connect to a server config without adding it; answers its tools',
          body: LegacyServerConfigBody,
          response: { 200: McpServerTestResponse, ...errorResponses(422) },
        },
      },
      async (request) => {
        const tools = await mcpTools.test(requireContext(request), request.body.serverName, request.body.config);
        return { status: 'success' as const, tools: tools.map(({ tool, health }) => mcpToolToWire(tool, health)) };
      },
    );

    app.post(
      '/tools/mcp/servers/connect',
      {
        schema: {
          tags: ['tools'],
          summary: 'Connect to a server config, through OAuth if it asks (Server-Sent Events)',
          body: LegacyServerConfigBody,
          response: { 200: CONNECT_EVENTS, ...errorResponses(422) },
        },
      },
      async (request, reply) => {
        const ctx = requireContext(request);
        const target = { serverName: request.body.serverName, config: request.body.config };
        await streamConnectEvents(request, reply, await services.mcpOAuth.connect(ctx, target, oauthCallbackBase(request)));
      },
    );

    app.post(
      '/tools/mcp/servers/:mcp_server_name/:mcp_tool_name',
      {
        schema: {
          tags: ['tools'],
          summary: "Register one of the server's tools as a tool agents can attach",
          params: RegisterParams,
          response: { 200: ToolResponse, ...errorResponses(404, 409, 422) },
        },
      },
      async (request) => {
        const ctx = requireContext(request);
        const server = await mcpServers.getByName(ctx, request.params.mcp_server_name);
        return toolToWire(await mcpTools.register(ctx, server, request.params.mcp_tool_name));
      },
    );

    app.post(
      '/tools/mcp/servers/:mcp_server_name/tools/:tool_name/execute',
      {
        schema: {
          tags: ['tools'],
          summary: 'Run a tool of the server by name',
          params: ExecuteParams,
          body: ToolArgumentsBody,
          response: { 200: ToolExecutionResult, ...errorResponses(404, 422) },
        },
      },
      async (request) => {
        const ctx = requireContext(request);
        const server = await mcpServers.getByName(ctx, request.params.mcp_server_name);
        return mcpTools.runByName(server, request.params.tool_name, request.body.args);
      },
    );

    app.get(
      '/tools/mcp/oauth/callback/:session_id',
      {
        // The browser returns here from the authorization server, without API credentials.
        config: { public: true },
        schema: {
          tags: ['tools'],
          summary: 'OAuth redirect target of MCP server authorization',
          params: CallbackParams,
          querystring: CallbackQuery,
          response: { 200: McpOAuthCallbackResponse, ...errorResponses(422) },
        },
      },
      async (request) => services.mcpOAuth.completeCallback(request.params.session_id, request.query),
    );
  };
}
