import { expect } from 'vitest';

/** Where a factory creates things: an API and the key it acts with (a `TestStack` is one). */
export type ApiTarget = { baseUrl: string; apiKey: string };

/** POSTs `body` as JSON to `/v1${path}` with the target's key, expects 200 (the body is the failure message), answers the body. */
export async function postV1<T>(target: ApiTarget, path: string, body: unknown, headers: Record<string, string> = {}): Promise<T> {
  const response = await fetch(`${target.baseUrl}/v1${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${target.apiKey}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return JSON.parse(text) as T;
}
