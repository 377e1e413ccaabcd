import type { ToolJsonSchema } from '@engram/db';
import type { McpTool } from './connection.js';
import type { McpToolHealth } from './tool-health.js';

/** The `tool_type` of a `tools` row that stands for a tool of an MCP server. */
export const MCP_TOOL_TYPE = 'external_mcp';

/** Where the last health check of a registered MCP tool is kept, as the reference server keeps it. */
export const SCHEMA_STATUS_KEY = 'mcp:SCHEMA_STATUS';
export const SCHEMA_WARNINGS_KEY = 'mcp:SCHEMA_WARNINGS';

/** How a registered tool points at its server and its name there: `metadata_.mcp`. */
export type McpToolLink = { server_id: string; server_name: string; tool_name: string };

/** Registered MCP tools are tagged with their server, as clients of the public API filter them. */
export function mcpServerTag(serverName: string): string {
  return `mcp:${serverName}`;
}

export function mcpToolLink(metadata: Record<string, unknown> | null | undefined): McpToolLink | null {
  const link = metadata?.mcp as Partial<McpToolLink> | undefined;
  if (!link || typeof link.server_id !== 'string' || typeof link.tool_name !== 'string') return null;
  return { server_id: link.server_id, server_name: String(link.server_name ?? ''), tool_name: link.tool_name };
}

/** The schema the model sees for an MCP tool: its input schema as parameters, with the health beside it. */
export function registeredToolSchema(tool: McpTool, health: McpToolHealth): ToolJsonSchema {
  const { $schema: _dialect, ...inputSchema } = tool.inputSchema as Record<string, unknown>;
  const properties = (inputSchema.properties as Record<string, unknown> | undefined) ?? {};
  return {
    name: tool.name,
    description: tool.description ?? '',
    parameters: { ...inputSchema, type: 'object', properties, ...(Array.isArray(inputSchema.required) ? { required: inputSchema.required as string[] } : {}) },
    [SCHEMA_STATUS_KEY]: health.status,
    [SCHEMA_WARNINGS_KEY]: health.reasons,
  };
}
