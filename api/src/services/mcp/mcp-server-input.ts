import { z } from 'zod';
import type { McpServerType } from '@engram/db';
import { EnvironmentVariableName, EnvironmentVariableValue } from '../sandbox/sandbox-settings.js';

/**
 * The request shapes of both MCP route families, and what they normalize to. The `/tools/mcp`
 * family names the transport `type` and puts the server name beside the config; `/mcp-servers`
 * names it `mcp_server_type` inside `config`. When the type is left out, a config with a `command`
 * is stdio and one with a `server_url` is SSE, as the reference server reads its union.
 */

const ServerName = z.string().trim().min(1).max(255);
const ServerUrl = z.url({ protocol: /^https?$/, error: 'server_url must be an http(s) URL' });
const HeaderName = z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'not a valid HTTP header name');
const HeaderValue = z.string().refine((value) => !/[\r\n\0]/.test(value), 'a header value cannot contain line breaks');
const Headers = z.record(HeaderName, HeaderValue);
const Environment = z.record(EnvironmentVariableName, EnvironmentVariableValue);

const stdioFields = { command: z.string().min(1), args: z.array(z.string()).default([]), env: Environment.nullish() };
const remoteFields = { server_url: ServerUrl, auth_header: HeaderName.nullish(), auth_token: HeaderValue.nullish(), custom_headers: Headers.nullish() };
const RemoteType = z.enum(['sse', 'streamable_http']);

/** Where a body puts `server_url` (for a 422 naming it): beside the server name, or inside `config`. */
export type ServerUrlField = readonly ['body', 'server_url'] | readonly ['body', 'config', 'server_url'];
const LEGACY_URL_FIELD = ['body', 'server_url'] as const;
const CONFIG_URL_FIELD = ['body', 'config', 'server_url'] as const;

/** Where a body puts a stdio server's `command` (for a 422 naming it). */
export type CommandField = readonly ['body', 'command'] | readonly ['body', 'config', 'command'] | readonly ['body', 'stdio_config', 'command'];
const LEGACY_COMMAND_FIELD = ['body', 'command'] as const;
const CONFIG_COMMAND_FIELD = ['body', 'config', 'command'] as const;

/** A complete server configuration, normalized. */
export type McpServerConfigInput =
  | { type: 'stdio'; command: string; commandField: CommandField; args: string[]; env: Record<string, string> | null }
  | {
      type: 'sse' | 'streamable_http';
      serverUrl: string;
      serverUrlField: ServerUrlField;
      authHeader: string | null;
      authToken: string | null;
      customHeaders: Record<string, string> | null;
    };

export type McpServerCreateInput = { serverName: string; config: McpServerConfigInput };

type StdioParsed = { command: string; args: string[]; env?: Record<string, string> | null | undefined };
type RemoteParsed = { type: 'sse' | 'streamable_http'; server_url: string; auth_header?: string | null | undefined; auth_token?: string | null | undefined; custom_headers?: Record<string, string> | null | undefined };

const stdioConfig = (parsed: StdioParsed, commandField: CommandField): McpServerConfigInput => ({ type: 'stdio', command: parsed.command, commandField, args: parsed.args, env: parsed.env ?? null });
const remoteConfig = (parsed: RemoteParsed, serverUrlField: ServerUrlField): McpServerConfigInput => ({
  type: parsed.type,
  serverUrl: parsed.server_url,
  serverUrlField,
  authHeader: parsed.auth_header ?? null,
  authToken: parsed.auth_token ?? null,
  customHeaders: parsed.custom_headers ?? null,
});

/** `StdioServerConfig | SSEServerConfig | StreamableHTTPServerConfig` of `/tools/mcp/servers` (add, test, connect). */
export const LegacyServerConfigBody = z
  .union([
    z.object({ server_name: ServerName, type: z.literal('stdio').optional(), ...stdioFields }),
    z.object({ server_name: ServerName, type: RemoteType.default('sse'), ...remoteFields }),
  ])
  .transform((body): McpServerCreateInput => ({ serverName: body.server_name, config: 'command' in body ? stdioConfig(body, LEGACY_COMMAND_FIELD) : remoteConfig(body, LEGACY_URL_FIELD) }));

