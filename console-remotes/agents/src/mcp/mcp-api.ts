import type { ToolExecutionResult } from '../ade-api.js';
import type { FullTool } from '../tools/tools-api.js';
import { segment, v1Json } from '../v1-request.js';
import type { McpServerConfig, McpTransport } from './mcp-types.js';

export type { McpServerConfig, McpTransport };

/** A wire MCP server of `/mcp-servers`: every credential (env values, auth token, header values) comes back masked. */
export type McpServer = {
  id: string;
  server_name: string;
  mcp_server_type: McpTransport;
  command?: string;
  args?: string[];
  env?: Record<string, string> | null;
  server_url?: string;
  auth_header?: string | null;
  auth_token?: string | null;
  custom_headers?: Record<string, string> | null;
};

export type McpToolHealth = { status: 'STRICT_COMPLIANT' | 'NON_STRICT_ONLY' | 'INVALID' | 'UNREACHABLE'; reasons: string[] };

/** A tool as its server describes it (`MCPTool`), with the health of its input schema. */
export type LiveMcpTool = { name: string; title: string | null; description: string | null; inputSchema: Record<string, unknown>; health: McpToolHealth };

export type ToolSyncSummary = { added: string[]; updated: string[]; deleted: string[]; skipped: Array<{ name: string; reason: string }> };

const serverPath = (serverId: string, suffix = '') => `/mcp-servers/${segment(serverId)}${suffix}`;

export function listMcpServers() {
  return v1Json<McpServer[]>('/mcp-servers/');
}

export function getMcpServer(serverId: string) {
  return v1Json<McpServer>(serverPath(serverId));
}

/** Stores the server and registers its tools when it answers. */
export function addMcpServer(serverName: string, config: McpServerConfig) {
  return v1Json<McpServer>('/mcp-servers/', { method: 'POST', json: { server_name: serverName, config } });
}

/** Deletes the server and the tools registered from it (agents lose them). */
export function deleteMcpServer(serverId: string) {
  return v1Json<null>(serverPath(serverId), { method: 'DELETE' });
}

/** The tools registered from the server: the ones agents attach. */
export function listRegisteredTools(serverId: string) {
  return v1Json<FullTool[]>(serverPath(serverId, '/tools'));
}

/** Asks the server for its tools now: a connection check that also records its outcome. */
export function listLiveTools(serverName: string) {
  return v1Json<LiveMcpTool[]>(`/tools/mcp/servers/${segment(serverName)}/tools`);
}

/** Brings the registered tools in line with the server: new ones registered, gone ones removed. */
export function refreshMcpServer(serverId: string) {
  return v1Json<ToolSyncSummary>(serverPath(serverId, '/refresh'), { method: 'PATCH' });
}

/** Connects to a config without storing it and lists its tools (the `/tools/mcp` family names the transport `type`). */
export function testMcpConfig(serverName: string, config: McpServerConfig) {
  const { mcp_server_type: type, ...fields } = config;
  return v1Json<{ status: string; tools: LiveMcpTool[] }>('/tools/mcp/servers/test', { method: 'POST', json: { server_name: serverName, type, ...fields } });
}

export function runRegisteredTool(serverId: string, toolId: string, args: Record<string, unknown>) {
  return v1Json<ToolExecutionResult>(serverPath(serverId, `/tools/${segment(toolId)}/run`), { method: 'POST', json: { args } });
}
