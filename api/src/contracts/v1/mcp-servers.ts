import { z } from 'zod';

const MaskedValues = z.record(z.string(), z.string());

/** A stdio server's configuration, as both families show it (`env` values masked). */
const stdioConfig = { command: z.string(), args: z.array(z.string()), env: MaskedValues.nullable() };

/** A remote server's configuration, as both families show it (the token and header values masked). */
const remoteConfig = {
  server_url: z.string(),
  auth_header: z.string().nullable(),
  auth_token: z.string().nullable(),
  custom_headers: MaskedValues.nullable(),
};

/** `StdioMcpServer | SseMcpServer | StreamableHTTPMcpServer` of `/v1/mcp-servers`. */
export const McpServerResponse = z
  .discriminatedUnion('mcp_server_type', [
    z.object({ id: z.string(), server_name: z.string(), mcp_server_type: z.literal('stdio'), ...stdioConfig }),
    z.object({ id: z.string(), server_name: z.string(), mcp_server_type: z.literal('sse'), ...remoteConfig }),
    z.object({ id: z.string(), server_name: z.string(), mcp_server_type: z.literal('streamable_http'), ...remoteConfig }),
  ])
  .meta({ id: 'McpServer' });

export type McpServerWire = z.infer<typeof McpServerResponse>;

/** `StdioServerConfig | SSEServerConfig | StreamableHTTPServerConfig` of `/v1/tools/mcp/servers`. */
export const LegacyMcpServerConfig = z
  .discriminatedUnion('type', [
    z.object({ server_name: z.string(), type: z.literal('stdio'), ...stdioConfig }),
    z.object({ server_name: z.string(), type: z.literal('sse'), ...remoteConfig }),
    z.object({ server_name: z.string(), type: z.literal('streamable_http'), ...remoteConfig }),
  ])
  .meta({ id: 'McpServerConfig' });

export type LegacyMcpServerConfigWire = z.infer<typeof LegacyMcpServerConfig>;

const JsonObject = z.record(z.string(), z.unknown());

/** `MCPTool`: a tool as its server describes it (the MCP spec's own, open-ended fields), with its schema's health. */
export const McpToolResponse = z
  .object({
    name: z.string(),
    title: z.string().nullable(),
    description: z.string().nullable(),
    inputSchema: JsonObject,
    outputSchema: JsonObject.nullable(),
    annotations: JsonObject.nullable(),
    _meta: JsonObject.nullable(),
    health: z.object({ status: z.enum(['STRICT_COMPLIANT', 'NON_STRICT_ONLY', 'INVALID', 'UNREACHABLE']), reasons: z.array(z.string()) }),
  })
  .meta({ id: 'McpTool' });

export type McpToolWire = z.infer<typeof McpToolResponse>;

/** What a resync did to the server's registered tools. */
export const ToolSyncSummaryResponse = z.object({
  added: z.array(z.string()),
  updated: z.array(z.string()),
  deleted: z.array(z.string()),
  skipped: z.array(z.object({ name: z.string(), reason: z.string() })),
});

/** `POST /tools/mcp/servers/test`: the server answered, with these tools. */
export const McpServerTestResponse = z.object({ status: z.literal('success'), tools: z.array(McpToolResponse) });

/** `GET /tools/mcp/oauth/callback/{session_id}`: shown to the browser that came back from the authorization server. */
export const McpOAuthCallbackResponse = z.discriminatedUnion('status', [
  z.object({ status: z.literal('success'), message: z.string(), server_url: z.string() }),
  z.object({ status: z.literal('error'), message: z.string() }),
]);
