import type { ModuleFederationRuntimePlugin } from '@module-federation/enhanced/runtime';

const ATTEMPTS = 3;
const BACKOFF_MS = 250;

async function fetchWithRetries(url: string, init: RequestInit): Promise<Response> {
  let lastError: unknown;
  for (let attempt = 1; attempt <= ATTEMPTS; attempt += 1) {
    try {
      const response = await fetch(url, { ...init, cache: 'no-cache' });
      if (response.status < 500 || attempt === ATTEMPTS) return response;
      lastError = new Error(`${url} answered ${response.status}`);
    } catch (error) {
      lastError = error;
    }
    await new Promise((resolve) => setTimeout(resolve, BACKOFF_MS * attempt));
  }
  throw lastError instanceof Error ? lastError : new Error(String(lastError));
}

/**
 * A remote's mf-manifest.json is fetched with retries (a deploy or a restarting server is a blip,
 * not an outage). A remote that stays down fails within a second, and the shell shows its fallback.
 */
export default function retryManifestPlugin(): ModuleFederationRuntimePlugin {
  return {
    name: 'engram-retry-manifest',
    fetch(url, init) {
      if (!url.endsWith('.json')) return undefined;
      return fetchWithRetries(url, init);
    },
  };
}
