export { parseWebSearchConfig, SEARCH_PROVIDERS, WEB_SEARCH_VARIABLES, WebSearchConfigError, type SearchProviderConfig, type SearchProviderKind, type WebSearchConfig } from './config.js';
export { createWebSearch, type WebSearch, type WebSearchResult } from './web-search.js';
export { createFetchWebpage, DEFAULT_FETCH_WEBPAGE_LIMITS, type FetchWebpage, type FetchWebpageLimits } from './fetch-webpage.js';
export { htmlFragmentText, readablePage } from './readable-page.js';
