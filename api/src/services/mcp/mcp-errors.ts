import { McpServerError } from '@engram/integrations/mcp';
import { BadRequestError, RequestTimeoutError, UpstreamError, type AppError } from '../../errors.js';

/**
 * The HTTP error for a failed MCP server: 408 when it was too slow, 400 when the egress policy refuses its address
 * (its configuration must change), 502 for everything else.
 */
export function mcpHttpError(error: McpServerError): AppError {
  if (error.kind === 'timeout') return new RequestTimeoutError(error.message);
  if (error.kind === 'refused') return new BadRequestError(error.message);
  return new UpstreamError(error.message);
}

/** Runs MCP work, turning server failures into their HTTP errors. */
export async function talkingToMcp<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw error instanceof McpServerError ? mcpHttpError(error) : error;
  }
}
