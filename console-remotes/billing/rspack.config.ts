import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Configuration } from '@rspack/core';
import { consoleAppConfig, type RemoteDescriptor } from '../../console-shell/build/federation.js';

const root = path.dirname(fileURLToPath(import.meta.url));

/** How the shell lists and mounts this remote (written to dist/console-remote.json). */
export const descriptor: RemoteDescriptor = { name: 'billing', title: 'Billing', route: 'billing', icon: 'credit-card', order: 40 };

/** The billing remote: one app entry (`billing/app`), mounted by the shell under /projects/:projectSlug/billing/*. */
export default function billingConfig(mode: 'production' | 'development' = 'production'): Configuration {
  return consoleAppConfig({
    root,
    mode,
    name: 'billing',
    publicPath: 'auto',
    remote: {
      exposes: { './app': './src/app.tsx' },
      descriptor,
    },
  });
}
