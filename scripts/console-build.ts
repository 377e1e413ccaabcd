/**
 * Builds the console: the shell (host) and every remote, with rspack + Module Federation, into each
 * app's dist/, then writes a .gz beside every text asset (the API serves those when the browser
 * accepts gzip) and prints the sizes.
 *
 *   npm run console:build                 production build
 *   npm run console:build -- --typecheck  type-check the browser code first
 *   npm run console:build -- --quiet      no size table
 *   npm run console:build -- --if-stale   only when a source is newer than the build (npm start uses this)
 */
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { rspack, type Configuration, type MultiStats } from '@rspack/core';
import shellConfig from '../console-shell/rspack.config.js';
import agentsConfig from '../console-remotes/agents/rspack.config.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The console apps: the shell first, then the remotes it lists from the manifest at runtime. */
export const CONSOLE_APPS = [
  { name: 'shell', dir: path.join(repoRoot, 'console-shell'), config: shellConfig },
  { name: 'agents', dir: path.join(repoRoot, 'console-remotes/agents'), config: agentsConfig },
] as const;

export type AssetSize = { file: string; bytes: number; gzipBytes: number };
export type AppSizes = { name: string; js: AssetSize[]; css: AssetSize[]; totalJsGzip: number; totalCssGzip: number };

const COMPRESSIBLE = /\.(js|css|html|json|svg|map)$/;

function filesUnder(directory: string): string[] {
  return readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name));
}

/** Writes `<file>.gz` beside every compressible asset. */
function compress(distDir: string): void {
  for (const file of filesUnder(distDir)) {
    if (!COMPRESSIBLE.test(file) || file.endsWith('.gz') || file.endsWith('.map')) continue;
    writeFileSync(`${file}.gz`, gzipSync(readFileSync(file), { level: 9 }));
  }
}

/** The JS and CSS sizes of a built app, gzip sizes from the `.gz` files beside them; reads only. */
function measure(name: string, distDir: string): AppSizes {
  const sizes: AppSizes = { name, js: [], css: [], totalJsGzip: 0, totalCssGzip: 0 };
  for (const file of filesUnder(distDir)) {
    if (!/\.(js|css)$/.test(file)) continue;
    const gzipBytes = existsSync(`${file}.gz`) ? statSync(`${file}.gz`).size : gzipSync(readFileSync(file), { level: 9 }).length;
    const entry = { file: path.relative(distDir, file), bytes: statSync(file).size, gzipBytes };
    if (file.endsWith('.js')) sizes.js.push(entry);
    else sizes.css.push(entry);
  }
  sizes.js.sort((a, b) => b.gzipBytes - a.gzipBytes);
  sizes.totalJsGzip = sizes.js.reduce((sum, asset) => sum + asset.gzipBytes, 0);
  sizes.totalCssGzip = sizes.css.reduce((sum, asset) => sum + asset.gzipBytes, 0);
  return sizes;
}

function newestMtime(paths: string[]): number {
  let newest = 0;
  for (const entry of paths) {
    if (!existsSync(entry)) continue;
    const info = statSync(entry);
    const files = info.isDirectory() ? filesUnder(entry).filter((file) => !file.includes(`${path.sep}node_modules${path.sep}`)) : [entry];
    for (const file of files) newest = Math.max(newest, statSync(file).mtimeMs);
  }
  return newest;
}