/** `CreateStdioMcpServer | CreateSseMcpServer | CreateStreamableHTTPMcpServer` of `/mcp-servers`. */
const McpServerConfigBody = z.union([
  z.object({ mcp_server_type: z.literal('stdio').optional(), ...stdioFields }).transform((body) => stdioConfig(body, CONFIG_COMMAND_FIELD)),
  z.object({ mcp_server_type: RemoteType.default('sse'), ...remoteFields }).transform((body) => remoteConfig({ ...body, type: body.mcp_server_type }, CONFIG_URL_FIELD)),
]);

export const McpServerCreateBody = z
  .object({ server_name: ServerName, config: McpServerConfigBody })
  .transform((body): McpServerCreateInput => ({ serverName: body.server_name, config: body.config }));

/**
 * A change to a server: a field left out keeps its value, `null` clears an optional one. Secrets
 * sent back exactly as they were shown (masked) keep the stored value.
 */
export type McpServerUpdateInput = {
  serverName?: string | undefined;
  type?: McpServerType | undefined;
  command?: string | undefined;
  args?: string[] | undefined;
  env?: Record<string, string> | null | undefined;
  serverUrl?: string | undefined;
  serverUrlField: ServerUrlField;
  commandField: CommandField;
  authHeader?: string | null | undefined;
  authToken?: string | null | undefined;
  customHeaders?: Record<string, string> | null | undefined;
};

const updateFields = {
  command: z.string().min(1).nullish(),
  args: z.array(z.string()).nullish(),
  env: Environment.nullish(),
  server_url: ServerUrl.nullish(),
  auth_header: HeaderName.nullish(),
  auth_token: HeaderValue.nullish(),
  custom_headers: Headers.nullish(),
};

type UpdateFields = { [K in keyof typeof updateFields]?: z.infer<(typeof updateFields)[K]> };

function updateOf(fields: UpdateFields, serverUrlField: ServerUrlField, commandField: CommandField): McpServerUpdateInput {
  return {
    command: fields.command ?? undefined,
    args: fields.args ?? undefined,
    env: fields.env,
    serverUrl: fields.server_url ?? undefined,
    serverUrlField,
    commandField,
    authHeader: fields.auth_header,
    authToken: fields.auth_token,
    customHeaders: fields.custom_headers,
  };
}

/** `UpdateStdioMcpServer | UpdateSseMcpServer | UpdateStreamableHTTPMcpServer` inside `{server_name?, config?}`. */
export const McpServerUpdateBody = z
  .object({
    server_name: ServerName.nullish(),
    config: z.object({ mcp_server_type: z.enum(['stdio', 'sse', 'streamable_http']).nullish(), ...updateFields }).nullish(),
  })
  .transform((body): McpServerUpdateInput => ({
    ...updateOf(body.config ?? {}, CONFIG_URL_FIELD, CONFIG_COMMAND_FIELD),
    serverName: body.server_name ?? undefined,
    type: body.config?.mcp_server_type ?? undefined,
  }));

/**
 * `PATCH /tools/mcp/servers/{name}`: the flat update shapes, plus their older forms (`stdio_config`
 * for stdio servers, `token` for the SSE auth token).
 */
export const LegacyServerUpdateBody = z
  .object({
    server_name: ServerName.nullish(),
    type: z.enum(['stdio', 'sse', 'streamable_http']).nullish(),
    ...updateFields,
    token: HeaderValue.nullish(),
    stdio_config: z.object({ command: z.string().min(1), args: z.array(z.string()).default([]), env: Environment.nullish() }).partial().nullish(),
  })
  .transform((body): McpServerUpdateInput => ({
    ...updateOf(
      { ...body, ...(body.stdio_config ?? {}), auth_token: body.auth_token === undefined ? body.token : body.auth_token },
      LEGACY_URL_FIELD,
      body.stdio_config ? ['body', 'stdio_config', 'command'] : LEGACY_COMMAND_FIELD,
    ),
    serverName: body.server_name ?? undefined,
    type: body.type ?? undefined,
  }));

/** `ToolExecuteRequest`. */
export const ToolArgumentsBody = z.object({ args: z.record(z.string(), z.unknown()).default({}) }).default({ args: {} });
