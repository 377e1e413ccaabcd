import { maskSecret, type McpServer } from '@engram/db';
import type { McpTool, McpServerSecrets, McpToolHealth } from '@engram/integrations/mcp';
import type { LegacyMcpServerConfigWire, McpServerWire, McpToolWire } from '../../contracts/v1/mcp-servers.js';

const maskValues = (values: Record<string, string>) => Object.fromEntries(Object.entries(values).map(([key, value]) => [key, maskSecret(value)]));

/** A stdio server's configuration as both families show it; the environment's values are masked. */
function stdioFields(server: McpServer, secrets: McpServerSecrets) {
  return { command: server.command ?? '', args: server.args, env: server.envEnc === null ? null : maskValues(secrets.env) };
}

/** A remote server's configuration as both families show it; the token and header values are masked. */
function remoteFields(server: McpServer, secrets: McpServerSecrets) {
  return {
    server_url: server.serverUrl ?? '',
    auth_header: server.authHeader,
    auth_token: secrets.authToken === null ? null : maskSecret(secrets.authToken),
    custom_headers: server.customHeadersEnc === null ? null : maskValues(secrets.customHeaders),
  };
}

/** `StdioMcpServer | SseMcpServer | StreamableHTTPMcpServer` of `/v1/mcp-servers`. */
export function mcpServerToWire(server: McpServer, secrets: McpServerSecrets): McpServerWire {
  const named = { id: server.id, server_name: server.serverName };
  if (server.serverType === 'stdio') return { ...named, mcp_server_type: 'stdio', ...stdioFields(server, secrets) };
  return { ...named, mcp_server_type: server.serverType, ...remoteFields(server, secrets) };
}

/** `StdioServerConfig | SSEServerConfig | StreamableHTTPServerConfig` of `/v1/tools/mcp/servers`. */
export function mcpServerToLegacyConfig(server: McpServer, secrets: McpServerSecrets): LegacyMcpServerConfigWire {
  if (server.serverType === 'stdio') return { server_name: server.serverName, type: 'stdio', ...stdioFields(server, secrets) };
  return { server_name: server.serverName, type: server.serverType, ...remoteFields(server, secrets) };
}

/** `MCPTool`: a tool as its server describes it, with the health of its schema. */
export function mcpToolToWire(tool: McpTool, health: McpToolHealth): McpToolWire {
  return {
    name: tool.name,
    title: tool.title ?? null,
    description: tool.description ?? null,
    inputSchema: tool.inputSchema,
    outputSchema: tool.outputSchema ?? null,
    annotations: tool.annotations ?? null,
    _meta: tool._meta ?? null,
    health,
  };
}
