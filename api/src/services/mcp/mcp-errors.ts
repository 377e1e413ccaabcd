import { McpServerError } from '@engram/integrations/mcp';
import { UpstreamError } from '../../errors.js';

/**
 * An MCP server that did not answer in time: 408, as the public API answers it. `errors.ts` has no
 * 408 kind, so this carries its own status, which the error handler renders as `{detail}`.
 */
export class McpTimeoutError extends Error {
  readonly statusCode = 408;
}

/** The HTTP error for a failed MCP server: 408 when it was too slow, 502 for everything else. */
export function mcpHttpError(error: McpServerError): Error {
  return error.kind === 'timeout' ? new McpTimeoutError(error.message) : new UpstreamError(error.message);
}

/** Runs MCP work, turning server failures into their HTTP errors. */
export async function talkingToMcp<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw error instanceof McpServerError ? mcpHttpError(error) : error;
  }
}
