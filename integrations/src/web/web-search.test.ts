import { afterAll, describe, expect, it } from 'vitest';
import { FAKE_SEARCH_PAGES, startFakeSearchProvider, type FakeSearchProviderKind } from '@engram/testing/search-providers';
import { parseWebSearchConfig, WebSearchConfigError } from './config.js';
import { createWebSearch } from './web-search.js';

const kinds: FakeSearchProviderKind[] = ['exa', 'tavily', 'brave', 'searxng'];
const fakes = Object.fromEntries(await Promise.all(kinds.map(async (kind) => [kind, await startFakeSearchProvider(kind)] as const)));
afterAll(() => Promise.all(Object.values(fakes).map((fake) => fake.close())));

const searchWith = (kind: FakeSearchProviderKind, env: Record<string, string> = fakes[kind]!.env) => createWebSearch({ config: parseWebSearchConfig(env) });

async function resultsOf(kind: FakeSearchProviderKind, args: Record<string, unknown>) {
  const outcome = await searchWith(kind)(args);
  expect(outcome.status).toBe('success');
  return JSON.parse(outcome.funcResponse) as { query: string; results: Array<Record<string, unknown>> };
}

describe('parseWebSearchConfig', () => {
  it('finds no provider without variables, and the first configured one otherwise', () => {
    expect(parseWebSearchConfig({})).toBeNull();
    expect(parseWebSearchConfig({ TAVILY_API_KEY: 't', SEARXNG_URL: 'http://searx:8080/' })).toEqual({ kind: 'tavily', baseUrl: 'https://api.tavily.com', apiKey: 't' });
    expect(parseWebSearchConfig({ SEARXNG_URL: 'http://searx:8080/' })).toEqual({ kind: 'searxng', baseUrl: 'http://searx:8080', apiKey: null });
    expect(parseWebSearchConfig({ TAVILY_API_KEY: 't', BRAVE_SEARCH_API_KEY: 'b', ENGRAM_WEB_SEARCH_PROVIDER: 'Brave' })).toMatchObject({ kind: 'brave', apiKey: 'b' });
  });

  it('refuses an unknown provider, a named provider without its key, and a base URL that is not http', () => {
    expect(() => parseWebSearchConfig({ ENGRAM_WEB_SEARCH_PROVIDER: 'google' })).toThrow(WebSearchConfigError);
    expect(() => parseWebSearchConfig({ ENGRAM_WEB_SEARCH_PROVIDER: 'exa' })).toThrow('EXA_API_KEY is not set');
    expect(() => parseWebSearchConfig({ EXA_API_KEY: 'e', EXA_BASE_URL: 'ftp://exa' })).toThrow('EXA_BASE_URL');
  });
});

describe('web_search', () => {
  it('without a provider, tells the model which variables the operator sets', async () => {
    const outcome = await createWebSearch({ config: null })({ query: 'tea' });
    expect(outcome).toMatchObject({ status: 'error' });
    expect(outcome.funcResponse).toContain('EXA_API_KEY, TAVILY_API_KEY, BRAVE_SEARCH_API_KEY or SEARXNG_URL');
  });

  it('asks Exa with its key and contents options, and returns titles, URLs, highlights and summaries', async () => {
    const { query, results } = await resultsOf('exa', {
      query: 'tea', num_results: 2, category: 'news', include_text: true, include_domains: ['wikipedia.org'], start_published_date: '2024-01-01', user_location: 'US',
    });
    expect(query).toBe('tea');
    expect(results[0]).toEqual({
      title: 'Tea - Wikipedia',
      url: 'https://en.wikipedia.org/wiki/Tea',
      published_date: FAKE_SEARCH_PAGES[0]!.date,
      highlights: [FAKE_SEARCH_PAGES[0]!.snippet],
      content: `Summary: ${FAKE_SEARCH_PAGES[0]!.snippet}`,
      text: `Tea - Wikipedia\n\n${FAKE_SEARCH_PAGES[0]!.snippet} The full text of the page.`,
    });
    expect(fakes.exa!.requests.at(-1)!.body).toMatchObject({
      query: 'tea', numResults: 2, category: 'news', includeDomains: ['wikipedia.org'], startPublishedDate: '2024-01-01', userLocation: 'US',
      contents: { text: { maxCharacters: 10_000 }, highlights: { query: 'tea' }, summary: { query: 'tea' } },
    });
  });

  it('asks Tavily with a bearer key, news as its topic and dates as days', async () => {
    const { results } = await resultsOf('tavily', { query: 'tea', category: 'news', start_published_date: '2025-01-31T10:00:00Z', exclude_domains: ['spam.example'] });
    expect(results.map((result) => result.url)).toEqual(FAKE_SEARCH_PAGES.map((page) => page.url));
    expect(results[1]).toMatchObject({ content: FAKE_SEARCH_PAGES[1]!.snippet, highlights: [FAKE_SEARCH_PAGES[1]!.snippet], published_date: FAKE_SEARCH_PAGES[1]!.date });
    expect(fakes.tavily!.requests.at(-1)!.body).toMatchObject({ query: 'tea', topic: 'news', max_results: 10, start_date: '2025-01-31', exclude_domains: ['spam.example'], include_raw_content: false });
  });

  it('asks Brave with its subscription token, domains as site: operators, and returns plain-text snippets', async () => {
    const { results } = await resultsOf('brave', { query: 'tea', num_results: 1, include_domains: ['a.example', 'b.example'], exclude_domains: ['c.example'], user_location: 'gb' });
    expect(results).toEqual([
      {
        title: 'Tea - Wikipedia',
        url: 'https://en.wikipedia.org/wiki/Tea',
        published_date: '2024-05-01T00:00:00',
        highlights: [FAKE_SEARCH_PAGES[0]!.snippet, 'Tea & health.'],
        content: FAKE_SEARCH_PAGES[0]!.snippet,
      },
    ]);
    const asked = fakes.brave!.requests.at(-1)!.query;
    expect(asked.get('q')).toBe('tea (site:a.example OR site:b.example) -site:c.example');
    expect(asked.get('count')).toBe('1');
    expect(asked.get('country')).toBe('GB');
  });

  it("asks SearXNG for its JSON format and keeps the number of results asked for", async () => {
    const { results } = await resultsOf('searxng', { query: 'green tea', num_results: 1 });
    expect(results).toEqual([
      { title: 'Tea - Wikipedia', url: 'https://en.wikipedia.org/wiki/Tea', published_date: FAKE_SEARCH_PAGES[0]!.date, highlights: [FAKE_SEARCH_PAGES[0]!.snippet], content: FAKE_SEARCH_PAGES[0]!.snippet },
    ]);
    expect(fakes.searxng!.requests.at(-1)!.query.get('format')).toBe('json');
    expect(fakes.searxng!.requests.at(-1)!.query.get('q')).toBe('green tea');
  });

  it("reports the provider's refusal, an unreachable provider and a missing query as tool errors", async () => {
    const refused = await searchWith('tavily', { TAVILY_API_KEY: 'wrong', TAVILY_BASE_URL: fakes.tavily!.url })({ query: 'tea' });
    expect(refused).toMatchObject({ status: 'error' });
    expect(refused.funcResponse).toContain('(tavily) answered HTTP 401');
    const unreachable = await searchWith('searxng', { SEARXNG_URL: 'http://127.0.0.1:9' })({ query: 'tea' });
    expect(unreachable.funcResponse).toContain('(searxng) could not be reached');
    expect((await searchWith('exa')({})).funcResponse).toContain('the argument query is required');
  });
});
