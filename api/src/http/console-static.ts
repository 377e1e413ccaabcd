import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';

/** Where the built console lives; both default to the repository's build output. */
export type ConsoleStaticOptions = {
  /** The built shell: console-shell/dist. */
  shellDir?: string;
  /** The folder whose `<remote>/dist` hold the built remotes: console-remotes. */
  remotesDir?: string;
  /** Whether the request comes from a platform admin's session; remotes for platform admins are listed to no one else. */
  isPlatformAdmin?(request: FastifyRequest): Promise<boolean>;
};

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** Paths that belong to the APIs: an unknown one there is their 404, never the console's page. */
const API_PREFIXES = ['/v1', '/api', '/latest', '/docs', '/openapi.json'];

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

/**
 * The console's Content-Security-Policy. Scripts come only from this origin as files (the shell's
 * index.html has no inline script, and Module Federation loads remotes with `<script src>` from the
 * manifest's same-origin entries, fetched like the API: connect-src 'self'). Styles may be inline:
 * Mantine writes its theme variables into a `<style>` element at runtime, which no hash can name.
 * Images and fonts may be data: URLs (the favicon is one).
 */
export const CONSOLE_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Files whose name carries a content hash never change, so browsers keep them for a year. */
const HASHED = /\.[0-9a-f]{8}\.(js|css)$/;

/** `<root>/<relative>`, or null when the request tries to leave the root. */
function within(root: string, relative: string): string | null {
  if (relative.includes('\0')) return null;
  const resolved = path.resolve(root, `.${path.posix.normalize(`/${relative}`)}`);
  return resolved === root || resolved.startsWith(`${root}${path.sep}`) ? resolved : null;
}

type RemoteDescriptor = { name: string; title: string; route: string; icon: string; order: number; audience?: 'platform_admin' };

/** The built remotes: each `<remotesDir>/<folder>/dist` with a console-remote.json and an mf-manifest.json. */
function builtRemotes(remotesDir: string): Array<RemoteDescriptor & { folder: string }> {
  if (!existsSync(remotesDir)) return [];
  const remotes: Array<RemoteDescriptor & { folder: string }> = [];
  for (const entry of readdirSync(remotesDir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const dist = path.join(remotesDir, entry.name, 'dist');
    try {
      if (!existsSync(path.join(dist, 'mf-manifest.json'))) continue;
      const descriptor = JSON.parse(readFileSync(path.join(dist, 'console-remote.json'), 'utf8')) as RemoteDescriptor;
      remotes.push({ ...descriptor, folder: entry.name });
    } catch {
      // A remote being rebuilt right now is simply not listed.
    }
  }
  return remotes;
}

/**
 * Sends the file and answers true, or answers false when there is no such file. It answers a boolean, not the
 * reply: a Fastify reply is thenable, so an async function returning it would wait for the response to end and
 * resolve to undefined, and the caller would then send a second answer ("Reply was already sent").
 */
async function sendFile(request: FastifyRequest, reply: FastifyReply, file: string | null, cacheable: boolean): Promise<boolean> {
  if (!file) return false;
  const info = await stat(file).catch(() => null);
  if (!info?.isFile()) return false;
  const contentType = CONTENT_TYPES[path.extname(file)] ?? 'application/octet-stream';
  const acceptsGzip = /\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''));
  const gzipped = acceptsGzip ? await readFile(`${file}.gz`).catch(() => null) : null;
  const body = gzipped ?? (await readFile(file).catch(() => null));
  if (!body) return false;
  reply
    .header('content-type', contentType)
    .header('cache-control', cacheable && HASHED.test(file) ? 'public, max-age=31536000, immutable' : 'no-cache')
    .header('vary', 'accept-encoding');
  if (gzipped) reply.header('content-encoding', 'gzip');
  reply.send(body);
  return true;
}

const NOT_BUILT_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Engram console</title></head>
<body style="font-family:system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem;line-height:1.5">
<h1>The console is not built</h1><p>Run <code>npm run console:build</code> (or start Engram with <code>npm start</code>, which builds it) and reload.</p>
<p>The API is running: <a href="/docs">/docs</a>.</p></body></html>`;

/**
 * Serves the console from the API's own origin, so the session cookie just works:
 * - `GET /console/remotes.json`: the remotes manifest the shell reads (never a literal URL in the shell);
 * - `GET /console/shell/*` and `GET /console/remotes/<remote>/*`: the built files (precompressed .gz when accepted);
 * - any other page route: the shell's index.html (client-side routing), except under the APIs' prefixes.
 */
export function consoleStatic(options: ConsoleStaticOptions = {}): FastifyPluginAsync {
  const shellDir = path.resolve(options.shellDir ?? path.join(REPO_ROOT, 'console-shell/dist'));
  const remotesDir = path.resolve(options.remotesDir ?? path.join(REPO_ROOT, 'console-remotes'));
  const route = { schema: { hide: true }, config: { public: true } } as const;

  return async (app) => {
    // Every console response carries these: the page, its files, the manifest and the not-built page.
    app.addHook('onRequest', async (_request, reply) => {
      reply
        .header('content-security-policy', CONSOLE_CONTENT_SECURITY_POLICY)
        .header('x-content-type-options', 'nosniff')
        .header('referrer-policy', 'same-origin')
        .header('x-frame-options', 'DENY');
    });

    async function sendShellPage(request: FastifyRequest, reply: FastifyReply) {
      if (await sendFile(request, reply, path.join(shellDir, 'index.html'), false)) return reply;
      return reply.code(503).header('content-type', 'text/html; charset=utf-8').header('cache-control', 'no-cache').send(NOT_BUILT_PAGE);
    }

    app.get('/console/remotes.json', route, async (request, reply) => {
      const platformAdmin = (await options.isPlatformAdmin?.(request)) ?? false;
      const remotes = builtRemotes(remotesDir)
        .filter((remote) => remote.audience !== 'platform_admin' || platformAdmin)
        .map(({ folder, ...descriptor }) => ({
          ...descriptor,
          entry: `/console/remotes/${folder}/mf-manifest.json`,
        }));
      return reply.header('cache-control', 'no-cache').send({ remotes });
    });

    app.get('/console/shell/*', route, async (request, reply) => {
      const relative = (request.params as { '*': string })['*'];
      return (await sendFile(request, reply, within(shellDir, relative), true)) ? reply : reply.callNotFound();
    });

    app.get('/console/remotes/:remote/*', route, async (request, reply) => {
      const params = request.params as { remote: string; '*': string };
      const remoteDist = within(remotesDir, path.posix.join(params.remote, 'dist'));
      if (!remoteDist || params.remote.includes('/') || params.remote.startsWith('.')) return reply.callNotFound();
      return (await sendFile(request, reply, within(remoteDist, params['*']), true)) ? reply : reply.callNotFound();
    });

    app.get('/', route, sendShellPage);

    app.get('/*', route, async (request, reply) => {
      const pathname = request.url.split('?')[0] ?? '/';
      if (API_PREFIXES.some((prefix) => pathname === prefix || pathname.startsWith(`${prefix}/`))) return reply.callNotFound();
      // A missing file (`/favicon.ico`, `/x.js`) is a 404, not the page; a path without an extension is a page.
      if (path.posix.extname(pathname)) {
        let decoded: string;
        try {
          decoded = decodeURIComponent(pathname);
        } catch {
          return reply.callNotFound();
        }
        return (await sendFile(request, reply, within(shellDir, decoded), false)) ? reply : reply.callNotFound();
      }
      return sendShellPage(request, reply);
    });
  };
}