/** Whether some app has no build, or a source (or the lockfile) changed after it was built. */
export function consoleBuildIsStale(): boolean {
  const built = CONSOLE_APPS.map((app) => path.join(app.dir, 'dist', app.name === 'shell' ? 'index.html' : 'mf-manifest.json'));
  if (built.some((file) => !existsSync(file))) return true;
  const oldestBuild = Math.min(...built.map((file) => statSync(file).mtimeMs));
  const sources = [
    path.join(repoRoot, 'package-lock.json'),
    path.join(repoRoot, 'console-shell/build'),
    path.join(repoRoot, 'console-remotes/kit/src'),
    path.join(repoRoot, 'console-remotes/kit/package.json'),
    ...CONSOLE_APPS.flatMap((app) => ['src', 'rspack.config.ts', 'package.json'].map((part) => path.join(app.dir, part))),
  ];
  return newestMtime(sources) > oldestBuild;
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} kB`;

function run(configs: Configuration[]): Promise<MultiStats> {
  return new Promise((resolve, reject) => {
    const compiler = rspack(configs);
    compiler.run((error, stats) => {
      compiler.close(() => undefined);
      if (error) return reject(error);
      if (!stats) return reject(new Error('rspack returned no stats'));
      if (stats.hasErrors()) return reject(new Error(stats.toString({ all: false, errors: true, colors: false })));
      resolve(stats);
    });
  });
}

/** Type-checks the browser code (console-shell/tsconfig.json: shell, kit, remotes); throws with tsc's report. */
export function typecheckConsole(): void {
  const tsc = spawnSync(process.execPath, [path.join(repoRoot, 'node_modules/typescript/bin/tsc'), '-p', path.join(repoRoot, 'console-shell/tsconfig.json')], {
    encoding: 'utf8',
  });
  if (tsc.status !== 0) throw new Error(`the console does not type-check:\n${tsc.stdout}${tsc.stderr}`);
}

/** Builds every console app in production mode; returns their sizes. */
export async function buildConsole(options: { typecheck?: boolean; log?: (line: string) => void } = {}): Promise<AppSizes[]> {
  const log = options.log ?? ((line: string) => console.log(line));
  if (options.typecheck) {
    log('[console] type-checking the browser code');
    typecheckConsole();
  }
  const started = Date.now();
  await run(CONSOLE_APPS.map((app) => app.config('production')));
  for (const app of CONSOLE_APPS) compress(path.join(app.dir, 'dist'));
  const sizes = CONSOLE_APPS.map((app) => measure(app.name, path.join(app.dir, 'dist')));
  log(`[console] built ${CONSOLE_APPS.map((app) => app.name).join(', ')} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return sizes;
}

const BUILD_LOCK = path.join(repoRoot, '.console-build.lock');
/** A lock older than this was left by a build that died; a real build takes well under a minute. */
const ABANDONED_LOCK_MS = 10 * 60_000;

/** Waits for the console build lock: a file created exclusively, so it holds across processes. */
async function acquireBuildLock(): Promise<void> {
  for (;;) {
    try {
      closeSync(openSync(BUILD_LOCK, 'wx'));
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const age = Date.now() - (statSync(BUILD_LOCK, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > ABANDONED_LOCK_MS) rmSync(BUILD_LOCK, { force: true });
      else await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

/**
 * Builds the console unless its build is current, and returns its sizes. Browser test files run in
 * parallel and each needs the build; one builds while the others wait, and then find it current,
 * because a build rewrites dist/ under the pages another test has open.
 */
export async function ensureConsoleBuilt(options: { log?: (line: string) => void } = {}): Promise<AppSizes[]> {
  await acquireBuildLock();
  try {
    if (consoleBuildIsStale()) return await buildConsole(options);
    return CONSOLE_APPS.map((app) => measure(app.name, path.join(app.dir, 'dist')));
  } finally {
    rmSync(BUILD_LOCK, { force: true });
  }
}

export function sizeReport(sizes: AppSizes[]): string {
  const lines: string[] = [];
  for (const app of sizes) {
    lines.push(`[console] ${app.name}: JS ${kb(app.totalJsGzip)} gzip in ${app.js.length} files, CSS ${kb(app.totalCssGzip)} gzip`);
    for (const asset of app.js.slice(0, 6)) lines.push(`            ${kb(asset.gzipBytes).padStart(9)}  ${asset.file}`);
  }
  return lines.join('\n');
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = new Set(process.argv.slice(2));
  try {
    if (args.has('--if-stale') && !consoleBuildIsStale()) {
      console.log('[console] the build is up to date');
      process.exit(0);
    }
    const sizes = await buildConsole({ typecheck: args.has('--typecheck') });
    if (!args.has('--quiet')) console.log(sizeReport(sizes));
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  }
}
