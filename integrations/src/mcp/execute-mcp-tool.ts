import { McpServer, type Tool } from '@engram/db';
import type { McpConnectionPool } from './connection-pool.js';
import { McpServerError } from './errors.js';
import { mcpToolLink } from './registered-tool.js';
import { createServerTargets, type ServerTargetDeps } from './server-target.js';
import { toolOutcome, type McpToolOutcome } from './tool-result.js';

export type McpToolExecutorDeps = ServerTargetDeps & { connections: McpConnectionPool };

/**
 * Runs an agent's call of a registered MCP tool on its server, through the process's connection
 * pool. Every failure — the server gone, unreachable, slow, or wanting OAuth — is an error result
 * for the model to read, never a throw: the caller (a non-retried activity) must not run it twice.
 */
export function createMcpToolExecutor(deps: McpToolExecutorDeps) {
  const { db, connections } = deps;
  const targets = createServerTargets(deps);

  return async function executeMcpTool(organizationId: string, tool: Tool, args: Record<string, unknown>): Promise<McpToolOutcome> {
    const failed = (reason: string): McpToolOutcome => ({ status: 'error', funcReturn: `Error executing function ${tool.name}: ${reason}` });
    const link = mcpToolLink(tool.metadata);
    if (!link) return failed('the tool is not linked to an MCP server');
    const server = await McpServer.query(db).forOrg(organizationId).findById(link.server_id);
    if (!server) return failed(`its MCP server '${link.server_name}' no longer exists`);
    let target: ReturnType<typeof targets.targetFor>;
    try {
      target = targets.targetFor(server);
    } catch {
      return failed(`the stored credentials of MCP server '${server.serverName}' cannot be decrypted (was ENGRAM_SECRET_KEY changed?)`);
    }
    try {
      return toolOutcome(await connections.callTool(target, link.tool_name, args));
    } catch (error) {
      if (error instanceof McpServerError) return failed(error.message);
      throw error;
    }
  };
}
