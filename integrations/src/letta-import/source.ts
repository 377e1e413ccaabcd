import { egressRefusalOf } from '../egress/index.js';
import type {
  SourceAgent,
  SourceConversation,
  SourceFile,
  SourceFolder,
  SourceGroup,
  SourceIdentity,
  SourceMcpServer,
  SourcePassage,
  SourceTool,
  SourceWireMessage,
} from './source-types.js';

/** A source answered with an error (or not at all); the message names the path, never the key. */
export class LettaSourceError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
    readonly path: string,
  ) {
    super(message);
    this.name = 'LettaSourceError';
  }
}

export type LettaSourceOptions = {
  /** The server's base URL, with or without a trailing `/v1`. */
  url: string;
  apiKey: string;
  /** Through the egress policy (`fetchFor`): the source is a URL an organization supplied. */
  fetch: typeof fetch;
  /** At most this many requests a second towards the source (default 10), so a migration never floods it. */
  requestsPerSecond?: number;
  /** Tries per request on 429, 5xx and connection errors (default 5), waiting as `Retry-After` asks or backing off. */
  attempts?: number;
  signal?: AbortSignal;
};

/** `https://letta.example/v1/` → `https://letta.example`: the one spelling mappings are keyed by. */
export function normalizeSourceUrl(url: string): string {
  const parsed = new URL(url.trim());
  parsed.hash = '';
  parsed.search = '';
  return parsed.toString().replace(/\/+$/, '').replace(/\/v1$/, '');
}

const RETRYABLE = new Set([408, 425, 429, 500, 502, 503, 504]);

/** The relationships a Letta server leaves out of an agent unless asked. */
const AGENT_INCLUDES = ['agent.blocks', 'agent.tools', 'agent.tags', 'agent.identities', 'agent.sources', 'agent.managed_group'];

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason);
    });
  });

type Query = Record<string, string | number | boolean | string[] | undefined>;

/**
 * Reads a server speaking the Letta `/v1` API (self-hosted Letta, Letta Cloud, another Engram) with plain HTTP:
 * rate-limited, retried on transient failures, every list read page by page through `after` cursors.
 */
