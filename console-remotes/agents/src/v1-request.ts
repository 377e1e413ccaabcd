import { sendJson, V1_API, v1AuthHeaders, type RequestOptions } from '@engram/console-kit';

/** A `/v1` call as the signed-in member, answered as JSON (`null` for an empty body, as a 204 has). */
export function v1Json<T>(path: string, options: RequestOptions = {}): Promise<T> {
  return sendJson<T>(`${V1_API}${path}`, { ...options, headers: { ...options.headers, ...v1AuthHeaders() } });
}

/** Keyset paging of `/v1` lists: newest first, from after the last item of the page before. */
export type KeysetPage = { after: string | null; limit: number };

export const keysetQuery = (page: KeysetPage) => ({ limit: page.limit, order: 'desc', ...(page.after ? { after: page.after } : {}) });

export const segment = (value: string) => encodeURIComponent(value);
