/**
 * How the browser authenticates to `/v1` — the one place that decides it. The console's session
 * cookie (same origin, sent by `fetch` with `credentials: 'same-origin'`) is honoured on `/v1`
 * when the request carries this header: a custom header cannot be sent cross-site without a CORS
 * preflight, which the API never grants (api/src/http/auth.ts, CONSOLE_REQUEST_HEADER).
 */
export const CONSOLE_REQUEST_HEADER = 'x-engram-console';

export function v1AuthHeaders(): Record<string, string> {
  return { [CONSOLE_REQUEST_HEADER]: '1' };
}
