/* Wire shapes of MCP server configs that the form's pure helpers share with the API calls. */

export type McpTransport = 'stdio' | 'sse' | 'streamable_http';

/** How to reach a server: a process to start, or a URL with the headers it wants. */
export type McpServerConfig =
  | { mcp_server_type: 'stdio'; command: string; args: string[]; env?: Record<string, string> | null }
  | {
      mcp_server_type: 'sse' | 'streamable_http';
      server_url: string;
      auth_header?: string | null;
      auth_token?: string | null;
      custom_headers?: Record<string, string> | null;
    };
