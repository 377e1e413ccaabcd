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
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { CONSOLE_APPS } from './console.rspack.config.js';
import { profiled } from '@engram/testing/profile/spans';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** rspack's CLI and the configuration it builds (every console app in production mode). */
const RSPACK_CLI = path.join(repoRoot, 'node_modules/@rspack/cli/bin/rspack.js');
const PRODUCTION_CONFIG = path.join(repoRoot, 'scripts/console.rspack.config.ts');

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
    fileURLToPath(import.meta.url),
    PRODUCTION_CONFIG,
    path.join(repoRoot, 'console-shell/build'),
    path.join(repoRoot, 'console-remotes/kit/src'),
    path.join(repoRoot, 'console-remotes/kit/package.json'),
    ...CONSOLE_APPS.flatMap((app) => ['src', 'rspack.config.ts', 'package.json'].map((part) => path.join(app.dir, part))),
  ];
  return newestMtime(sources) > oldestBuild;
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} kB`;

/** Runs `node <args>` to its end and answers what it printed; rejects with that when it fails. */
function runNode(args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    let printed = '';
    child.stdout.on('data', (chunk: Buffer) => (printed += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (printed += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (code === 0) resolve(printed);
      else reject(new Error(`node ${args.join(' ')} exited ${signal ?? code}:\n${printed}`));
    });
  });
}

/**
 * Builds with rspack's CLI in a plain `node` child process, never in this one: rspack copies the Module
 * Federation runtime into the bundle as the source text of its own functions (Function.prototype.toString),
 * and under tsx, which runs this script for `npm start`, those functions carry esbuild's `__name(…)` wrappers,
 * whose helper is not in the bundle: the browser throws "__name is not defined" and the console stays blank.
 * The CLI loads the TypeScript configuration with jiti, which leaves node_modules (rspack itself) untouched.
 */
function rspackBuild(): Promise<string> {
  return runNode([RSPACK_CLI, 'build', '--config', PRODUCTION_CONFIG, '--config-loader', 'jiti']);
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
  await rspackBuild();
  for (const app of CONSOLE_APPS) compress(path.join(app.dir, 'dist'));
  const sizes = CONSOLE_APPS.map((app) => measure(app.name, path.join(app.dir, 'dist')));
  log(`[console] built ${CONSOLE_APPS.map((app) => app.name).join(', ')} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return sizes;
}

const BUILD_LOCK = path.join(repoRoot, '.console-build.lock');
/** A lock older than this was left by a build that died; a real build takes well under a minute. */
const ABANDONED_LOCK_MS = 10 * 60_000;

/** Whether the process that wrote the lock is gone (a build stopped with Ctrl-C leaves its lock behind). */
function lockHolderIsGone(): boolean {
  let holder: number;
  try {
    holder = Number(readFileSync(BUILD_LOCK, 'utf8').trim());
  } catch {
    // Released meanwhile: the caller tries to take it again.
    return false;
  }
  // Empty while its owner is still writing its pid.
  if (!Number.isInteger(holder) || holder <= 0) return false;
  try {
    process.kill(holder, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** Waits for the console build lock: a file created exclusively, holding its owner's pid, so it holds across processes. */
async function acquireBuildLock(log: (line: string) => void): Promise<void> {
  let told = false;
  for (;;) {
    try {
      writeFileSync(BUILD_LOCK, String(process.pid), { flag: 'wx' });
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const lock = statSync(BUILD_LOCK, { throwIfNoEntry: false });
      if (!lock) continue;
      if (Date.now() - lock.mtimeMs > ABANDONED_LOCK_MS || lockHolderIsGone()) {
        rmSync(BUILD_LOCK, { force: true });
        continue;
      }
      if (!told) log('[console] waiting for another console build to finish');
      told = true;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

/**
 * The console build `npm start` runs: scripts/start.sh runs `node` with exactly these arguments. The browser
 * tests build through the same command, in a child process, so they load what a user's browser loads.
 */
export const START_CONSOLE_BUILD_ARGS = ['--import', 'tsx', 'scripts/console-build.ts', '--if-stale', '--quiet'] as const;

/**
 * Builds the console unless its build is current, with the command `npm start` runs, and returns its sizes.
 * Browser test files run in parallel and each needs the build; the command takes the build lock, so one
 * builds while the others wait and then find it current.
 */
export async function ensureConsoleBuilt(options: { log?: (line: string) => void } = {}): Promise<AppSizes[]> {
  const output = await profiled('console build', () => runNode(START_CONSOLE_BUILD_ARGS));
  for (const line of output.split('\n').filter(Boolean)) options.log?.(line);
  return CONSOLE_APPS.map((app) => measure(app.name, path.join(app.dir, 'dist')));
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
  // A build rewrites dist/ under the pages a browser test (or another start) has open: one at a time.
  await acquireBuildLock((line) => console.log(line));
  try {
    if (args.has('--if-stale') && !consoleBuildIsStale()) {
      console.log('[console] the build is up to date');
    } else {
      const sizes = await buildConsole({ typecheck: args.has('--typecheck') });
      if (!args.has('--quiet')) console.log(sizeReport(sizes));
    }
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  } finally {
    rmSync(BUILD_LOCK, { force: true });
  }
}
