import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A tool call a scripted provider makes; ids are generated when omitted (`call_<n>`). */
export type ProviderToolCall = { id?: string; name: string; arguments: Record<string, unknown> };

export type ProviderUsage = { input: number; output: number; cached?: number; reasoning?: number };

/**
 * What a scripted provider answers next, in provider-neutral terms; each protocol server writes it in its own
 * wire format, streamed or whole as the request asks. `reasoning` comes with `signature` (Anthropic's and
 * Bedrock's signature, OpenAI's encrypted content, Gemini's thought signature); `hiddenReasoning` is reasoning
 * given only encrypted or redacted.
 */
export type ProviderReply =
  | {
      type: 'answer';
      text?: string;
      calls?: ProviderToolCall[];
      reasoning?: string;
      signature?: string;
      hiddenReasoning?: string;
      usage?: ProviderUsage;
    }
  | { type: 'error'; status: number; message: string; retryAfterSeconds?: number };

/** A request as the server received it. */
export type ReceivedRequest = { method: string; path: string; query: URLSearchParams; headers: IncomingMessage['headers']; body: unknown; rawBody: string };

export type ProtocolServer = {
  url: string;
  /** Every request received, in arrival order (token exchanges and model lists included). */
  received: ReceivedRequest[];
  enqueue(...replies: ProviderReply[]): void;
  /** Replies still queued. */
  pending(): number;
  reset(): void;
  close(): Promise<void>;
};

export type ProtocolHandler = (request: ReceivedRequest, response: ServerResponse, next: () => ProviderReply | undefined) => Promise<void> | void;

export function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

export function retryHeaders(reply: Extract<ProviderReply, { type: 'error' }>): Record<string, string> {
  return reply.retryAfterSeconds === undefined ? {} : { 'retry-after': String(reply.retryAfterSeconds) };
}

/** Tool call ids of one server, unique for its life. */
export function callIds() {
  let count = 0;
  return (call: ProviderToolCall) => {
    count += 1;
    return call.id ?? `call_${count}`;
  };
}

/** Starts a loopback HTTP server answering from a queue of replies through a protocol's handler. */
export async function startProtocolServer(handle: ProtocolHandler): Promise<ProtocolServer> {
  const queue: ProviderReply[] = [];
  const received: ReceivedRequest[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      const url = new URL(request.url ?? '/', 'http://127.0.0.1');
      let body: unknown = rawBody;
      try {
        body = rawBody ? JSON.parse(rawBody) : null;
      } catch {
        // Form bodies (token exchanges) stay text.
      }
      const entry: ReceivedRequest = { method: request.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: request.headers, body, rawBody };
      received.push(entry);
      Promise.resolve(handle(entry, response, () => queue.shift())).catch((error: unknown) => {
        if (!response.headersSent) sendJson(response, 500, { error: { message: `scripted provider: ${String(error)}` } });
        else response.end();
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    enqueue: (...replies) => {
      queue.push(...replies);
    },
    pending: () => queue.length,
    reset: () => {
      queue.length = 0;
      received.length = 0;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

export function writeSse(response: ServerResponse, events: Array<{ event?: string; data: unknown }>): void {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const { event, data } of events) response.write(`${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`);
  response.end();
}

export function usageOf(reply: Extract<ProviderReply, { type: 'answer' }>): ProviderUsage {
  return reply.usage ?? { input: 10, output: 5 };
}
