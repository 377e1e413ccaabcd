import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_CONTENT_SECURITY_POLICY, consoleStatic } from '@engram/api/http/console-static';

/* The API's static route for the console, on a plain Fastify app over a fake build. */

let scratch: string;
let app: FastifyInstance;
/** What the app logged at warn level or above: a console page load should log nothing. */
const logged: string[] = [];

function write(file: string, content: string) {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content);
}

beforeAll(async () => {
  scratch = mkdtempSync(path.join(os.tmpdir(), 'console-static-'));
  const shell = path.join(scratch, 'shell');
  write(path.join(shell, 'index.html'), '<!doctype html><title>shell</title>');
  write(path.join(shell, 'main.0123abcd.js'), 'console.log("shell")');
  writeFileSync(path.join(shell, 'main.0123abcd.js.gz'), gzipSync('console.log("shell")'));
  const agents = path.join(scratch, 'remotes/agents/dist');
  write(path.join(agents, 'mf-manifest.json'), '{"id":"agents"}');
  write(path.join(agents, 'remoteEntry.js'), 'var agents;');
  write(path.join(agents, 'console-remote.json'), JSON.stringify({ name: 'agents', title: 'Agents', route: 'agents', icon: 'robot', order: 10 }));
  write(path.join(scratch, 'remotes/half-built/dist/console-remote.json'), '{}');
  write(path.join(scratch, 'secret.txt'), 'not for the web');

  app = Fastify({ logger: { level: 'warn', stream: { write: (line: string) => logged.push(line) } } });
  app.get('/v1/health/', async () => ({ ok: true }));
  await app.register(consoleStatic({ shellDir: shell, remotesDir: path.join(scratch, 'remotes') }));
  await app.ready();
});

afterAll(async () => {
  await app?.close();
  rmSync(scratch, { recursive: true, force: true });
});

describe('the console static route', () => {
  it('lists the built remotes, with same-origin entry URLs, in the manifest', async () => {
    const response = await app.inject({ url: '/console/remotes.json' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('no-cache');
    expect(response.json()).toEqual({
      remotes: [{ name: 'agents', title: 'Agents', route: 'agents', icon: 'robot', order: 10, entry: '/console/remotes/agents/mf-manifest.json' }],
    });
  });

  it('serves the shell page for client-side routes, and 404s for unknown API paths and missing files', async () => {
    for (const url of ['/', '/projects/default/agents/agent-1', '/login?next=%2F']) {
      const page = await app.inject({ url });
      expect(page.statusCode, url).toBe(200);
      expect(page.headers['content-type']).toContain('text/html');
      expect(page.body).toContain('<title>shell</title>');
    }
    expect((await app.inject({ url: '/v1/nope' })).statusCode).toBe(404);
    expect((await app.inject({ url: '/api/nope' })).statusCode).toBe(404);
    expect((await app.inject({ url: '/favicon.ico' })).statusCode).toBe(404);
    expect((await app.inject({ url: '/v1/health/' })).json()).toEqual({ ok: true });
  });

  it('serves hashed files for a year, precompressed when the browser accepts gzip', async () => {
    const plain = await app.inject({ url: '/console/shell/main.0123abcd.js' });
    expect(plain.body).toBe('console.log("shell")');
    expect(plain.headers['cache-control']).toContain('immutable');
    expect(plain.headers['content-type']).toContain('text/javascript');
    const gzipped = await app.inject({ url: '/console/shell/main.0123abcd.js', headers: { 'accept-encoding': 'gzip, br' } });
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect((await app.inject({ url: '/console/remotes/agents/remoteEntry.js' })).headers['cache-control']).toBe('no-cache');
  });

  it('never leaves the build folders', async () => {
    for (const url of ['/console/shell/../secret.txt', '/console/shell/%2e%2e/secret.txt', '/console/remotes/..%2f/secret.txt', '/console/remotes/agents/../../secret.txt', '/%2e%2e/secret.txt']) {
      const response = await app.inject({ url });
      expect(response.statusCode, url).toBe(404);
      expect(response.body).not.toContain('not for the web');
    }
  });

  it('sends the security headers with the page, its files, the manifest and the not-built page, and leaves API 404s alone', async () => {
    const bare = Fastify({ logger: false });
    await bare.register(consoleStatic({ shellDir: path.join(scratch, 'missing'), remotesDir: path.join(scratch, 'missing') }));
    const responses = [
      ...(await Promise.all(['/', '/projects/default/agents', '/console/shell/main.0123abcd.js', '/console/remotes/agents/remoteEntry.js', '/console/remotes.json'].map((url) => app.inject({ url })))),
      await bare.inject({ url: '/projects' }),
    ];
    for (const response of responses) {
      expect(response.headers['content-security-policy']).toBe(CONSOLE_CONTENT_SECURITY_POLICY);
      expect(response.headers).toMatchObject({ 'x-content-type-options': 'nosniff', 'referrer-policy': 'same-origin', 'x-frame-options': 'DENY' });
    }
    const policy = new Map(CONSOLE_CONTENT_SECURITY_POLICY.split('; ').map((directive) => [directive.split(' ')[0], directive.split(' ').slice(1).join(' ')]));
    expect(Object.fromEntries(policy)).toMatchObject({ 'script-src': "'self'", 'connect-src': "'self'", 'frame-ancestors': "'none'", 'object-src': "'none'" });
    expect((await app.inject({ url: '/v1/health/' })).headers['content-security-policy']).toBeUndefined();
    await bare.close();
  });

  it('answers every page, file and miss once, so Fastify warns of no reply sent twice', async () => {
    const urls = ['/', '/projects/default/agents', '/console/shell/main.0123abcd.js', '/console/remotes/agents/remoteEntry.js', '/console/remotes.json', '/console/shell/missing.js', '/favicon.ico'];
    for (const url of urls) await app.inject({ url, headers: { 'accept-encoding': 'gzip' } });
    // A second send comes after the first response has ended: give it that turn of the event loop.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(logged).toEqual([]);
  });

  it('answers a clear page when the console is not built', async () => {
    const bare = Fastify({ logger: false });
    await bare.register(consoleStatic({ shellDir: path.join(scratch, 'missing'), remotesDir: path.join(scratch, 'missing') }));
    const response = await bare.inject({ url: '/projects' });
    expect(response.statusCode).toBe(503);
    expect(response.body).toContain('npm run console:build');
    expect((await bare.inject({ url: '/console/remotes.json' })).json()).toEqual({ remotes: [] });
    await bare.close();
  });
});
