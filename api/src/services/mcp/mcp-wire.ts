import { maskSecret, type McpServer } from '@engram/db';
import type { McpTool, McpServerSecrets, McpToolHealth } from '@engram/integrations/mcp';

const maskValues = (values: Record<string, string>) => Object.fromEntries(Object.entries(values).map(([key, value]) => [key, maskSecret(value)]));

/** A server's configuration fields as both families show them; every credential is masked. */
function configFields(server: McpServer, secrets: McpServerSecrets) {
  if (server.serverType === 'stdio') {
    return { command: server.command ?? '', args: server.args, env: server.envEnc === null ? null : maskValues(secrets.env) };
  }
  return {
    server_url: server.serverUrl ?? '',
    auth_header: server.authHeader,
    auth_token: secrets.authToken === null ? null : maskSecret(secrets.authToken),
    custom_headers: server.customHeadersEnc === null ? null : maskValues(secrets.customHeaders),
  };
}

/** `StdioMcpServer | SseMcpServer | StreamableHTTPMcpServer` of `/v1/mcp-servers`. */
export function mcpServerToWire(server: McpServer, secrets: McpServerSecrets) {
  return { id: server.id, server_name: server.serverName, mcp_server_type: server.serverType, ...configFields(server, secrets) };
}

/** `StdioServerConfig | SSEServerConfig | StreamableHTTPServerConfig` of `/v1/tools/mcp/servers`. */
export function mcpServerToLegacyConfig(server: McpServer, secrets: McpServerSecrets) {
  return { server_name: server.serverName, type: server.serverType, ...configFields(server, secrets) };
}

/** `MCPTool`: a tool as its server describes it, with the health of its schema. */
export function mcpToolToWire(tool: McpTool, health: McpToolHealth) {
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
