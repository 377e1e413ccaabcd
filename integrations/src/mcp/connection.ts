import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport, SseError } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult, Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { classifyMcpFailure, McpServerError } from './errors.js';
import type { McpTransportConfig } from './transport-config.js';
import { egressRefusalOf, type EgressRefusedError } from '../egress/index.js';

export type { McpTool };
export type McpCallResult = CallToolResult;

/** One live session with an MCP server. Every request carries its own timeout. */
export type McpConnection = {
  listTools(timeoutMs: number): Promise<McpTool[]>;
  callTool(name: string, args: Record<string, unknown>, timeoutMs: number): Promise<McpCallResult>;
  close(): Promise<void>;
};

export type OpenConnectionOptions = {
  serverName: string;
  connectTimeoutMs: number;
  /** Called once when the transport reports the connection lost (process exited, stream dropped). */
  onLost?: () => void;
};

const CLIENT_INFO = { name: 'engram', version: '0.1.0' };
/** A server that pages its tool list forever is cut off here rather than looping. */
const MAX_TOOL_PAGES = 50;
/** How much of a stdio server's stderr is kept to explain why it died. */
const STDERR_TAIL_CHARS = 2000;

type OpenedTransport = {
  transport: Transport;
  stderrTail: () => string;
  /** The egress policy's refusal of a request, which the SSE transport reports as a bare message. */
  refusal: () => EgressRefusedError | undefined;
  /** Cleans up after the connection (a stdio server's sandbox); safe to call more than once. */
  release: () => Promise<void>;
};

async function createTransport(config: McpTransportConfig, serverName: string): Promise<OpenedTransport> {
  if (config.type === 'stdio') {
    const launched = await config.launch({ command: config.command, args: config.args, env: config.env }, serverName);
    const transport = new StdioClientTransport({ command: launched.command, args: launched.args, env: launched.env, stderr: 'pipe' });
    let tail = '';
    transport.stderr?.on('data', (chunk: Buffer) => {
      tail = (tail + chunk.toString()).slice(-STDERR_TAIL_CHARS);
    });
    return { transport, stderrTail: () => tail.trim(), refusal: () => undefined, release: launched.release };
  }
  const requestInit = { headers: config.headers };
  const { authProvider } = config;
  let refusal: EgressRefusedError | undefined;
  const fetch: typeof config.fetch = async (input, init) => {
    try {
      return await config.fetch(input, init);
    } catch (error) {
      refusal = egressRefusalOf(error) ?? refusal;
      throw error;
    }
  };
  const transport =
    config.type === 'sse'
      ? new SSEClientTransport(new URL(config.url), { requestInit, fetch, ...(authProvider ? { authProvider } : {}) })
      : new StreamableHTTPClientTransport(new URL(config.url), {
          requestInit,
          fetch,
          ...(authProvider ? { authProvider } : {}),
          // A dropped stream is not silently resumed: the pool opens a fresh connection on next use.
          reconnectionOptions: { maxRetries: 0, initialReconnectionDelay: 1000, maxReconnectionDelay: 1000, reconnectionDelayGrowFactor: 1 },
        });
  return { transport, stderrTail: () => '', refusal: () => refusal, release: async () => undefined };
}

/** Errors the transport reports on its own (not as the answer to a request) that mean the link is gone. */
function meansConnectionLost(error: Error, serverName: string): boolean {
  if (error instanceof SseError || error instanceof StreamableHTTPError) return true;
  return classifyMcpFailure(error, serverName)?.kind === 'unreachable';
}

async function withDeadline<T>(work: Promise<T>, timeoutMs: number, onTimeout: () => McpServerError): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), timeoutMs);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Connects to an MCP server through the official SDK client and completes the MCP handshake, all
 * within `connectTimeoutMs`: a server that accepts the connection but never answers is a timeout,
 * not a hang. Failures are thrown as `McpServerError`.
 */
export async function openMcpConnection(config: McpTransportConfig, options: OpenConnectionOptions): Promise<McpConnection> {
  const { serverName } = options;
  const { transport, stderrTail, refusal, release } = await createTransport(config, serverName);
  const client = new Client(CLIENT_INFO, { capabilities: {} });
  let closed = false;
  let lostReported = false;
  const reportLost = () => {
    if (lostReported) return;
    lostReported = true;
    options.onLost?.();
  };
  const close = async () => {
    if (closed) return;
    closed = true;
    await client.close().catch(() => undefined);
    await release();
  };

  // What went wrong, in terms the caller acts on; a stdio server that died has usually said why on stderr.
  const failure = (error: unknown): McpServerError => {
    const classified = classifyMcpFailure(refusal() ?? error, serverName) ?? new McpServerError('protocol', `MCP server '${serverName}' refused the request: ${(error as Error).message}`);
    const stderr = stderrTail();
    return stderr && classified.kind === 'unreachable' ? new McpServerError(classified.kind, `${classified.message}. Its stderr ended with: ${stderr}`, classified.neverDelivered) : classified;
  };

  try {
    await withDeadline(
      client.connect(transport, { timeout: options.connectTimeoutMs }),
      options.connectTimeoutMs,
      () => new McpServerError('timeout', `MCP server '${serverName}' did not complete the connection within ${options.connectTimeoutMs} ms`),
    );
  } catch (error) {
    await close();
    throw failure(error);
  }

  client.onclose = () => {
    closed = true;
    reportLost();
    void release();
  };
  client.onerror = (error) => {
    if (!meansConnectionLost(error, serverName)) return;
    // Deferred: when the error came from sending a request, that request first fails with the real
    // cause (which says whether it reached the server); closing fails the others still waiting.
    setImmediate(() => {
      reportLost();
      void close();
    });
  };

  return {
    async listTools(timeoutMs) {
      const tools: McpTool[] = [];
      let cursor: string | undefined;
      try {
        for (let page = 0; page < MAX_TOOL_PAGES; page++) {
          const result = await client.listTools(cursor ? { cursor } : undefined, { timeout: timeoutMs });
          tools.push(...result.tools);
          cursor = result.nextCursor;
          if (!cursor) break;
        }
      } catch (error) {
        throw failure(error);
      }
      return tools;
    },

    async callTool(name, args, timeoutMs) {
      try {
        return (await client.callTool({ name, arguments: args }, undefined, { timeout: timeoutMs })) as McpCallResult;
      } catch (error) {
        const classified = classifyMcpFailure(error, serverName);
        if (classified) throw failure(error);
        // The server answered with a JSON-RPC error (unknown tool, bad arguments): a failed call, not a failed server.
        return { isError: true, content: [{ type: 'text', text: (error as Error).message }] };
      }
    },

    close,
  };
}
