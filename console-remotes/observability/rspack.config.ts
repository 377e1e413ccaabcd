import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Configuration } from '@rspack/core';
import { consoleAppConfig, type RemoteDescriptor } from '../../console-shell/build/federation.js';

const root = path.dirname(fileURLToPath(import.meta.url));

/** How the shell lists and mounts this remote (written to dist/console-remote.json). */
export const descriptor: RemoteDescriptor = { name: 'observability', title: 'Observability', route: 'observability', icon: 'chart-dots', order: 30 };

/** The observability remote: one app entry (`observability/app`), mounted by the shell under /projects/:projectSlug/observability/*. */
export default function observabilityConfig(mode: 'production' | 'development' = 'production'): Configuration {
  return consoleAppConfig({
    root,
    mode,
    name: 'observability',
    publicPath: 'auto',
    remote: {
      exposes: { './app': './src/app.tsx' },
      descriptor,
    },
  });
}
