import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Which vitest project a test file belongs to, decided from what it imports, so that no list goes stale.
 *
 * A test file is an **integration** test when it, or a module it reaches through relative imports or
 * `@engram/testing/*` imports (its own folder's code and the test helpers; other workspaces are not followed),
 * needs more than the code itself:
 * - `inject` from `vitest`: the PostgreSQL database, Temporal dev server and workflow bundle the global set-up
 *   provides (`testing/src/stack.ts`, `agent-test-context.ts` and every test that opens a database of its own);
 * - a runtime import of `@engram/db`, `@engram/temporal` or `@temporalio/testing` (a database or Temporal);
 * - `playwright` / `playwright-core` (Chromium);
 * - `node:child_process` (tool sandboxes, MCP server processes, the TypeScript compiler, rspack);
 * - `eslint` (lints whole folders).
 * Every other test file is a **unit** test: pure code, no global set-up, the whole project runs in seconds.
 */

export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/** The folders whose `*.test.ts` files vitest runs. */
export const TEST_FOLDERS = [
  'core',
  'api',
  'workflows',
  'activities',
  'integrations',
  'db',
  'temporal',
  'testing',
  'scripts',
  'console-shell',
  'console-remotes',
] as const;

const SKIPPED_DIRECTORIES = new Set(['node_modules', 'dist', '.data', 'results']);

/** Runtime imports that make a test an integration test, and why. */
const NEEDS: Array<[RegExp, string]> = [
  [/^(@engram\/db|@engram\/temporal|@temporalio\/testing)(\/|$)/, 'a database or Temporal'],
  [/^playwright(-core)?(\/|$)/, 'Chromium'],
  [/^(node:)?child_process$/, 'child processes'],
  [/^eslint(\/|$)/, 'ESLint over the repository'],
];

export interface ModuleImports {
  /** Module specifiers imported at run time (`import type` and `export type` left out). */
  runtime: string[];
  /** Whether `inject` is imported from `vitest`. */
  injectsFromGlobalSetup: boolean;
}

const IMPORT_FROM = /(?:^|[;\n}])\s*(import|export)\s+(type\s+)?([^'";]*?)\s*from\s*['"]([^'"]+)['"]/g;
const SIDE_EFFECT_IMPORT = /(?:^|[;\n])\s*import\s*['"]([^'"]+)['"]/g;
const DYNAMIC_IMPORT = /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

/** The imports of one module's source text (a regular-expression scan: fast enough to run on every config load). */
export function scanImports(source: string): ModuleImports {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const runtime: string[] = [];
  let injectsFromGlobalSetup = false;
  for (const match of code.matchAll(IMPORT_FROM)) {
    const [, , typeOnly, clause = '', specifier = ''] = match;
    if (typeOnly) continue;
    const names = /\{([^}]*)\}/.exec(clause)?.[1];
    // `import { type A, type B } from 'x'` imports nothing at run time.
    const allTypes =
      names !== undefined &&
      !/^\s*[\w$]+\s*,/.test(clause) &&
      !clause.includes('*') &&
      names.split(',').every((name) => name.trim() === '' || /^type\s/.test(name.trim()));
    if (!allTypes) runtime.push(specifier);
    if (specifier === 'vitest' && names?.split(',').some((name) => /^inject(\s+as\s+[\w$]+)?$/.test(name.trim()))) {
      injectsFromGlobalSetup = true;
    }
  }
  for (const match of code.matchAll(SIDE_EFFECT_IMPORT)) runtime.push(match[1]!);
  for (const match of code.matchAll(DYNAMIC_IMPORT)) runtime.push(match[1]!);
  return { runtime, injectsFromGlobalSetup };
}

/** The repository file a followed specifier names, or undefined for one that is not followed (other packages). */
function resolveFollowed(specifier: string, fromFile: string, root: string): string | undefined {
  let base: string;
  if (specifier.startsWith('.')) base = path.resolve(path.dirname(fromFile), specifier);
  else if (specifier === '@engram/testing') base = path.join(root, 'testing/src/index');
  else if (specifier.startsWith('@engram/testing/')) base = path.join(root, 'testing/src', specifier.slice('@engram/testing/'.length));
  else return undefined;
  const stem = base.replace(/\.(m?js|jsx|m?ts|tsx)$/, '');
  for (const candidate of [`${stem}.ts`, `${stem}.tsx`, `${stem}.mts`, path.join(stem, 'index.ts'), base]) {
    if (existsSync(candidate) && statSync(candidate).isFile() && !candidate.includes(`${path.sep}node_modules${path.sep}`)) return candidate;
  }
  return undefined;
}

/** A module a test file reaches (the test file first), relative to the root, with its imports. */
export interface ReachedModule {
  file: string;
  imports: ModuleImports;
}

/** The modules a test file reaches through relative and `@engram/testing/*` imports, breadth first. */
export function reachedModules(testFile: string, root: string = repoRoot): ReachedModule[] {
  const reached: ReachedModule[] = [];
  const seen = new Set<string>();
  const queue = [path.resolve(root, testFile)];
  while (queue.length > 0) {
    const file = queue.shift()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const imports = scanImports(readFileSync(file, 'utf8'));
    reached.push({ file: path.relative(root, file).split(path.sep).join('/'), imports });
    for (const specifier of imports.runtime) {
      const next = resolveFollowed(specifier, file, root);
      if (next) queue.push(next);
    }
  }
  return reached;
}

/** Why a test file is an integration test (the first reason found, with the module that has it), or undefined. */
export function integrationReason(testFile: string, root: string = repoRoot): string | undefined {
  for (const { file, imports } of reachedModules(testFile, root)) {
    if (imports.injectsFromGlobalSetup) return `${file} injects what the global set-up provides`;
    for (const specifier of imports.runtime) {
      const need = NEEDS.find(([pattern]) => pattern.test(specifier));
      if (need) return `${file} imports ${specifier} (${need[1]})`;
    }
  }
  return undefined;
}

function testFilesUnder(root: string, directory: string): string[] {
  const absolute = path.join(root, directory);
  if (!existsSync(absolute)) return [];
  const found: string[] = [];
  for (const entry of readdirSync(absolute, { withFileTypes: true })) {
    const relative = `${directory}/${entry.name}`;
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRECTORIES.has(entry.name)) found.push(...testFilesUnder(root, relative));
    } else if (entry.name.endsWith('.test.ts')) {
      found.push(relative);
    }
  }
  return found;
}

export interface TestProjects {
  unit: string[];
  integration: string[];
  /** Why each integration test is one. */
  reasons: Map<string, string>;
}

/** Every test file of the repository, split into the two projects (paths relative to the root, sorted). */
export function splitTestFiles(root: string = repoRoot): TestProjects {
  const unit: string[] = [];
  const integration: string[] = [];
  const reasons = new Map<string, string>();
  for (const file of TEST_FOLDERS.flatMap((folder) => testFilesUnder(root, folder)).sort()) {
    const reason = integrationReason(file, root);
    if (reason) {
      integration.push(file);
      reasons.set(file, reason);
    } else {
      unit.push(file);
    }
  }
  return { unit, integration, reasons };
}
