/** The search APIs `web_search` can use, each through its documented HTTP API. */
export const SEARCH_PROVIDERS = ['exa', 'tavily', 'brave', 'searxng'] as const;

export type SearchProviderKind = (typeof SEARCH_PROVIDERS)[number];

/** The operator's search provider: its API's base URL and key (SearXNG, self-hosted, needs none). */
export type SearchProviderConfig = { kind: SearchProviderKind; baseUrl: string; apiKey: string | null };

/** What `web_search` goes through, or null when the operator configured no provider (the tool then says what to set). */
export type WebSearchConfig = SearchProviderConfig | null;

export class WebSearchConfigError extends Error {}

/** Each provider's variables, in the order a provider is picked when several are configured and none is named. */
const PROVIDER_VARIABLES: Record<SearchProviderKind, { key: string | null; baseUrl: string; defaultBaseUrl: string | null }> = {
  exa: { key: 'EXA_API_KEY', baseUrl: 'EXA_BASE_URL', defaultBaseUrl: 'https://api.exa.ai' },
  tavily: { key: 'TAVILY_API_KEY', baseUrl: 'TAVILY_BASE_URL', defaultBaseUrl: 'https://api.tavily.com' },
  brave: { key: 'BRAVE_SEARCH_API_KEY', baseUrl: 'BRAVE_SEARCH_BASE_URL', defaultBaseUrl: 'https://api.search.brave.com' },
  searxng: { key: null, baseUrl: 'SEARXNG_URL', defaultBaseUrl: null },
};

/** The variables an operator sets to enable `web_search`, for messages that tell them. */
export const WEB_SEARCH_VARIABLES = 'EXA_API_KEY, TAVILY_API_KEY, BRAVE_SEARCH_API_KEY or SEARXNG_URL';

function configured(env: NodeJS.ProcessEnv, kind: SearchProviderKind): SearchProviderConfig | null {
  const variables = PROVIDER_VARIABLES[kind];
  const apiKey = variables.key ? env[variables.key] || null : null;
  const baseUrl = env[variables.baseUrl] || variables.defaultBaseUrl;
  if (variables.key && !apiKey) return null;
  if (!baseUrl) return null;
  if (!URL.canParse(baseUrl) || !/^https?:$/.test(new URL(baseUrl).protocol)) {
    throw new WebSearchConfigError(`${variables.baseUrl}: must be an http:// or https:// URL, like ${variables.defaultBaseUrl ?? 'http://searxng:8080'}`);
  }
  return { kind, baseUrl: baseUrl.replace(/\/+$/, ''), apiKey };
}

/**
 * ENGRAM_WEB_SEARCH_PROVIDER (exa, tavily, brave or searxng) and the providers' own variables, parsed once by each
 * process that runs tools (the API, the worker). Without ENGRAM_WEB_SEARCH_PROVIDER the first configured provider
 * in the order exa, tavily, brave, searxng is used.
 */
export function parseWebSearchConfig(env: NodeJS.ProcessEnv): WebSearchConfig {
  const named = env.ENGRAM_WEB_SEARCH_PROVIDER?.trim().toLowerCase();
  if (named) {
    if (!(SEARCH_PROVIDERS as readonly string[]).includes(named)) {
      throw new WebSearchConfigError(`ENGRAM_WEB_SEARCH_PROVIDER: "${named}" is not one of ${SEARCH_PROVIDERS.join(', ')}`);
    }
    const kind = named as SearchProviderKind;
    const provider = configured(env, kind);
    if (!provider) {
      const variables = PROVIDER_VARIABLES[kind];
      throw new WebSearchConfigError(`ENGRAM_WEB_SEARCH_PROVIDER is ${kind}, but ${variables.key ?? variables.baseUrl} is not set`);
    }
    return provider;
  }
  for (const kind of SEARCH_PROVIDERS) {
    const provider = configured(env, kind);
    if (provider) return provider;
  }
  return null;
}
