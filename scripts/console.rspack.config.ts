/**
 * The console apps and their production builds. rspack's own CLI builds this file's default export;
 * scripts/console-build.ts runs it in a plain `node` process and says why.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import shellConfig from '../console-shell/rspack.config.js';
import agentsConfig, { descriptor as agentsDescriptor } from '../console-remotes/agents/rspack.config.js';
import adminConfig, { descriptor as adminDescriptor } from '../console-remotes/admin/rspack.config.js';
import billingConfig, { descriptor as billingDescriptor } from '../console-remotes/billing/rspack.config.js';
import observabilityConfig, { descriptor as observabilityDescriptor } from '../console-remotes/observability/rspack.config.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The console apps: the shell first, then the remotes it lists from the manifest at runtime (each with the
 * descriptor the shell lists it by). `npm run console:build` and `npm run console:dev` both read this list.
 */
export const CONSOLE_APPS = [
  { name: 'shell', dir: path.join(repoRoot, 'console-shell'), config: shellConfig, descriptor: undefined },
  { name: 'agents', dir: path.join(repoRoot, 'console-remotes/agents'), config: agentsConfig, descriptor: agentsDescriptor },
  { name: 'billing', dir: path.join(repoRoot, 'console-remotes/billing'), config: billingConfig, descriptor: billingDescriptor },
  { name: 'observability', dir: path.join(repoRoot, 'console-remotes/observability'), config: observabilityConfig, descriptor: observabilityDescriptor },
  { name: 'admin', dir: path.join(repoRoot, 'console-remotes/admin'), config: adminConfig, descriptor: adminDescriptor },
] as const;

export default CONSOLE_APPS.map((app) => app.config('production'));
