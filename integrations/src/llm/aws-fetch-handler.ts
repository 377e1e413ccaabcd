import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';

/** The request the AWS SDK hands its HTTP handler, already signed. */
type AwsHttpRequest = {
  method: string;
  protocol: string;
  hostname: string;
  port?: number;
  path: string;
  query?: Record<string, string | string[] | null>;
  headers: Record<string, string>;
  body?: unknown;
};

/** Headers fetch sets itself from the URL and body, with the same values the request was signed with. */
const FETCH_OWNED_HEADERS = new Set(['host', 'content-length']);

function urlOf(request: AwsHttpRequest): string {
  const port = request.port ? `:${request.port}` : '';
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(request.query ?? {})) {
    for (const item of Array.isArray(value) ? value : [value]) search.append(key, item ?? '');
  }
  const query = search.toString();
  return `${request.protocol}//${request.hostname}${port}${request.path}${query ? `?${query}` : ''}`;
}

function bodyOf(body: unknown): string | Uint8Array | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string' || body instanceof Uint8Array) return body;
  throw new TypeError('The AWS request body is a stream, which this handler does not send');
}

/**
 * An HTTP handler for the AWS SDK that sends every request through a `fetch` (an egress policy's, or the global
 * one), so Bedrock is reached the way every other provider is. Streamed answers (ConverseStream's event stream)
 * come back as a Node stream, as the SDK's Node runtime reads them.
 */
export function fetchRequestHandler(send: typeof fetch = fetch) {
  return {
    metadata: { handlerProtocol: 'http/1.1' },
    async handle(request: AwsHttpRequest, options: { abortSignal?: AbortSignal } = {}) {
      const headers = Object.fromEntries(Object.entries(request.headers).filter(([name]) => !FETCH_OWNED_HEADERS.has(name.toLowerCase())));
      const body = bodyOf(request.body);
      const response = await send(urlOf(request), {
        method: request.method,
        headers,
        ...(body !== undefined ? { body: body as string } : {}),
        ...(options.abortSignal ? { signal: options.abortSignal } : {}),
      });
      const responseHeaders: Record<string, string> = {};
      response.headers.forEach((value, name) => {
        responseHeaders[name] = value;
      });
      return {
        response: {
          statusCode: response.status,
          reason: response.statusText,
          headers: responseHeaders,
          body: response.body ? Readable.fromWeb(response.body as NodeReadableStream) : Readable.from([]),
        },
      };
    },
    updateHttpClientConfig() {},
    httpHandlerConfigs() {
      return {};
    },
    destroy() {},
  };
}
