import { errorFromResponse } from './errors.js';

export type RequestOptions = {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Sent as JSON. */
  json?: unknown;
  query?: Record<string, string | number | boolean | readonly string[] | null | undefined>;
  headers?: Record<string, string>;
  signal?: AbortSignal;
};

/** `?a=1&tags=x&tags=y`: lists repeat their key, empty values are left out. */
export function queryString(query: RequestOptions['query']): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value === undefined || value === null || value === '') continue;
    if (Array.isArray(value)) for (const item of value as readonly string[]) params.append(key, item);
    else params.append(key, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** A same-origin request: the session cookie goes along; a failure throws `ApiError`. */
export async function send(path: string, options: RequestOptions = {}): Promise<Response> {
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
  if (options.json !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${path}${queryString(options.query)}`, {
    method: options.method ?? 'GET',
    headers,
    body: options.json === undefined ? undefined : JSON.stringify(options.json),
    credentials: 'same-origin',
    signal: options.signal,
  });
  if (!response.ok) throw await errorFromResponse(response);
  return response;
}

export async function sendJson<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const response = await send(path, options);
  const text = await response.text();
  return (text ? JSON.parse(text) : null) as T;
}
