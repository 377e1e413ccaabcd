import { queryKeys, type V1Client } from '@engram/console-kit';

/** Query keys of the MCP screens. */
export const mcpKeys = {
  all: (v1: V1Client) => [...queryKeys.v1(v1.organizationId), 'mcp-servers'] as const,
  list: (v1: V1Client) => [...mcpKeys.all(v1), 'list'] as const,
  server: (v1: V1Client, serverId: string) => [...mcpKeys.all(v1), 'server', serverId] as const,
  registeredTools: (v1: V1Client, serverId: string) => [...mcpKeys.server(v1, serverId), 'tools'] as const,
};