export function createLettaSource(options: LettaSourceOptions) {
  const base = normalizeSourceUrl(options.url);
  const interval = 1000 / (options.requestsPerSecond ?? 10);
  const attempts = options.attempts ?? 5;
  let nextSlot = 0;

  /** Spaces request starts `interval` apart, across every caller of this source. */
  async function takeSlot(): Promise<void> {
    const now = Date.now();
    const slot = Math.max(now, nextSlot);
    nextSlot = slot + interval;
    if (slot > now) await sleep(slot - now, options.signal);
  }

  function urlOf(path: string, query: Query = {}): string {
    const url = new URL(`${base}/v1${path}`);
    for (const [key, value] of Object.entries(query)) {
      if (value === undefined) continue;
      for (const item of Array.isArray(value) ? value : [value]) url.searchParams.append(key, String(item));
    }
    return url.toString();
  }

  async function get<T>(path: string, query: Query = {}): Promise<T> {
    let lastError: LettaSourceError | undefined;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      await takeSlot();
      let response: Response;
      try {
        response = await options.fetch(urlOf(path, query), {
          headers: { authorization: `Bearer ${options.apiKey}`, accept: 'application/json' },
          signal: options.signal,
        });
      } catch (error) {
        // A destination the egress policy refuses stays refused: no point asking again.
        if (options.signal?.aborted || egressRefusalOf(error)) throw error;
        lastError = new LettaSourceError(`GET ${path} could not reach the source: ${(error as Error).message}`, null, path);
        await sleep(Math.min(250 * 2 ** attempt, 10_000), options.signal);
        continue;
      }
      if (response.ok) return (await response.json()) as T;
      const detail = (await response.text()).slice(0, 300);
      lastError = new LettaSourceError(`GET ${path} answered ${response.status}: ${detail}`, response.status, path);
      if (!RETRYABLE.has(response.status)) throw lastError;
      const retryAfter = Number(response.headers.get('retry-after'));
      await sleep(Number.isFinite(retryAfter) && retryAfter > 0 ? Math.min(retryAfter * 1000, 60_000) : Math.min(250 * 2 ** attempt, 10_000), options.signal);
    }
    throw lastError!;
  }

  /** A 404 on a list means the source has no such resource (an older Letta, a server without MCP): an empty list. */
  async function listOrNothing<T>(path: string, query: Query): Promise<T[] | null> {
    try {
      return await get<T[]>(path, query);
    } catch (error) {
      if (error instanceof LettaSourceError && (error.status === 404 || error.status === 405)) return null;
      throw error;
    }
  }

  /** One page after `after` (oldest first); an empty page is the end, since a page may hold fewer items than asked. */
  async function page<T extends { id: string }>(path: string, after: string | null, limit: number, query: Query = {}): Promise<T[]> {
    return get<T[]>(path, { ...query, limit, ...(after ? { after } : {}) });
  }

  /** Every item of a paged list, oldest first. */
  async function all<T extends { id: string }>(path: string, query: Query = {}, limit = 100): Promise<T[] | null> {
    const items: T[] = [];
    let after: string | null = null;
    for (;;) {
      const batch: T[] | null = await listOrNothing<T>(path, { ...query, limit, ...(after ? { after } : {}) });
      if (batch === null) return items.length > 0 ? items : null;
      if (batch.length === 0) return items;
      const seen = new Set(items.map((item) => item.id));
      const fresh = batch.filter((item) => !seen.has(item.id));
      if (fresh.length === 0) return items;
      items.push(...fresh);
      after = batch[batch.length - 1]!.id;
    }
  }

  return {
    url: base,

    /** One small authenticated read: whether the source answers and takes the key. */
    async probe(): Promise<void> {
      await get<unknown>('/agents/', { limit: 1 });
    },

    /** Every agent (ids and names are enough here; `agent` reads one whole). */
    async agents(): Promise<SourceAgent[]> {
      return (await all<SourceAgent>('/agents/', { order: 'asc', include: AGENT_INCLUDES }, 50)) ?? [];
    },

    agent(agentId: string): Promise<SourceAgent> {
      return get<SourceAgent>(`/agents/${encodeURIComponent(agentId)}`, { include: AGENT_INCLUDES });
    },

    /**
     * One page of an agent's history after `after` (a stored message id), oldest first. Parts of one stored
     * message share its id; `use_assistant_message=false` keeps tool calls as calls, so nothing is folded away.
     */
    messages(agentId: string, after: string | null, limit: number): Promise<SourceWireMessage[]> {
      return page<SourceWireMessage>(`/agents/${encodeURIComponent(agentId)}/messages`, after, limit, {
        order: 'asc',
        use_assistant_message: false,
        include_err: true,
      });
    },

    passages(agentId: string, after: string | null, limit: number): Promise<SourcePassage[]> {
      return page<SourcePassage>(`/agents/${encodeURIComponent(agentId)}/archival-memory`, after, limit, { ascending: true });
    },

    async tools(): Promise<SourceTool[]> {
      return (await all<SourceTool>('/tools/', { order: 'asc' })) ?? [];
    },

    async identities(): Promise<SourceIdentity[]> {
      return (await all<SourceIdentity>('/identities/', { order: 'asc' })) ?? [];
    },

    async groups(): Promise<SourceGroup[]> {
      return (await all<SourceGroup>('/groups/', { order: 'asc' })) ?? [];
    },

    async folders(): Promise<SourceFolder[]> {
      return (await all<SourceFolder>('/folders/', { order: 'asc' })) ?? [];
    },

    async folderFiles(folderId: string): Promise<SourceFile[]> {
      return (await all<SourceFile>(`/folders/${encodeURIComponent(folderId)}/files`, { include_content: true })) ?? [];
    },

    /** Letta's current path first, then its older `/tools/mcp/servers` (an object keyed by name there). */
    async mcpServers(): Promise<SourceMcpServer[]> {
      const current = await listOrNothing<SourceMcpServer>('/mcp-servers/', {});
      if (current !== null) return current;
      try {
        const legacy = await get<Record<string, SourceMcpServer> | SourceMcpServer[]>('/tools/mcp/servers');
        return Array.isArray(legacy) ? legacy : Object.entries(legacy).map(([name, server]) => ({ ...server, id: server.id ?? name, server_name: server.server_name ?? name }));
      } catch (error) {
        if (error instanceof LettaSourceError && error.status === 404) return [];
        throw error;
      }
    },

    /** One page of a conversation's history (its own messages and those it was forked from), oldest first. */
    conversationMessages(conversationId: string, after: string | null, limit: number): Promise<SourceWireMessage[]> {
      return page<SourceWireMessage>(`/conversations/${encodeURIComponent(conversationId)}/messages`, after, limit, {
        order: 'asc',
        use_assistant_message: false,
        include_err: true,
      });
    },

    async conversations(agentId: string): Promise<SourceConversation[]> {
      return (await all<SourceConversation>('/conversations/', { agent_id: agentId, order: 'asc', archive_status: 'all' })) ?? [];
    },
  };
}

export type LettaSource = ReturnType<typeof createLettaSource>;
