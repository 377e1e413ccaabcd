import { openMcpConnection, type McpCallResult, type McpConnection, type McpTool } from './connection.js';
import { McpServerError } from './errors.js';
import { transportFingerprint, type McpTransportConfig } from './transport-config.js';

export type McpTimeouts = {
  /** Opening the transport and the MCP handshake. */
  connectMs: number;
  listToolsMs: number;
  callToolMs: number;
};

export const DEFAULT_MCP_TIMEOUTS: McpTimeouts = { connectMs: 15_000, listToolsMs: 30_000, callToolMs: 120_000 };

/** A server as the pool sees it: its id keys the connection, its name explains errors. */
export type McpServerTarget = {
  serverId: string;
  serverName: string;
  config: McpTransportConfig;
  /** Changes when credentials the config does not show change (OAuth tokens). */
  credentialVersion: string;
};

export type McpConnectionPoolOptions = {
  timeouts?: Partial<McpTimeouts>;
  /** An unused connection is closed after this long (a stdio server's process ends with it). */
  idleMs?: number;
};

type Entry = { fingerprint: string; connection: Promise<McpConnection>; idleTimer?: NodeJS.Timeout };

/**
 * The process's live MCP sessions, one per server id. A connection is opened on first use and kept;
 * one that failed or was lost is closed and dropped, so the next use opens a fresh one (a server
 * that died and came back is reconnected). A request that provably never reached the
 * server over a reused connection is sent once more over a fresh one. Created once per process at
 * the composition root.
 */
export function createMcpConnectionPool(options: McpConnectionPoolOptions = {}) {
  const timeouts: McpTimeouts = { ...DEFAULT_MCP_TIMEOUTS, ...options.timeouts };
  const idleMs = options.idleMs ?? 10 * 60_000;
  const entries = new Map<string, Entry>();

  async function drop(serverId: string, entry: Entry): Promise<void> {
    if (entries.get(serverId) !== entry) return;
    entries.delete(serverId);
    clearTimeout(entry.idleTimer);
    const connection = await entry.connection.catch(() => undefined);
    await connection?.close();
  }

  function touch(serverId: string, entry: Entry): void {
    clearTimeout(entry.idleTimer);
    entry.idleTimer = setTimeout(() => void drop(serverId, entry), idleMs);
    // Idle bookkeeping never keeps the process alive.
    entry.idleTimer.unref();
  }

  /** The pooled connection for the target, and whether it was already open before this call. */
  async function acquire(target: McpServerTarget): Promise<{ entry: Entry; connection: McpConnection; reused: boolean }> {
    const fingerprint = transportFingerprint(target.config, target.credentialVersion);
    const existing = entries.get(target.serverId);
    if (existing && existing.fingerprint !== fingerprint) await drop(target.serverId, existing);
    const current = entries.get(target.serverId);
    if (current) {
      touch(target.serverId, current);
      return { entry: current, connection: await current.connection, reused: true };
    }
    const connecting = openMcpConnection(target.config, {
      serverName: target.serverName,
      connectTimeoutMs: timeouts.connectMs,
      // Only reported once connected, by which time `entry` exists.
      onLost: () => void drop(target.serverId, entry),
    });
    // Concurrent first uses share this one connection attempt.
    const entry: Entry = { fingerprint, connection: connecting };
    entries.set(target.serverId, entry);
    try {
      const connection = await entry.connection;
      touch(target.serverId, entry);
      return { entry, connection, reused: false };
    } catch (error) {
      await drop(target.serverId, entry);
      throw error;
    }
  }

  /** How a request treats failures: which leave the connection usable, and which may be sent again. */
  type FailurePolicy = { keepsConnection(error: McpServerError): boolean; canResend(error: McpServerError): boolean };

  async function use<T>(target: McpServerTarget, work: (connection: McpConnection) => Promise<T>, policy: FailurePolicy): Promise<T> {
    const attempt = async (acquired: Awaited<ReturnType<typeof acquire>>) => {
      try {
        return await work(acquired.connection);
      } catch (error) {
        if (error instanceof McpServerError && !policy.keepsConnection(error)) await drop(target.serverId, acquired.entry);
        throw error;
      }
    };
    const first = await acquire(target);
    try {
      return await attempt(first);
    } catch (error) {
      if (!first.reused || !(error instanceof McpServerError) || !policy.canResend(error)) throw error;
      return attempt(await acquire(target));
    }
  }

  return {
    timeouts,

    /** Lists the server's tools. Listing is safe to repeat, so a stale pooled connection is retried once. */
    listTools(target: McpServerTarget): Promise<McpTool[]> {
      return use(target, (connection) => connection.listTools(timeouts.listToolsMs), {
        keepsConnection: () => false,
        canResend: (error) => error.kind === 'unreachable',
      });
    },

    /**
     * Calls a tool; it is sent again only if the first attempt never reached the server. A call that
     * times out leaves the connection open: a slow tool is not a broken server, and other calls may
     * be using the same session.
     */
    callTool(target: McpServerTarget, toolName: string, args: Record<string, unknown>): Promise<McpCallResult> {
      return use(target, (connection) => connection.callTool(toolName, args, timeouts.callToolMs), {
        keepsConnection: (error) => error.kind === 'timeout',
        canResend: (error) => error.neverDelivered,
      });
    },

    /** Closes the server's connection (after its settings changed or it was deleted). */
    async release(serverId: string): Promise<void> {
      const entry = entries.get(serverId);
      if (entry) await drop(serverId, entry);
    },

    async close(): Promise<void> {
      await Promise.all([...entries].map(([serverId, entry]) => drop(serverId, entry)));
    },
  };
}

export type McpConnectionPool = ReturnType<typeof createMcpConnectionPool>;

/**
 * Connects once without pooling, for trying a configuration out (`POST /tools/mcp/servers/test`):
 * lists its tools and closes.
 */
export async function probeMcpServer(config: McpTransportConfig, serverName: string, timeouts: McpTimeouts): Promise<McpTool[]> {
  const connection = await openMcpConnection(config, { serverName, connectTimeoutMs: timeouts.connectMs });
  try {
    return await connection.listTools(timeouts.listToolsMs);
  } finally {
    await connection.close();
  }
}
