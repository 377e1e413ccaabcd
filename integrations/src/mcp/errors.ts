import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { SseError } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { egressRefusalOf } from '../egress/index.js';

/**
 * What can go wrong talking to an MCP server, by what the caller should do about it: the API answers
 * an unreachable server 502, a slow one 408, and one that wants OAuth 502 with a pointer to the
 * connect flow. A server whose address the egress policy refuses is `refused`: nothing was sent to it. A tool that
 * runs and fails is not among these: it is a tool result with an error.
 */
export type McpFailureKind = 'unreachable' | 'timeout' | 'authorization_required' | 'protocol' | 'refused';

export class McpServerError extends Error {
  constructor(
    readonly kind: McpFailureKind,
    message: string,
    /** True when the request provably never reached the server, so sending it again is safe. */
    readonly neverDelivered = false,
  ) {
    super(message);
    this.name = 'McpServerError';
  }
}

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'ETIMEDOUT', 'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT']);

/** Node and undici put the system error code on the error or on its `cause`. */
function systemCode(error: unknown): string | undefined {
  for (let current: unknown = error, depth = 0; current && depth < 4; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** The message, with the system code or the cause that `fetch failed` alone would hide. */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = systemCode(error);
  if (code && !error.message.includes(code)) return `${error.message} (${code})`;
  return error.cause instanceof Error && !code ? `${error.message}: ${error.cause.message}` : error.message;
}

/**
 * Turns whatever the SDK or the network threw into an `McpServerError`, or returns undefined for an
 * error the server sent as a JSON-RPC answer (the server is fine; the request was not).
 */
export function classifyMcpFailure(error: unknown, serverName: string): McpServerError | undefined {
  if (error instanceof McpServerError) return error;
  const refusal = egressRefusalOf(error);
  if (refusal) return new McpServerError('refused', `MCP server '${serverName}' cannot be reached from this server. ${refusal.message}`, true);
  if (error instanceof UnauthorizedError) {
    return new McpServerError('authorization_required', `MCP server '${serverName}' requires OAuth authorization; connect it first (POST /v1/tools/mcp/servers/connect)`);
  }
  if (error instanceof McpError) {
    if (error.code === ErrorCode.RequestTimeout) return new McpServerError('timeout', `MCP server '${serverName}' did not answer in time: ${error.message}`);
    if (error.code === ErrorCode.ConnectionClosed) return new McpServerError('unreachable', `The connection to MCP server '${serverName}' closed: ${error.message}`);
    return undefined;
  }
  const httpStatus = error instanceof StreamableHTTPError || error instanceof SseError ? error.code : undefined;
  if (httpStatus === 401 || httpStatus === 403) {
    return new McpServerError('authorization_required', `MCP server '${serverName}' refused the credentials (HTTP ${httpStatus}); update its auth or connect it through OAuth`);
  }
  if (error instanceof StreamableHTTPError || error instanceof SseError) {
    // No status: the stream could not be opened at all.
    if (typeof httpStatus !== 'number' || httpStatus < 0) return new McpServerError('unreachable', `MCP server '${serverName}' is unreachable: ${describe(error)}`);
    // 404 on a POST is a session the server no longer knows (it restarted): nothing was processed.
    return new McpServerError('unreachable', `MCP server '${serverName}' failed (HTTP ${httpStatus}): ${describe(error)}`, httpStatus === 404);
  }
  const code = systemCode(error);
  if (code === 'ENOENT' || code === 'EACCES') return new McpServerError('unreachable', `MCP server '${serverName}' could not be started: ${describe(error)}`);
  if (code && NETWORK_CODES.has(code)) {
    return new McpServerError('unreachable', `MCP server '${serverName}' is unreachable: ${describe(error)}`, code === 'ECONNREFUSED');
  }
  if (error instanceof Error && /fetch failed|Not connected|Error POSTing to endpoint/.test(error.message)) {
    return new McpServerError('unreachable', `MCP server '${serverName}' is unreachable: ${describe(error)}`, /HTTP 404/.test(error.message));
  }
  return new McpServerError('protocol', `MCP server '${serverName}' failed: ${describe(error)}`);
}
