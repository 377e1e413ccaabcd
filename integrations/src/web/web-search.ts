import { htmlFragmentText } from './readable-page.js';
import { WEB_SEARCH_VARIABLES, type SearchProviderConfig, type WebSearchConfig } from './config.js';

/** What the model gets for each result, whatever the provider: Letta's (Exa-shaped) result fields. */
export type WebSearchResult = {
  title: string;
  url: string;
  published_date: string | null;
  /** The passages that match the query, or the provider's snippet. */
  highlights: string[];
  /** The provider's best description of the page: its summary, snippet or first highlight. */
  content: string;
  /** The page's full text, when include_text was asked for and the provider returns it. */
  text?: string;
};

export type WebSearchRequest = {
  query: string;
  numResults: number;
  category: string | null;
  includeText: boolean;
  includeDomains: string[];
  excludeDomains: string[];
  startPublishedDate: string | null;
  endPublishedDate: string | null;
  userLocation: string | null;
};

export type ToolOutcome = { status: 'success' | 'error'; funcResponse: string };

export type WebSearchDeps = {
  config: WebSearchConfig;
  /** How the provider is reached: the operator configured it, so not through the tenants' egress policy. */
  fetch?: typeof fetch;
  timeoutMs?: number;
};

const DEFAULT_TIMEOUT_MS = 20_000;
const MAX_RESULTS = 100;
/** Longest full text kept per result: many pages of it would never fit the model's context anyway. */
const MAX_TEXT_CHARS = 10_000;

class SearchArgumentError extends Error {}

const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string' && item.trim() !== '') : []);
const optionalString = (value: unknown): string | null => (typeof value === 'string' && value.trim() !== '' ? value.trim() : null);

function searchRequestOf(args: Record<string, unknown>): WebSearchRequest {
  const query = optionalString(args.query);
  if (!query) throw new SearchArgumentError('the argument query is required: the words to search for');
  const asked = typeof args.num_results === 'number' && Number.isFinite(args.num_results) ? Math.trunc(args.num_results) : 10;
  return {
    query,
    numResults: Math.min(Math.max(asked, 1), MAX_RESULTS),
    category: optionalString(args.category),
    includeText: args.include_text === true,
    includeDomains: strings(args.include_domains),
    excludeDomains: strings(args.exclude_domains),
    startPublishedDate: optionalString(args.start_published_date),
    endPublishedDate: optionalString(args.end_published_date),
    userLocation: optionalString(args.user_location),
  };
}

/** `2025-01-31T00:00:00Z` → `2025-01-31`; null when it is not a date. */
function dayOf(value: string | null): string | null {
  if (!value) return null;
  const parsed = new Date(value);
  return Number.isNaN(parsed.getTime()) ? null : parsed.toISOString().slice(0, 10);
}

/** Providers without include/exclude domain filters get them as search operators, which they all understand. */
function queryWithOperators(request: WebSearchRequest, withCategory: boolean): string {
  const parts = [request.query];
  if (withCategory && request.category) parts.push(request.category);
  if (request.includeDomains.length === 1) parts.push(`site:${request.includeDomains[0]}`);
  if (request.includeDomains.length > 1) parts.push(`(${request.includeDomains.map((domain) => `site:${domain}`).join(' OR ')})`);
  for (const domain of request.excludeDomains) parts.push(`-site:${domain}`);
  return parts.join(' ');
}

const truncated = (text: string | undefined | null) => (typeof text === 'string' ? text.slice(0, MAX_TEXT_CHARS) : undefined);

type ProviderCall = { url: string; init: RequestInit; results: (body: any) => WebSearchResult[] };

