import type { FastifyReply, FastifyRequest } from 'fastify';

export type SseChannel = {
  send(data: unknown, event?: string): void;
  done(): void;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
  /** Milliseconds since anything was written. */
  idleMs(): number;
};

/** Takes over the response and writes Server-Sent Events: `data: <json>\n\n`, ending with `data: [DONE]`. */
export function openSse(request: FastifyRequest, reply: FastifyReply, headers: Record<string, string> = {}): SseChannel {
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
    'x-request-id': request.id,
    ...headers,
  });
  raw.flushHeaders();
  const aborter = new AbortController();
  request.raw.once('close', () => aborter.abort());
  raw.once('close', () => aborter.abort());
  let lastWrite = Date.now();
  return {
    signal: aborter.signal,
    idleMs: () => Date.now() - lastWrite,
    send(data, event) {
      if (raw.writableEnded) return;
      raw.write(`${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
      lastWrite = Date.now();
    },
    done() {
      if (raw.writableEnded) return;
      raw.write('data: [DONE]\n\n');
      raw.end();
    },
  };
}
