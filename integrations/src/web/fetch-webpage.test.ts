import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { loopbackEgress } from '@engram/testing/egress';
import { createFetchWebpage } from './fetch-webpage.js';

const held: ServerResponse[] = [];
const server = createServer((request, response) => {
  if (request.url === '/huge') {
    response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
    response.end('é'.repeat(5_000));
  } else if (request.url === '/slow') {
    response.writeHead(200, { 'content-type': 'text/html' });
    response.write('<html><body><p>first part');
    held.push(response); // never finished: the limit must end the wait
  } else if (request.url === '/latin1') {
    response.writeHead(200, { 'content-type': 'text/plain; charset=iso-8859-1' });
    response.end(Buffer.from([0x63, 0x61, 0x66, 0xe9]));
  } else if (request.url?.startsWith('/loop')) {
    response.writeHead(302, { location: `/loop${Number(request.url.slice(5) || 0) + 1}` });
    response.end();
  } else {
    response.writeHead(404);
    response.end();
  }
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const site = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
afterAll(async () => {
  for (const response of held) response.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const fetchWebpage = createFetchWebpage({ egress: loopbackEgress(), limits: { timeoutMs: 500, maxBytes: 1_000 } });

describe('fetch_webpage limits', () => {
  it('reads at most maxBytes of a page and says it stopped there', async () => {
    const outcome = await fetchWebpage('org-test', { url: `${site}/huge` });
    expect(outcome.status).toBe('success');
    expect(outcome.funcResponse).toContain('[The page is longer than 1000 bytes; only its beginning was read.]');
    expect(outcome.funcResponse.startsWith('é'.repeat(499))).toBe(true);
  });

  it('gives up on a page that does not finish within the time limit', async () => {
    const started = Date.now();
    const outcome = await fetchWebpage('org-test', { url: `${site}/slow` });
    expect(outcome).toEqual({ status: 'error', funcResponse: expect.stringContaining('did not send the page within 0.5 seconds') });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("decodes the page's declared charset", async () => {
    expect(await fetchWebpage('org-test', { url: `${site}/latin1` })).toEqual({ status: 'success', funcResponse: 'café' });
  });

  it('follows a bounded number of redirects', async () => {
    const outcome = await fetchWebpage('org-test', { url: `${site}/loop0` });
    expect(outcome.status).toBe('error');
    expect(outcome.funcResponse).toContain('More than 10 redirects');
  });
});
