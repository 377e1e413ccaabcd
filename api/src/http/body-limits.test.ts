import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '@engram/testing';
import { JSON_BODY_LIMIT_BYTES } from './body-limits.js';

/**
 * A 1 GB body to a JSON route (and to the upload route) is refused with 413 long before it is read:
 * declared, at once from its length; streamed without a length, as soon as it passes the route's limit.
 */

const ONE_GIGABYTE = 1024 ** 3;
const CHUNK = Buffer.alloc(256 * 1024, 0x20);
const MAX_UPLOAD_BYTES = 2 * 1024 * 1024;

let stack: TestStack;

type Outcome = { status: number; body: string; bytesSent: number };

/**
 * Sends up to `totalBytes` of body in chunks, never more than the socket takes, and stops writing as
 * soon as the server answers or closes: what the server refuses early is never sent at all.
 */
function sendLargeBody(
  path: string,
  options: { method?: string; totalBytes: number; declareLength: boolean; contentType: string; headersOnly?: boolean },
): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    let bytesSent = 0;
    let answered = false;
    const headers: Record<string, string | number> = { authorization: `Bearer ${stack.apiKey}`, 'content-type': options.contentType };
    if (options.declareLength) headers['content-length'] = options.totalBytes;
    const url = new URL(path, stack.baseUrl);
    const request = httpRequest(url, { method: options.method ?? 'POST', headers });
    request.on('response', (response) => {
      answered = true;
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => {
        request.destroy();
        resolve({ status: response.statusCode ?? 0, body, bytesSent });
      });
    });
    request.on('error', (error) => {
      if (!answered) reject(error);
    });
    if (options.headersOnly) return void request.flushHeaders();
    const pump = () => {
      while (!answered && !request.destroyed && bytesSent < options.totalBytes) {
        bytesSent += CHUNK.length;
        if (!request.write(CHUNK)) return void request.once('drain', pump);
      }
      if (!answered && bytesSent >= options.totalBytes) request.end();
    };
    pump();
  });
}

beforeAll(async () => {
  stack = await startTestStack({ inProcessWorker: false, apiEnv: { ENGRAM_MAX_UPLOAD_BYTES: String(MAX_UPLOAD_BYTES) } });
});

afterAll(async () => {
  await stack?.stop();
});

describe('body limits', () => {
  it('refuses a declared 1 GB body on every route that takes one, with 413 and without reading it', async () => {
    const writes = stack.app.routeAccess.filter((route) => ['POST', 'PUT', 'PATCH'].includes(route.method));
    expect(writes.length).toBeGreaterThan(80);
    const answers = await Promise.all(
      writes.map(async (route) => {
        const path = route.url.replace(/:([A-Za-z0-9_]+)/g, 'x').replace(/\*$/, 'x');
        const outcome = await sendLargeBody(path, { method: route.method, totalBytes: ONE_GIGABYTE, declareLength: true, contentType: 'application/json', headersOnly: true });
        return `${route.method} ${route.url} → ${outcome.status}`;
      }),
    );
    expect(answers.filter((answer) => !answer.endsWith('→ 413'))).toEqual([]);
  });

  it('refuses a declared 1 GB JSON body with 413 before reading it', async () => {
    const outcome = await sendLargeBody('/v1/agents/', { totalBytes: ONE_GIGABYTE, declareLength: true, contentType: 'application/json' });
    expect(outcome.status).toBe(413);
    expect(JSON.parse(outcome.body).detail).toMatch(/larger than this route accepts/);
    expect(outcome.bytesSent).toBeLessThan(64 * 1024 * 1024);
  });

  it('cuts off a streamed 1 GB JSON body without a length at the limit', async () => {
    const outcome = await sendLargeBody('/v1/agents/', { totalBytes: ONE_GIGABYTE, declareLength: false, contentType: 'application/json' });
    expect(outcome.status).toBe(413);
    expect(outcome.bytesSent).toBeLessThan(JSON_BODY_LIMIT_BYTES + 64 * 1024 * 1024);
  });

  it('refuses a declared 1 GB upload at the configured upload size, and a streamed one that hides its length', async () => {
    const folder = await (
      await fetch(`${stack.baseUrl}/v1/folders/`, {
        method: 'POST',
        headers: { authorization: `Bearer ${stack.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'body-limit-folder' }),
      })
    ).json() as { id: string };
    const contentType = 'multipart/form-data; boundary=engram-body-limit';
    const declared = await sendLargeBody(`/v1/folders/${folder.id}/upload`, { totalBytes: ONE_GIGABYTE, declareLength: true, contentType });
    expect(declared.status).toBe(413);
    const streamed = await sendLargeBody(`/v1/folders/${folder.id}/upload`, { totalBytes: ONE_GIGABYTE, declareLength: false, contentType });
    expect(streamed.status).toBe(411);
    expect(streamed.bytesSent).toBeLessThan(64 * 1024 * 1024);
  });

  it('still takes a body within the limit', async () => {
    const response = await fetch(`${stack.baseUrl}/v1/blocks/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${stack.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ label: 'roomy', value: 'x'.repeat(4_000), metadata: { notes: 'd'.repeat(200_000) } }),
    });
    expect(response.status).toBe(200);
  });
});
