import { randomUUID } from 'node:crypto';
import { TenantModel } from './base-model.js';

export type McpServerType = 'stdio' | 'sse' | 'streamable_http';

export const MCP_SERVER_TYPES: readonly McpServerType[] = ['stdio', 'sse', 'streamable_http'];

/** `mcp_server-<uuid4>`, as the public API names MCP servers. */
export function newMcpServerId(): string {
  return `mcp_server-${randomUUID()}`;
}

/**
 * An MCP tool server of an organization. Remote servers (`sse`, `streamable_http`) have a URL and
 * optional auth; `stdio` servers are a local command. Every credential column is sealed.
 */
export class McpServer extends TenantModel {
  static override tableName = 'mcp_servers';
  static override jsonAttributes = ['args'];
  declare id: string;
  declare serverName: string;
  declare serverType: McpServerType;
  declare serverUrl: string | null;
  declare command: string | null;
  declare args: string[];
  declare envEnc: string | null;
  declare authHeader: string | null;
  declare authTokenEnc: string | null;
  declare customHeadersEnc: string | null;
  declare oauthTokensEnc: string | null;
  declare oauthClientInformationEnc: string | null;
  declare lastCheckedAt: Date | null;
  declare lastCheckError: string | null;
  declare createdById: string | null;
  declare lastUpdatedById: string | null;
}
