import { chmod } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { Socket } from 'node:net';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { EgressRefusedError, type EgressPolicy, type EgressScope } from './policy.js';

/** Headers that concern one hop (the tool's connection to this proxy), never forwarded. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-authorization', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade']);
/** fetch hands the body over decoded, so what described the encoded body no longer applies. */
const DECODED_BODY = new Set([...HOP_BY_HOP, 'content-encoding', 'content-length']);

export type EgressProxy = { close(): Promise<void> };

export type EgressProxyOptions = {
  egress: Pick<EgressPolicy, 'fetchFor' | 'connect'>;
  scope: EgressScope;
  /** The Unix socket it listens on, inside the tool's working directory (bound into the sandbox). */
  socketPath: string;
};

function refusalAnswer(error: unknown): { status: number; reason: string; message: string } {
  const message = error instanceof Error ? error.message : String(error);
  return error instanceof EgressRefusedError ? { status: 403, reason: 'Forbidden', message } : { status: 502, reason: 'Bad Gateway', message };
}

/** `example.com:443`, `[::1]:8080` → host and port. */
function connectTarget(authority: string): { host: string; port: number } | null {
  const match = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(authority);
  return match ? { host: match[1]!.replace(/^\[|\]$/g, ''), port: Number(match[2]) } : null;
}

/**
 * The only way out of a tool sandbox that a sandbox config lets reach the network: an HTTP proxy on a Unix socket
 * (the sandbox has a network namespace of its own, with nothing but loopback), which forwards plain requests and
 * CONNECT tunnels through the egress policy for the tool's organization. A refused destination is answered 403 with
 * the reason.
 */
export async function startEgressProxy(options: EgressProxyOptions): Promise<EgressProxy> {
  const fetchForScope = options.egress.fetchFor(options.scope);
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };

  const server = createServer((request, response) => {
    void (async () => {
      let url: URL;
      try {
        url = new URL(request.url ?? '');
      } catch {
        response.writeHead(400, { 'content-type': 'text/plain' }).end('This proxy forwards absolute http:// URLs and CONNECT tunnels only');
        return;
      }
      try {
        const headers = new Headers();
        for (const [name, value] of Object.entries(request.headers)) {
          if (value !== undefined && !HOP_BY_HOP.has(name)) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
        }
        const hasBody = request.method !== 'GET' && request.method !== 'HEAD';
        const answer = await fetchForScope(url, {
          method: request.method ?? 'GET',
          headers,
          body: hasBody ? (Readable.toWeb(request) as ReadableStream) : null,
          redirect: 'manual',
          ...(hasBody ? { duplex: 'half' } : {}),
        } as RequestInit);
        response.writeHead(answer.status, Object.fromEntries([...answer.headers].filter(([name]) => !DECODED_BODY.has(name))));
        if (answer.body) Readable.fromWeb(answer.body as WebReadableStream).on('error', () => response.destroy()).pipe(response);
        else response.end();
      } catch (error) {
        const { status, message } = refusalAnswer(error);
        if (!response.headersSent) response.writeHead(status, { 'content-type': 'text/plain' }).end(message);
        else response.destroy();
      }
    })();
  });
  server.on('connection', track);
  server.on('connect', (request, client: Socket, head: Buffer) => {
    const target = connectTarget(request.url ?? '');
    if (!target) {
      client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
      return;
    }
    options.egress.connect(options.scope, target.host, target.port).then(
      (upstream) => {
        track(upstream);
        upstream.on('error', () => client.destroy());
        client.on('error', () => upstream.destroy());
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (head.length > 0) upstream.write(head);
        client.pipe(upstream).pipe(client);
      },
      (error: unknown) => {
        const { status, reason, message } = refusalAnswer(error);
        client.end(`HTTP/1.1 ${status} ${reason}\r\ncontent-type: text/plain\r\nconnection: close\r\n\r\n${message}`);
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.socketPath, () => resolve());
  });
  // The tool runs as another user (`nobody`), which must be able to connect.
  await chmod(options.socketPath, 0o777);
  return {
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
