import type { EgressPolicy } from '@engram/integrations/egress';
import { createMcpStdioPolicy, type McpStdioPolicy } from '@engram/integrations/mcp';
import { FIXTURE_STDIO_DIR } from './mcp-fixture/index.js';

/** What stdio servers in tests see read-only besides the system: the folder of the bundled stdio MCP fixture. */
export const STDIO_READABLE_DIR = FIXTURE_STDIO_DIR;

/**
 * The stdio policy of a test that composes integrations itself: every organization may run stdio servers, in the
 * sandbox, seeing the stdio fixture's folder as well as the system; their network goes through `egress`.
 */
export function sandboxedStdio(egress: EgressPolicy): McpStdioPolicy {
  return createMcpStdioPolicy({ mode: 'all', readOnlyPaths: [STDIO_READABLE_DIR], firstOrganizationId: null, egress });
}
