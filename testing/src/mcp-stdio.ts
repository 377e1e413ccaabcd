import { fileURLToPath } from 'node:url';
import type { EgressPolicy } from '@engram/integrations/egress';
import { createMcpStdioPolicy, type McpStdioPolicy } from '@engram/integrations/mcp';

/** The repository, which stdio servers in tests see read-only: the stdio MCP fixture runs from it. */
export const REPOSITORY_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The stdio policy of a test that composes integrations itself: every organization may run stdio servers, in the
 * sandbox, seeing the repository as well as the system; their network goes through `egress`.
 */
export function sandboxedStdio(egress: EgressPolicy): McpStdioPolicy {
  return createMcpStdioPolicy({ mode: 'all', readOnlyPaths: [REPOSITORY_ROOT], firstOrganizationId: null, egress });
}
