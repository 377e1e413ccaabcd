import { createHash } from 'node:crypto';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { StdioLauncher } from './stdio-sandbox.js';

/** A local MCP server: a process spoken to over stdin and stdout. */
export type StdioTransportConfig = {
  type: 'stdio';
  command: string;
  args: string[];
  env: Record<string, string>;
  /** Starts it in the sandbox for the server's organization, or refuses to (the stdio policy's). */
  launch: StdioLauncher;
};

/** A remote MCP server, over SSE (the older protocol) or streamable HTTP. */
export type HttpTransportConfig = {
  type: 'sse' | 'streamable_http';
  url: string;
  /** Every header sent, auth included, in the clear (decrypted just before connecting). */
  headers: Record<string, string>;
  /** For OAuth-protected servers: supplies (and refreshes) the access token. */
  authProvider?: OAuthClientProvider;
  /** Every request to the server and its authorization server goes through it: the egress policy's, for the server's organization. */
  fetch: typeof fetch;
};

/** Everything needed to open a connection to one MCP server. */
export type McpTransportConfig = StdioTransportConfig | HttpTransportConfig;

/**
 * Identifies a configuration, secrets included, without keeping them: a pooled connection opened
 * with other settings (a new token, URL or command) is not reused. `credentialVersion` stands for
 * what the auth provider holds (OAuth tokens), which the settings themselves do not show.
 */
export function transportFingerprint(config: McpTransportConfig, credentialVersion: string): string {
  const settings =
    config.type === 'stdio'
      ? { type: config.type, command: config.command, args: config.args, env: config.env }
      : { type: config.type, url: config.url, headers: config.headers };
  return createHash('sha256').update(JSON.stringify(settings)).update(credentialVersion).digest('hex');
}
