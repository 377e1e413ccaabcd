import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Configuration } from '@rspack/core';
import { consoleAppConfig, type RemoteDescriptor } from '../../console-shell/build/federation.js';

const root = path.dirname(fileURLToPath(import.meta.url));

/** How the shell lists and mounts this remote (written to dist/console-remote.json). */
export const descriptor: RemoteDescriptor = { name: 'agents', title: 'Agents', route: 'agents', icon: 'robot', order: 10 };

/**
 * The agents remote: one app entry (`agents/app`), mounted by the shell under
 * /projects/:projectSlug/agents/*. `publicPath: 'auto'` lets it be served from any origin.
 */
export default function agentsConfig(mode: 'production' | 'development' = 'production'): Configuration {
  return consoleAppConfig({
    root,
    mode,
    name: 'agents',
    publicPath: 'auto',
    remote: {
      exposes: { './app': './src/app.tsx' },
      descriptor,
    },
  });
}
