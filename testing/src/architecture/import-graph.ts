import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/**
 * The import graph of every workspace, built with the TypeScript compiler's own pre-processor and module
 * resolution: `import`, `import type`, `export … from`, `import()` and `require()` all count, so a cycle made only
 * of type imports is still a cycle.
 */

export const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));

/** The workspaces (and script folders) whose files the graph covers. */
export const GRAPHED_FOLDERS = [
  'core',
  'db',
  'integrations',
  'activities',
  'workflows',
  'temporal',
  'api',
  'testing',
  'scripts',
  'bench',
  'console-shell',
  'console-remotes',
] as const;

const SKIPPED_DIRECTORIES = new Set(['node_modules', 'dist', 'results', '.data']);

function sourceFiles(root: string, directory: string): string[] {
  const absolute = path.join(root, directory);
  const found: string[] = [];
  for (const entry of readdirSync(absolute, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRECTORIES.has(entry.name)) found.push(...sourceFiles(root, path.join(directory, entry.name)));
    } else if (/\.(m?ts|tsx)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) {
      found.push(path.join(directory, entry.name));
    }
  }
  return found;
}

const compilerOptions: ts.CompilerOptions = {
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  target: ts.ScriptTarget.ES2022,
  jsx: ts.JsxEmit.ReactJSX,
  resolveJsonModule: true,
  allowImportingTsExtensions: true,
};

export interface ImportEdge {
  /** The importing file, relative to the repository root (POSIX separators). */
  from: string;
  /** The module specifier as written. */
  request: string;
  /** The resolved file inside the repository, or undefined for a package outside it (or an unresolvable one). */
  to: string | undefined;
}

export interface ImportGraph {
  files: string[];
  edges: ImportEdge[];
}

const toPosix = (file: string) => file.split(path.sep).join('/');

export function buildImportGraph(folders: readonly string[] = GRAPHED_FOLDERS, root: string = repoRoot): ImportGraph {
  const files = folders.flatMap((folder) => sourceFiles(root, folder)).map(toPosix).sort();
  const cache = ts.createModuleResolutionCache(root, (name) => name, compilerOptions);
  const edges: ImportEdge[] = [];
  for (const file of files) {
    const absolute = path.join(root, file);
    const { importedFiles } = ts.preProcessFile(readFileSync(absolute, 'utf8'), true, true);
    for (const { fileName: request } of importedFiles) {
      const resolved = ts.resolveModuleName(request, absolute, compilerOptions, ts.sys, cache).resolvedModule;
      const target = resolved ? toPosix(path.relative(root, resolved.resolvedFileName)) : undefined;
      edges.push({ from: file, request, to: target && !target.startsWith('..') && !target.includes('node_modules/') ? target : undefined });
    }
  }
  return { files, edges };
}

/** Strongly connected components of more than one file (or a file importing itself), each sorted, largest first. */
export function importCycles(graph: ImportGraph): string[][] {
  const next = new Map<string, string[]>(graph.files.map((file) => [file, []]));
  for (const edge of graph.edges) if (edge.to && next.has(edge.to)) next.get(edge.from)?.push(edge.to);

  // Tarjan's algorithm, iterative so that a long chain cannot overflow the stack.
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  for (const root of graph.files) {
    if (index.has(root)) continue;
    const work: Array<{ node: string; child: number }> = [{ node: root, child: 0 }];
    index.set(root, counter);
    low.set(root, counter++);
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const children = next.get(frame.node) ?? [];
      if (frame.child < children.length) {
        const child = children[frame.child++]!;
        if (!index.has(child)) {
          index.set(child, counter);
          low.set(child, counter++);
          stack.push(child);
          onStack.add(child);
          work.push({ node: child, child: 0 });
        } else if (onStack.has(child)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(child)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        const selfLoop = component.length === 1 && (next.get(frame.node) ?? []).includes(frame.node);
        if (component.length > 1 || selfLoop) components.push(component.sort());
      }
    }
  }
  return components.sort((a, b) => b.length - a.length || a[0]!.localeCompare(b[0]!));
}

/** The workspace folder a repository-relative file belongs to (`console-remotes/kit`, `api`, …). */
export function workspaceOf(file: string): string {
  const [first, second] = file.split('/');
  return first === 'console-remotes' ? `${first}/${second}` : first!;
}
