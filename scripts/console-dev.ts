/**
 * The console in development: one rspack dev server per app, rebuilding on save and reloading the
 * browser. The shell's server proxies the APIs to a running Engram (`npm start`), so the session
 * cookie stays same-origin, and serves a remotes manifest pointing at the remotes' dev servers.
 *
 *   npm run console:dev                                   shell on http://localhost:3000, API at http://127.0.0.1:8283
 *   npm run console:dev -- --port 4000 --api http://127.0.0.1:9000
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseArgs } from 'node:util';
import { rspack } from '@rspack/core';
import { RspackDevServer } from '@rspack/dev-server';
import agentsConfig, { descriptor as agentsDescriptor } from '../console-remotes/agents/rspack.config.js';
import shellConfig from '../console-shell/rspack.config.js';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '3000' },
    api: { type: 'string', default: 'http://127.0.0.1:8283' },
  },
});
const shellPort = Number(values.port);
const api = values.api;

/** The remotes and their dev ports (the shell's port + 1, + 2, …); the shell learns them from the manifest. */
const remotes = [{ config: agentsConfig('development'), descriptor: agentsDescriptor, port: shellPort + 1 }];

async function startRemote(remote: (typeof remotes)[number]) {
  const server = new RspackDevServer(
    {
      port: remote.port,
      host: '127.0.0.1',
      hot: true,
      liveReload: true,
      headers: { 'access-control-allow-origin': '*' },
      client: { overlay: { errors: true, warnings: false } },
    },
    rspack(remote.config),
  );
  await server.start();
}

async function main() {
  for (const remote of remotes) await startRemote(remote);
  const manifest = {
    remotes: remotes.map((remote) => ({ ...remote.descriptor, entry: `http://127.0.0.1:${remote.port}/mf-manifest.json` })),
  };

  const shell = new RspackDevServer(
    {
      port: shellPort,
      host: '127.0.0.1',
      hot: true,
      liveReload: true,
      historyApiFallback: { index: '/console/shell/index.html' },
      proxy: [{ context: ['/v1', '/api', '/docs', '/openapi.json'], target: api, changeOrigin: false }],
      setupMiddlewares: (middlewares) => [
        {
          name: 'engram-remotes-manifest',
          path: '/console/remotes.json',
          middleware: (_request: IncomingMessage, response: ServerResponse) => {
            response.setHeader('content-type', 'application/json');
            response.setHeader('cache-control', 'no-cache');
            response.end(JSON.stringify(manifest));
          },
        },
        ...middlewares,
      ],
    },
    rspack(shellConfig('development')),
  );
  await shell.start();
  console.log(`[console] dev: http://localhost:${shellPort}/ (API ${api}; remotes ${remotes.map((remote) => remote.port).join(', ')})`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
