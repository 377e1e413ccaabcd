/**
 * The console apps in development, one dev server each: rspack's own CLI serves one of them per process
 * (`rspack serve --config-name <app>`), as scripts/console-dev.ts runs it, for the reason scripts/console-build.ts
 * gives. The shell's server proxies the APIs to a running Engram and serves a remotes manifest pointing at the
 * remotes' dev servers, on the ports after the shell's, in the order of CONSOLE_APPS.
 *
 * Options come as `--env shellPort=3000 --env api=http://127.0.0.1:8283`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Configuration } from '@rspack/core';
import type { Configuration as DevServerConfiguration } from '@rspack/dev-server';
import { CONSOLE_APPS } from './console.rspack.config.js';

export type ConsoleDevOptions = { shellPort: number; api: string };

/** Each app's dev port: the shell's, then one more per remote. */
export const devPort = (options: ConsoleDevOptions, index: number) => options.shellPort + index;

/** What the shell's dev server answers at /console/remotes.json. */
export function devRemotesManifest(options: ConsoleDevOptions) {
  return {
    remotes: CONSOLE_APPS.flatMap((app, index) =>
      app.descriptor ? [{ ...app.descriptor, entry: `http://127.0.0.1:${devPort(options, index)}/mf-manifest.json` }] : [],
    ),
  };
}

export function consoleDevConfigs(options: ConsoleDevOptions): Array<Configuration & { name: string; devServer: DevServerConfiguration }> {
  const manifest = JSON.stringify(devRemotesManifest(options));
  return CONSOLE_APPS.map((app, index) => {
    const common: DevServerConfiguration = {
      port: devPort(options, index),
      host: '127.0.0.1',
      hot: true,
      liveReload: true,
      client: { overlay: { errors: true, warnings: false } },
    };
    const devServer: DevServerConfiguration = app.descriptor
      ? { ...common, headers: { 'access-control-allow-origin': '*' } }
      : {
          ...common,
          historyApiFallback: { index: '/console/shell/index.html' },
          proxy: [{ context: ['/v1', '/api', '/docs', '/openapi.json'], target: options.api, changeOrigin: false }],
          setupMiddlewares: (middlewares) => [
            {
              name: 'engram-remotes-manifest',
              path: '/console/remotes.json',
              middleware: (_request: IncomingMessage, response: ServerResponse) => {
                response.setHeader('content-type', 'application/json');
                response.setHeader('cache-control', 'no-cache');
                response.end(manifest);
              },
            },
            ...middlewares,
          ],
        };
    return { ...app.config('development'), name: app.name, devServer };
  });
}

/** rspack's CLI calls this with the `--env` values. */
export default function (env: Record<string, unknown> = {}) {
  return consoleDevConfigs({
    shellPort: Number(env.shellPort ?? 3000),
    api: typeof env.api === 'string' ? env.api : 'http://127.0.0.1:8283',
  });
}
