import type { Database, McpServer, Tool } from '@engram/db';
import {
  type McpTool,
  probeMcpServer,
  type McpConnectionPool,
  McpServerError,
  mcpToolLink,
  requestHeaders,
  assessToolHealth,
  type McpToolHealth,
  toolOutcome,
  type McpTransportConfig,
  type McpStdioPolicy,
} from '@engram/integrations/mcp';
import { BadRequestError, NotFoundError } from '../../errors.js';
import type { RequestContext } from '../../http/request-context.js';
import type { AgentToolService } from '../agents/agent-tools-service.js';
import { findAgent } from '../agents/agent-views.js';
import { mcpHttpError, talkingToMcp } from './mcp-errors.js';
import type { McpServerConfigInput } from './mcp-server-input.js';
import type { McpServerService } from './mcp-server-service.js';
import type { McpToolRegistry, ToolSyncSummary } from './mcp-tool-registry.js';
import type { EgressPolicy } from '@engram/integrations/egress';
import { assertReachableUrl } from '../shared/egress.js';
import { assertMayRunStdio } from './mcp-stdio-gate.js';

export type McpToolServiceDeps = {
  db: Database;
  connections: Pick<McpConnectionPool, 'callTool' | 'listTools' | 'timeouts'>;
  servers: Pick<McpServerService, 'targetFor'>;
  registry: McpToolRegistry;
  agentTools: Pick<AgentToolService, 'attachTool'>;
  egress: EgressPolicy;
  stdio: McpStdioPolicy;
};

export type CheckedMcpTool = { tool: McpTool; health: McpToolHealth };

/** `ToolExecutionResult`: an MCP tool has no sandbox, so no output streams and no fingerprint. */
export type McpToolExecutionResult = {
  status: 'success' | 'error';
  func_return: string;
  agent_state: null;
  stdout: string[];
  stderr: string[];
  sandbox_config_fingerprint: null;
};

/** The policies a server's transport config comes under: egress for remote servers, the stdio policy for local ones. */
export type TransportPolicies = { egress: EgressPolicy; stdio: McpStdioPolicy };

/**
 * The transport config of a server that is only being tried out (not stored), for the organization trying it: its
 * URL is refused at once (422) where the egress policy would never reach it, and every request goes through the policy;
 * a stdio server is refused at once (422) where the organization may not run one, and runs sandboxed where it may.
 */
export async function transportConfigOf(policies: TransportPolicies, ctx: RequestContext, config: McpServerConfigInput): Promise<McpTransportConfig> {
  const { egress } = policies;
  if (config.type === 'stdio') {
    assertMayRunStdio(policies.stdio, ctx.organizationId, config.commandField);
    return { type: 'stdio', command: config.command, args: config.args, env: config.env ?? {}, launch: policies.stdio.launcherFor(ctx.organizationId) };
  }
  await assertReachableUrl(egress, ctx.organizationId, config.serverUrl, [...config.serverUrlField]);
  return {
    type: config.type,
    url: config.serverUrl,
    headers: requestHeaders(config.authHeader, config.authToken, config.customHeaders ?? {}),
    fetch: egress.fetchFor({ organizationId: ctx.organizationId }),
  };
}

/**
 * The tools of MCP servers: discovering them live (each listing is a health check), registering
 * them as Engram tools, resyncing those, and running tools directly. An unreachable server is a
 * 502, a slow one a 408.
 */
export function createMcpToolService(deps: McpToolServiceDeps) {
  const { connections, servers, registry } = deps;

  /** Lists the server's tools live and records the check, whichever way it went. */
  async function check(ctx: RequestContext, server: McpServer): Promise<McpTool[]> {
    try {
      const live = await connections.listTools(servers.targetFor(server));
      await registry.recordListed(ctx, server, live);
      return live;
    } catch (error) {
      if (!(error instanceof McpServerError)) throw error;
      await registry.recordUnreachable(server, error.message);
      throw mcpHttpError(error);
    }
  }

  async function run(server: McpServer, toolName: string, args: Record<string, unknown>): Promise<McpToolExecutionResult> {
    const outcome = toolOutcome(await talkingToMcp(() => connections.callTool(servers.targetFor(server), toolName, args)));
    return { status: outcome.status, func_return: outcome.funcReturn, agent_state: null, stdout: [], stderr: [], sandbox_config_fingerprint: null };
  }

  async function registeredTool(ctx: RequestContext, server: McpServer, toolId: string): Promise<Tool> {
    const tool = await registry.findRegisteredTool(ctx.organizationId, server.id, toolId);
    if (!tool) throw new NotFoundError('Tool');
    return tool;
  }

  return {
    /** `GET /tools/mcp/servers/{name}/tools`: live discovery, with each tool's schema health. */
    async listLive(ctx: RequestContext, server: McpServer): Promise<CheckedMcpTool[]> {
      return (await check(ctx, server)).map((tool) => ({ tool, health: assessToolHealth(tool) }));
    },

    /** Registers one of the server's tools as an Engram tool, which agents then attach by id. */
    async register(ctx: RequestContext, server: McpServer, toolName: string): Promise<Tool> {
      const live = await check(ctx, server);
      const tool = live.find((candidate) => candidate.name === toolName);
      if (!tool) {
        throw new BadRequestError(`Tool ${toolName} not found in MCP server ${server.serverName} - available tools: ${live.map((candidate) => candidate.name).join(', ')}`);
      }
      return registry.register(ctx, server, tool);
    },

    /**
     * Resyncs the registered tools with the server: removes the ones it no longer has, refreshes the
     * others and registers new ones, attaching those to `agentId` when given.
     */
    async resync(ctx: RequestContext, server: McpServer, agentId: string | undefined): Promise<ToolSyncSummary> {
      if (agentId !== undefined) await findAgent(deps.db, ctx.organizationId, agentId);
      const live = await check(ctx, server);
      const { summary, addedToolIds } = await registry.sync(ctx, server, live, { addNew: true });
      if (agentId !== undefined) {
        for (const toolId of addedToolIds) await deps.agentTools.attachTool(ctx, agentId, toolId);
      }
      return summary;
    },

    async listRegistered(ctx: RequestContext, server: McpServer): Promise<Tool[]> {
      return registry.registeredTools(ctx.organizationId, server.id).orderBy([{ column: 'createdAt' }, { column: 'id' }]);
    },

    getRegistered: registeredTool,

    /** Runs a tool of the server by its name there, registered or not. */
    runByName(server: McpServer, toolName: string, args: Record<string, unknown>): Promise<McpToolExecutionResult> {
      return run(server, toolName, args);
    },

    async runRegistered(ctx: RequestContext, server: McpServer, toolId: string, args: Record<string, unknown>): Promise<McpToolExecutionResult> {
      const tool = await registeredTool(ctx, server, toolId);
      return run(server, mcpToolLink(tool.metadata)?.tool_name ?? tool.name, args);
    },

    /** Connects to a configuration without storing it and lists its tools. */
    async test(ctx: RequestContext, serverName: string, config: McpServerConfigInput): Promise<CheckedMcpTool[]> {
      const transport = await transportConfigOf(deps, ctx, config);
      const live = await talkingToMcp(() => probeMcpServer(transport, serverName, connections.timeouts));
      return live.map((tool) => ({ tool, health: assessToolHealth(tool) }));
    },
  };
}

export type McpToolService = ReturnType<typeof createMcpToolService>;
