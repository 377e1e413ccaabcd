import type { McpStdioPolicy } from '@engram/integrations/mcp';
import { UnprocessableError } from '../../errors.js';
import type { CommandField } from './mcp-server-input.js';

/** What a service needs to refuse a stdio server when it is configured. */
export type StdioGate = Pick<McpStdioPolicy, 'refusalOf'>;

/**
 * Refuses, when it is configured (added, changed or tried out), a stdio server the organization may not run
 * (ENGRAM_MCP_STDIO): a 422 naming its `command`. A stored one is refused again whenever it would start.
 */
export function assertMayRunStdio(stdio: StdioGate, organizationId: string, commandField: CommandField): void {
  const refusal = stdio.refusalOf(organizationId);
  if (refusal) throw new UnprocessableError([...commandField], refusal, 'value_error');
}
