/**
 * The console in development: one rspack dev server per app, rebuilding on save and reloading the
 * browser. The shell's server proxies the APIs to a running Engram (`npm start`), so the session
 * cookie stays same-origin, and serves a remotes manifest pointing at the remotes' dev servers
 * (scripts/console-dev.rspack.config.ts).
 *
 *   npm run console:dev                                   shell on http://localhost:3000, API at http://127.0.0.1:8283
 *   npm run console:dev -- --port 4000 --api http://127.0.0.1:9000
 *
 * Each server is rspack's own CLI (`rspack serve`) in a plain `node` child process, never this tsx process:
 * rspack copies the Module Federation runtime into the bundle as the source text of its own functions, and under
 * tsx those carry esbuild's `__name(…)` wrappers, which the browser cannot run (scripts/console-build.ts says more).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { CONSOLE_APPS } from './console.rspack.config.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const RSPACK_CLI = path.join(repoRoot, 'node_modules/@rspack/cli/bin/rspack.js');
const DEV_CONFIG = path.join(repoRoot, 'scripts/console-dev.rspack.config.ts');

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '3000' },
    api: { type: 'string', default: 'http://127.0.0.1:8283' },
  },
});
const shellPort = Number(values.port);
const api = values.api;

const children: ChildProcess[] = [];
let stopping = false;

function stopAll(code: number): void {
  if (stopping) return;
  stopping = true;
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
  setTimeout(() => process.exit(code), 2_000).unref();
}

/** Prefixes every line a server prints with its app's name. */
function relay(name: string, stream: NodeJS.ReadableStream, to: NodeJS.WriteStream): void {
  let pending = '';
  stream.on('data', (chunk: Buffer) => {
    pending += chunk.toString();
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) to.write(`[console:${name}] ${line}\n`);
  });
}

for (const app of CONSOLE_APPS) {
  const child = spawn(
    process.execPath,
    [RSPACK_CLI, 'serve', '--config', DEV_CONFIG, '--config-loader', 'jiti', '--config-name', app.name, '--env', `shellPort=${shellPort}`, '--env', `api=${api}`],
    { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  children.push(child);
  relay(app.name, child.stdout, process.stdout);
  relay(app.name, child.stderr, process.stderr);
  child.once('exit', (code, signal) => {
    if (stopping) return;
    console.error(`[console] the ${app.name} dev server stopped (${signal ?? code}); stopping the others`);
    stopAll(1);
  });
}

process.once('SIGINT', () => stopAll(0));
process.once('SIGTERM', () => stopAll(0));
console.log(
  `[console] dev: http://localhost:${shellPort}/ (API ${api}; remotes on ${CONSOLE_APPS.slice(1).map((_, index) => shellPort + index + 1).join(', ')})`,
);
