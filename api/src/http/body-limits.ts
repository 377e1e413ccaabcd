import type { Socket } from 'node:net';
import { Transform, type TransformCallback } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { PayloadTooLargeError } from '../errors.js';

/**
 * Largest JSON body a route takes unless it says otherwise: every /v1 and console shape is a few
 * kilobytes; the roomiest (a message with inline base64 images, a tool's source and schema) stays
 * well under this.
 */
export const JSON_BODY_LIMIT_BYTES = 8 * 1024 * 1024;

/** Room for a multipart form's boundaries, headers and small fields around the uploaded file. */
const MULTIPART_FORM_OVERHEAD_BYTES = 1024 * 1024;

export type BodyLimits = { maxUploadBytes: number };

function isMultipartRoute(schema: unknown): boolean {
  const consumes = (schema as { consumes?: unknown } | undefined)?.consumes;
  return Array.isArray(consumes) && consumes.includes('multipart/form-data');
}

function tooLarge(limit: number): PayloadTooLargeError {
  return new PayloadTooLargeError(`Request body is larger than this route accepts (${limit} bytes)`);
}

/**
 * Counts the bytes of a body as they arrive and fails the request the moment they pass the limit, so
 * a body sent without a length (chunked) is cut off there instead of being read to its end.
 */
function byteCounter(limit: number): Transform {
  let received = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) {
      received += chunk.length;
      if (received > limit) callback(tooLarge(limit));
      else callback(null, chunk);
    },
  });
}

/** How long a connection cut off mid-body keeps reading (and dropping) what the client still sends. */
const LINGER_AFTER_CUTOFF_MS = 2_000;

/**
 * Closing a socket while the client's bytes sit unread in it sends a reset, and a reset can throw away
 * the 413 before the client has read it (the client sees EPIPE instead). So the connection is half-closed
 * after the answer and drains what still arrives until the client closes too, or the linger runs out.
 * Node's http server ends a `Connection: close` exchange through the socket's destroySoon, hence the override.
 */
function lingerBeforeClosing(socket: Socket): void {
  Object.assign(socket, {
    destroySoon(this: Socket) {
      this.end();
      const deadline = setTimeout(() => this.destroy(), LINGER_AFTER_CUTOFF_MS);
      this.once('close', () => clearTimeout(deadline));
      this.resume();
    },
  });
}

function declaredLength(request: FastifyRequest): number | undefined {
  const header = request.headers['content-length'];
  return header === undefined ? undefined : Number(header);
}

/**
 * Gives every route an explicit body limit (uploads the configured size, everything else the JSON
 * limit) and enforces it before a byte is parsed: a declared length over the limit is refused with 413
 * before the body is read, an undeclared one as soon as it passes the limit.
 */
export function registerBodyLimits(app: FastifyInstance, limits: BodyLimits): void {
  app.addHook('onRoute', (route) => {
    route.bodyLimit ??= isMultipartRoute(route.schema) ? limits.maxUploadBytes + MULTIPART_FORM_OVERHEAD_BYTES : JSON_BODY_LIMIT_BYTES;
  });

  app.addHook('onRequest', async (request, reply) => {
    const limit = request.routeOptions.bodyLimit;
    const length = declaredLength(request);
    if (length !== undefined && length > limit) {
      // The body is never read, so the connection cannot carry another request: the client stops sending.
      reply.header('connection', 'close');
      throw tooLarge(limit);
    }
    // Multipart parsing reads the raw request past any stream a hook could put in front of it, so an upload
    // must say how large it is (every form client does) to be refused before it is read.
    if (length === undefined && isMultipartRoute(request.routeOptions.schema) && request.headers['transfer-encoding'] !== undefined) {
      return reply
        .code(411)
        .header('connection', 'close')
        .type('application/json; charset=utf-8')
        .send({ detail: 'An upload must declare its Content-Length' });
    }
    return undefined;
  });

  app.addHook('preParsing', async (request, _reply, payload) => {
    const limit = request.routeOptions.bodyLimit;
    if (declaredLength(request) !== undefined) return payload;
    const counted = payload.pipe(byteCounter(limit));
    counted.once('error', () => {
      payload.unpipe(counted);
      lingerBeforeClosing(request.raw.socket);
    });
    return counted;
  });
}
