import type { Database, SecretBox } from '@engram/db';
import type { McpConnectionPool, McpStdioPolicy } from '@engram/integrations/mcp';
import type { EgressPolicy } from '@engram/integrations/egress';
import type { AgentToolService } from '../agents/agent-tools-service.js';
import { createMcpOAuthService } from './mcp-oauth-service.js';
import { createMcpServerService } from './mcp-server-service.js';
import { createMcpToolRegistry } from './mcp-tool-registry.js';
import { createMcpToolService } from './mcp-tool-service.js';

export type McpServiceDeps = {
  db: Database;
  secrets: SecretBox;
  connections: McpConnectionPool;
  agentTools: Pick<AgentToolService, 'attachTool'>;
  /** Remote servers' URLs are checked when given, and every request to them (OAuth included) goes through it. */
  egress: EgressPolicy;
  /** stdio servers are refused when configured (422) and when started for organizations it does not allow, and run sandboxed. */
  stdio: McpStdioPolicy;
};

/** MCP tool servers, their tools and their OAuth flows, over the process's one connection pool. */
export function createMcpServices(deps: McpServiceDeps) {
  const { db, secrets, connections, egress, stdio } = deps;
  const registry = createMcpToolRegistry({ db });
  const mcpServers = createMcpServerService({ db, secrets, connections, registry, egress, stdio });
  const mcpTools = createMcpToolService({ db, connections, servers: mcpServers, registry, agentTools: deps.agentTools, egress, stdio });
  const mcpOAuth = createMcpOAuthService({ db, secrets, connections, servers: mcpServers, registry, egress, stdio });
  return { mcpConnections: connections, mcpServers, mcpTools, mcpOAuth };
}
