import { McpServerError } from '@engram/integrations/mcp';
import { RequestTimeoutError, UpstreamError, type AppError } from '../../errors.js';

/** The HTTP error for a failed MCP server: 408 when it was too slow, 502 for everything else. */
export function mcpHttpError(error: McpServerError): AppError {
  return error.kind === 'timeout' ? new RequestTimeoutError(error.message) : new UpstreamError(error.message);
}

/** Runs MCP work, turning server failures into their HTTP errors. */
export async function talkingToMcp<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw error instanceof McpServerError ? mcpHttpError(error) : error;
  }
}
