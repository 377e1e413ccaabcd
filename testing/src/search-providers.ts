import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export type FakeSearchProviderKind = 'exa' | 'tavily' | 'brave' | 'searxng';

/** One request as the fake received it. */
export type SearchApiRequest = { method: string; path: string; query: URLSearchParams; headers: IncomingMessage['headers']; body: any };

export type FakeSearchProvider = {
  /** The provider's base URL (its `*_BASE_URL` / `SEARXNG_URL`). */
  url: string;
  /** The key it accepts; any other is answered 401 as the real API does. SearXNG takes none. */
  apiKey: string | null;
  requests: SearchApiRequest[];
  /** The variables that point Engram at this fake. */
  env: Record<string, string>;
  close(): Promise<void>;
};

/** The pages every fake finds, whatever the query: each provider answers them in its own documented shape. */
export const FAKE_SEARCH_PAGES = [
  { title: 'Tea - Wikipedia', url: 'https://en.wikipedia.org/wiki/Tea', snippet: 'Tea is an aromatic beverage prepared by pouring hot water over cured leaves.', date: '2024-05-01T00:00:00.000Z' },
  { title: 'How to brew green tea', url: 'https://example.com/green-tea', snippet: 'Brew green tea at 80 °C for two minutes.', date: '2025-02-10T00:00:00.000Z' },
];

const ROUTES: Record<FakeSearchProviderKind, { method: string; path: string }> = {
  exa: { method: 'POST', path: '/search' },
  tavily: { method: 'POST', path: '/search' },
  brave: { method: 'GET', path: '/res/v1/web/search' },
  searxng: { method: 'GET', path: '/search' },
};

function authorized(kind: FakeSearchProviderKind, request: SearchApiRequest, apiKey: string | null): boolean {
  if (kind === 'exa') return request.headers['x-api-key'] === apiKey;
  if (kind === 'tavily') return request.headers.authorization === `Bearer ${apiKey}`;
  if (kind === 'brave') return request.headers['x-subscription-token'] === apiKey;
  return true;
}

/** Each provider's documented response body for the fake pages. */
function answer(kind: FakeSearchProviderKind, request: SearchApiRequest): unknown {
  if (kind === 'exa') {
    const wantsText = Boolean(request.body?.contents?.text);
    return {
      requestId: 'fake-request',
      resolvedSearchType: 'neural',
      results: FAKE_SEARCH_PAGES.map((page, index) => ({
        id: page.url,
        title: page.title,
        url: page.url,
        publishedDate: page.date,
        author: null,
        score: 0.9 - index / 10,
        highlights: [page.snippet],
        highlightScores: [0.8],
        summary: `Summary: ${page.snippet}`,
        ...(wantsText ? { text: `${page.title}\n\n${page.snippet} The full text of the page.` } : {}),
      })),
    };
  }
  if (kind === 'tavily') {
    return {
      query: request.body?.query,
      answer: null,
      images: [],
      results: FAKE_SEARCH_PAGES.map((page, index) => ({
        title: page.title,
        url: page.url,
        content: page.snippet,
        score: 0.9 - index / 10,
        raw_content: request.body?.include_raw_content ? `# ${page.title}\n\n${page.snippet}` : null,
        ...(request.body?.topic === 'news' ? { published_date: page.date } : {}),
      })),
      response_time: 0.4,
    };
  }
  if (kind === 'brave') {
    return {
      type: 'search',
      query: { original: request.query.get('q') },
      web: {
        type: 'search',
        results: FAKE_SEARCH_PAGES.map((page) => ({
          type: 'search_result',
          title: page.title.replace('Tea', '<strong>Tea</strong>'),
          url: page.url,
          description: page.snippet.replace('Tea', '<strong>Tea</strong>').replace('°C', '&deg;C'),
          page_age: page.date.slice(0, 19),
          extra_snippets: ['Tea &amp; health.'],
        })),
      },
    };
  }
  return {
    query: request.query.get('q'),
    number_of_results: FAKE_SEARCH_PAGES.length,
    results: FAKE_SEARCH_PAGES.map((page) => ({ url: page.url, title: page.title, content: page.snippet, engine: 'duckduckgo', publishedDate: page.date })),
  };
}

const ENV: Record<FakeSearchProviderKind, (url: string, apiKey: string | null) => Record<string, string>> = {
  exa: (url, apiKey) => ({ EXA_API_KEY: apiKey!, EXA_BASE_URL: url }),
  tavily: (url, apiKey) => ({ TAVILY_API_KEY: apiKey!, TAVILY_BASE_URL: url }),
  brave: (url, apiKey) => ({ BRAVE_SEARCH_API_KEY: apiKey!, BRAVE_SEARCH_BASE_URL: url }),
  searxng: (url) => ({ SEARXNG_URL: url }),
};

/**
 * A loopback stand-in for a web search API (Exa, Tavily, Brave Search or SearXNG's JSON format), speaking its
 * documented request and response shapes: the endpoint, the key header, the result fields.
 */
export async function startFakeSearchProvider(kind: FakeSearchProviderKind): Promise<FakeSearchProvider> {
  const apiKey = kind === 'searxng' ? null : `${kind}-test-key`;
  const requests: SearchApiRequest[] = [];
  const server = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const url = new URL(incoming.url ?? '/', 'http://fake');
      const text = Buffer.concat(chunks).toString('utf8');
      const request: SearchApiRequest = { method: incoming.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: incoming.headers, body: text ? JSON.parse(text) : null };
      requests.push(request);
      const route = ROUTES[kind];
      const reply = (status: number, body: unknown) => {
        response.writeHead(status, { 'content-type': 'application/json' });
        response.end(JSON.stringify(body));
      };
      if (request.method !== route.method || request.path !== route.path) return reply(404, { error: 'not found' });
      if (!authorized(kind, request, apiKey)) return reply(401, { error: 'invalid API key' });
      if (kind === 'searxng' && request.query.get('format') !== 'json') return reply(403, { error: 'format not allowed' });
      reply(200, answer(kind, request));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    apiKey,
    requests,
    env: ENV[kind](url, apiKey),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
