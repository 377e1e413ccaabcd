import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Configuration } from '@rspack/core';
import { consoleAppConfig, type RemoteDescriptor } from '../../console-shell/build/federation.js';

const root = path.dirname(fileURLToPath(import.meta.url));

/** How the shell lists and mounts this remote (written to dist/console-remote.json). */
export const descriptor: RemoteDescriptor = { name: 'admin', title: 'Admin', route: 'admin', icon: 'shield-lock', order: 90, audience: 'platform_admin' };

/** The admin remote: one app entry (`admin/app`), mounted by the shell under /projects/:projectSlug/admin/*. */
export default function adminConfig(mode: 'production' | 'development' = 'production'): Configuration {
  return consoleAppConfig({
    root,
    mode,
    name: 'admin',
    publicPath: 'auto',
    remote: {
      exposes: { './app': './src/app.tsx' },
      descriptor,
    },
  });
}
