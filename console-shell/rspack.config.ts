import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Configuration } from '@rspack/core';
import { consoleAppConfig } from './build/federation.js';

const root = path.dirname(fileURLToPath(import.meta.url));

/** The host. Its files are served by the API under /console/shell/, its index.html for every page route. */
export default function shellConfig(mode: 'production' | 'development' = 'production', publicPath = '/console/shell/'): Configuration {
  return consoleAppConfig({ root, mode, name: 'shell', publicPath, html: { title: 'Engram console' } });
}