/** Exa `POST /search` with contents (highlights, summary, text on request). */
function exa(provider: SearchProviderConfig, request: WebSearchRequest): ProviderCall {
  const body = {
    query: request.query,
    numResults: request.numResults,
    ...(request.category ? { category: request.category } : {}),
    ...(request.includeDomains.length ? { includeDomains: request.includeDomains } : {}),
    ...(request.excludeDomains.length ? { excludeDomains: request.excludeDomains } : {}),
    ...(request.startPublishedDate ? { startPublishedDate: request.startPublishedDate } : {}),
    ...(request.endPublishedDate ? { endPublishedDate: request.endPublishedDate } : {}),
    ...(request.userLocation ? { userLocation: request.userLocation } : {}),
    contents: { highlights: { numSentences: 3, highlightsPerUrl: 3, query: request.query }, summary: { query: request.query }, ...(request.includeText ? { text: { maxCharacters: MAX_TEXT_CHARS } } : {}) },
  };
  return {
    url: `${provider.baseUrl}/search`,
    init: { method: 'POST', headers: { 'x-api-key': provider.apiKey ?? '', 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify(body) },
    results: (answer) =>
      (answer?.results ?? []).map((result: any): WebSearchResult => {
        const highlights = strings(result.highlights);
        return {
          title: String(result.title ?? ''),
          url: String(result.url ?? ''),
          published_date: optionalString(result.publishedDate),
          highlights,
          content: optionalString(result.summary) ?? highlights[0] ?? '',
          ...(request.includeText && typeof result.text === 'string' ? { text: truncated(result.text) } : {}),
        };
      }),
  };
}

/** Tavily `POST /search` (Bearer key); news is its own topic, the country its full English name. */
function tavily(provider: SearchProviderConfig, request: WebSearchRequest): ProviderCall {
  const country = request.userLocation ? countryName(request.userLocation) : null;
  const body = {
    query: request.category && request.category !== 'news' ? `${request.query} ${request.category}` : request.query,
    max_results: Math.min(request.numResults, 20),
    topic: request.category === 'news' ? 'news' : 'general',
    search_depth: 'basic',
    include_raw_content: request.includeText ? 'markdown' : false,
    ...(request.includeDomains.length ? { include_domains: request.includeDomains } : {}),
    ...(request.excludeDomains.length ? { exclude_domains: request.excludeDomains } : {}),
    ...(dayOf(request.startPublishedDate) ? { start_date: dayOf(request.startPublishedDate) } : {}),
    ...(dayOf(request.endPublishedDate) ? { end_date: dayOf(request.endPublishedDate) } : {}),
    ...(country && request.category !== 'news' ? { country } : {}),
  };
  return {
    url: `${provider.baseUrl}/search`,
    init: { method: 'POST', headers: { authorization: `Bearer ${provider.apiKey ?? ''}`, 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify(body) },
    results: (answer) =>
      (answer?.results ?? []).map((result: any): WebSearchResult => ({
        title: String(result.title ?? ''),
        url: String(result.url ?? ''),
        published_date: optionalString(result.published_date),
        highlights: strings([result.content]),
        content: String(result.content ?? ''),
        ...(request.includeText && typeof result.raw_content === 'string' ? { text: truncated(result.raw_content) } : {}),
      })),
  };
}

/** Brave `GET /res/v1/web/search` (X-Subscription-Token); domains become site: operators, dates a freshness range. */
function brave(provider: SearchProviderConfig, request: WebSearchRequest): ProviderCall {
  const url = new URL(`${provider.baseUrl}/res/v1/web/search`);
  url.searchParams.set('q', queryWithOperators(request, true));
  url.searchParams.set('count', String(Math.min(request.numResults, 20)));
  url.searchParams.set('extra_snippets', 'true');
  if (request.userLocation && /^[a-z]{2}$/i.test(request.userLocation)) url.searchParams.set('country', request.userLocation.toUpperCase());
  const from = dayOf(request.startPublishedDate);
  const to = dayOf(request.endPublishedDate);
  if (from || to) url.searchParams.set('freshness', `${from ?? '1970-01-01'}to${to ?? new Date().toISOString().slice(0, 10)}`);
  return {
    url: url.href,
    init: { method: 'GET', headers: { 'x-subscription-token': provider.apiKey ?? '', accept: 'application/json' } },
    results: (answer) =>
      (answer?.web?.results ?? []).map((result: any): WebSearchResult => {
        const description = stripTags(String(result.description ?? ''));
        return {
          title: stripTags(String(result.title ?? '')),
          url: String(result.url ?? ''),
          published_date: optionalString(result.page_age) ?? optionalString(result.age),
          highlights: [description, ...strings(result.extra_snippets).map(stripTags)].filter(Boolean),
          content: description,
        };
      }),
  };
}

/** SearXNG `GET /search?format=json` (its JSON format must be enabled in its settings); dates become a time range. */
function searxng(provider: SearchProviderConfig, request: WebSearchRequest): ProviderCall {
  const url = new URL(`${provider.baseUrl}/search`);
  url.searchParams.set('q', queryWithOperators(request, request.category !== 'news'));
  url.searchParams.set('format', 'json');
  if (request.category === 'news') url.searchParams.set('categories', 'news');
  const from = dayOf(request.startPublishedDate);
  if (from) url.searchParams.set('time_range', timeRangeSince(from));
  return {
    url: url.href,
    init: { method: 'GET', headers: { accept: 'application/json', ...(provider.apiKey ? { authorization: `Bearer ${provider.apiKey}` } : {}) } },
    results: (answer) =>
      (answer?.results ?? []).slice(0, request.numResults).map((result: any): WebSearchResult => ({
        title: String(result.title ?? ''),
        url: String(result.url ?? ''),
        published_date: optionalString(result.publishedDate),
        highlights: strings([result.content]),
        content: String(result.content ?? ''),
      })),
  };
}

/** SearXNG knows only the last day, week, month or year. */
function timeRangeSince(day: string): string {
  const ageDays = (Date.now() - new Date(day).getTime()) / 86_400_000;
  return ageDays <= 1 ? 'day' : ageDays <= 7 ? 'week' : ageDays <= 31 ? 'month' : 'year';
}

/** Brave's snippets are HTML (the query's words in <strong>, entities escaped); the model gets their plain text. */
function stripTags(html: string): string {
  return htmlFragmentText(html);
}

function countryName(code: string): string | null {
  if (!/^[a-z]{2}$/i.test(code)) return code.toLowerCase();
  try {
    return new Intl.DisplayNames(['en'], { type: 'region' }).of(code.toUpperCase())?.toLowerCase() ?? null;
  } catch {
    return null;
  }
}

const PROVIDER_CALLS = { exa, tavily, brave, searxng } satisfies Record<SearchProviderConfig['kind'], unknown>;

/**
 * `web_search`: the operator's provider, asked through its own API, and its answer reshaped into Letta's result
 * fields. Every failure (no provider, a refused key, a timeout) is an error result the model reads.
 */
export function createWebSearch(deps: WebSearchDeps) {
  const send = deps.fetch ?? fetch;
  const timeoutMs = deps.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  return async function webSearch(args: Record<string, unknown>): Promise<ToolOutcome> {
    const provider = deps.config;
    if (!provider) {
      return {
        status: 'error',
        funcResponse: `Error: web search is not configured on this server. Its operator enables it by setting ${WEB_SEARCH_VARIABLES} (see the configuration section of Engram's README).`,
      };
    }
    let request: WebSearchRequest;
    try {
      request = searchRequestOf(args);
    } catch (error) {
      if (error instanceof SearchArgumentError) return { status: 'error', funcResponse: `Error executing function web_search: ${error.message}` };
      throw error;
    }
    const call = PROVIDER_CALLS[provider.kind](provider, request);
    let response: Response;
    try {
      response = await send(call.url, { ...call.init, signal: AbortSignal.timeout(timeoutMs) });
    } catch (error) {
      const reason = error instanceof Error && error.name === 'TimeoutError' ? `no answer within ${timeoutMs / 1000} s` : String(error instanceof Error ? (error.cause ?? error.message) : error);
      return { status: 'error', funcResponse: `Error: the search provider (${provider.kind}) could not be reached: ${reason}` };
    }
    const text = await response.text();
    if (!response.ok) {
      return { status: 'error', funcResponse: `Error: the search provider (${provider.kind}) answered HTTP ${response.status}: ${text.slice(0, 300)}` };
    }
    let answer: unknown;
    try {
      answer = JSON.parse(text);
    } catch {
      return { status: 'error', funcResponse: `Error: the search provider (${provider.kind}) answered something that is not JSON.` };
    }
    const results = call.results(answer).slice(0, request.numResults);
    return { status: 'success', funcResponse: JSON.stringify({ query: request.query, results }) };
  };
}

export type WebSearch = ReturnType<typeof createWebSearch>;
