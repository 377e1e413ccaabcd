import { egressRefusalOf, type EgressPolicy } from '../egress/index.js';
import { readablePage } from './readable-page.js';
import type { ToolOutcome } from './web-search.js';

export type FetchWebpageLimits = {
  /** The whole exchange, redirects included. */
  timeoutMs: number;
  /** Bytes of body read at most; a longer page is cut there. */
  maxBytes: number;
};

export const DEFAULT_FETCH_WEBPAGE_LIMITS: FetchWebpageLimits = { timeoutMs: 20_000, maxBytes: 5 * 1024 * 1024 };

export type FetchWebpageDeps = {
  /** The tenants' egress policy: private, loopback and link-local addresses refused unless the operator allows them. */
  egress: Pick<EgressPolicy, 'fetchFor'>;
  limits?: Partial<FetchWebpageLimits>;
};

const USER_AGENT = 'Mozilla/5.0 (compatible; Engram fetch_webpage; +https://github.com/letta-ai/letta)';
const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);
const TEXT_TYPES = /^(text\/|application\/(json|xml|ld\+json|javascript|x-yaml|yaml|rss\+xml|atom\+xml)$|[a-z]+\/[a-z0-9.+-]*\+(json|xml)$)/;

const failed = (funcResponse: string): ToolOutcome => ({ status: 'error', funcResponse });

/** Reads at most `maxBytes` of the body, then stops the download. */
async function readCapped(response: Response, maxBytes: number): Promise<{ bytes: Uint8Array; cut: boolean }> {
  const reader = response.body?.getReader();
  if (!reader) return { bytes: new Uint8Array(), cut: false };
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { bytes: concat(chunks, total), cut: false };
    const room = maxBytes - total;
    if (value.byteLength >= room) {
      chunks.push(value.subarray(0, room));
      await reader.cancel();
      return { bytes: concat(chunks, maxBytes), cut: true };
    }
    chunks.push(value);
    total += value.byteLength;
  }
}

function concat(chunks: Uint8Array[], length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

function decode(bytes: Uint8Array, charset: string | undefined): string {
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes);
  }
}

/**
 * `fetch_webpage`: fetches the page from the worker through the organization's egress policy (http and https only,
 * every redirect hop checked, at most the policy's redirects), within a time and size limit, and returns its
 * readable content as markdown. Plain-text pages (text, JSON, XML) come back as they are.
 */
export function createFetchWebpage(deps: FetchWebpageDeps) {
  const limits = { ...DEFAULT_FETCH_WEBPAGE_LIMITS, ...deps.limits };
  return async function fetchWebpage(organizationId: string, args: Record<string, unknown>): Promise<ToolOutcome> {
    const raw = typeof args.url === 'string' ? args.url.trim() : '';
    if (!raw) return failed('Error executing function fetch_webpage: the argument url is required: the page\'s full http:// or https:// URL');
    if (!URL.canParse(raw)) return failed(`Error: "${raw}" is not a URL. Give the page's full address, like https://example.com/page.`);
    const url = new URL(raw);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return failed(`Error: only http:// and https:// pages can be fetched, not ${url.protocol} URLs.`);

    const signal = AbortSignal.timeout(limits.timeoutMs);
    let response: Response;
    let body: { bytes: Uint8Array; cut: boolean };
    try {
      response = await deps.egress.fetchFor({ organizationId })(url, {
        headers: { 'user-agent': USER_AGENT, accept: 'text/html,application/xhtml+xml,text/plain;q=0.9,application/json;q=0.8,*/*;q=0.5' },
        signal,
      });
      body = await readCapped(response, limits.maxBytes);
    } catch (error) {
      const refusal = egressRefusalOf(error);
      if (refusal) return failed(`Error: ${refusal.message}.`);
      if (signal.aborted) return failed(`Error: ${url.host} did not send the page within ${limits.timeoutMs / 1000} seconds.`);
      const reason = error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error);
      return failed(`Error: ${url.host} could not be fetched: ${reason}`);
    }
    const finalUrl = response.url || url.href;
    if (!response.ok) return failed(`Error: ${url.host} answered HTTP ${response.status} ${response.statusText}`.trimEnd() + ' for this page.');
    const contentType = response.headers.get('content-type') ?? 'text/html';
    const [mediaType = 'text/html', ...parameters] = contentType.split(';').map((part) => part.trim().toLowerCase());
    const charset = parameters.find((parameter) => parameter.startsWith('charset='))?.slice('charset='.length).replace(/"/g, '');
    if (!HTML_TYPES.has(mediaType) && !TEXT_TYPES.test(mediaType)) {
      return failed(`Error: the page is ${mediaType}, not text or HTML; fetch_webpage returns only readable text.`);
    }
    const text = decode(body.bytes, charset);
    const cutNote = body.cut ? `\n\n[The page is longer than ${limits.maxBytes} bytes; only its beginning was read.]` : '';
    if (!HTML_TYPES.has(mediaType)) return { status: 'success', funcResponse: `${text}${cutNote}` };
    const page = readablePage(text, finalUrl);
    const heading = page.title ? `# ${page.title}\n\n` : '';
    return { status: 'success', funcResponse: `${heading}Source: ${finalUrl}\n\n${page.markdown}${cutNote}` };
  };
}

export type FetchWebpage = ReturnType<typeof createFetchWebpage>;
