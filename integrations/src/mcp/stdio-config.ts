import path from 'node:path';

/**
 * Which organizations may run stdio MCP servers, which are programs started on the platform's own machine:
 * `first-organization` (the organization `npm start` created on its first start, the operator's), `all`, or `none`.
 */
export type McpStdioMode = 'first-organization' | 'all' | 'none';

export type McpStdioConfig = {
  /** ENGRAM_MCP_STDIO. */
  mode: McpStdioMode;
  /** ENGRAM_MCP_STDIO_READ_ONLY_PATHS: host directories a stdio server sees (read-only) besides the system's. */
  readOnlyPaths: string[];
};

export class McpStdioConfigError extends Error {}

const MODES: readonly McpStdioMode[] = ['first-organization', 'all', 'none'];

/** Parsed once by each process's entry point (the API server and the worker), beside the egress configuration. */
export function parseMcpStdioConfig(env: NodeJS.ProcessEnv): McpStdioConfig {
  const modeText = (env.ENGRAM_MCP_STDIO ?? '').trim().toLowerCase() || 'first-organization';
  if (!(MODES as readonly string[]).includes(modeText)) {
    throw new McpStdioConfigError(`ENGRAM_MCP_STDIO: "${env.ENGRAM_MCP_STDIO}" is not one of ${MODES.join(', ')}`);
  }
  const readOnlyPaths = (env.ENGRAM_MCP_STDIO_READ_ONLY_PATHS ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  const relative = readOnlyPaths.find((entry) => !path.isAbsolute(entry));
  if (relative !== undefined) throw new McpStdioConfigError(`ENGRAM_MCP_STDIO_READ_ONLY_PATHS: "${relative}" is not an absolute path (a comma-separated list of them)`);
  return { mode: modeText as McpStdioMode, readOnlyPaths: readOnlyPaths.map((entry) => path.normalize(entry)) };
}
