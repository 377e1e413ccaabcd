import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { buildImportGraph, importCycles, repoRoot, workspaceOf, type ImportEdge } from './import-graph.js';

const graph = buildImportGraph();
const isTest = (file: string) => /\.test\.tsx?$/.test(file);

/** Whether every import of `request` in `file` is type-only (`import type`, or `type` on each named binding). */
function importsOnlyTypes(file: string, request: string): boolean {
  const source = ts.createSourceFile(file, readFileSync(path.join(repoRoot, file), 'utf8'), ts.ScriptTarget.Latest, false);
  return source.statements.every((statement) => {
    if (ts.isImportDeclaration(statement) && ts.isStringLiteral(statement.moduleSpecifier) && statement.moduleSpecifier.text === request) {
      const clause = statement.importClause;
      if (!clause) return false;
      if (clause.isTypeOnly) return true;
      const bindings = clause.namedBindings;
      return !clause.name && bindings !== undefined && ts.isNamedImports(bindings) && bindings.elements.every((element) => element.isTypeOnly);
    }
    if (ts.isExportDeclaration(statement) && statement.moduleSpecifier && ts.isStringLiteral(statement.moduleSpecifier) && statement.moduleSpecifier.text === request) {
      return statement.isTypeOnly;
    }
    return true;
  });
}

const describeEdge = (edge: ImportEdge) => `${edge.from} → ${edge.request}`;

describe('the import graph builder', () => {
  it('sees a cycle that only type imports and re-exports make', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'import-graph-'));
    try {
      mkdirSync(path.join(root, 'pkg'));
      writeFileSync(path.join(root, 'pkg/a.ts'), "import type { B } from './b.js';\nexport type A = { b: B };\n");
      writeFileSync(path.join(root, 'pkg/b.ts'), "export type { C as B } from './c.js';\n");
      writeFileSync(path.join(root, 'pkg/c.ts'), "import type { A } from './a.js';\nexport type C = { a?: A };\n");
      writeFileSync(path.join(root, 'pkg/d.ts'), "import type { A } from './a.js';\nexport const d = (a: A) => a;\n");
      expect(importCycles(buildImportGraph(['pkg'], root))).toEqual([['pkg/a.ts', 'pkg/b.ts', 'pkg/c.ts']]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('the import graph', () => {
  it('covers the workspaces and resolves every @engram import to a file in the repository', () => {
    expect(graph.files.length).toBeGreaterThan(400);
    const unresolved = graph.edges.filter((edge) => (edge.request.startsWith('.') || edge.request.startsWith('@engram/')) && !edge.to);
    expect(unresolved.map(describeEdge)).toEqual([]);
  });

  it('exports from every workspace package only the entry points listed in its map, never every file by a wildcard', () => {
    const wildcards = readdirSync(repoRoot, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && existsSync(path.join(repoRoot, entry.name, 'package.json')) && entry.name !== 'node_modules')
      .flatMap((entry) => {
        const manifest = JSON.parse(readFileSync(path.join(repoRoot, entry.name, 'package.json'), 'utf8')) as { exports?: Record<string, string> };
        return Object.keys(manifest.exports ?? {}).filter((subpath) => subpath.includes('*')).map((subpath) => `${entry.name}: ${subpath}`);
      });
    expect(wildcards).toEqual([]);
  });

  it('has no import cycle in any workspace, type-only imports included', () => {
    expect(importCycles(graph)).toEqual([]);
  });

  it('reaches a server package from elsewhere only through its package name, never by relative path', () => {
    const packages = new Set(['core', 'db', 'integrations', 'activities', 'workflows', 'temporal', 'api', 'testing']);
    const reachingIn = graph.edges.filter(
      (edge) => edge.to && edge.request.startsWith('.') && workspaceOf(edge.from) !== workspaceOf(edge.to) && (packages.has(workspaceOf(edge.from)) || packages.has(workspaceOf(edge.to))),
    );
    expect(reachingIn.map(describeEdge)).toEqual([]);
  });

  it('keeps the browser code of the shell, the kit and each remote within its own folder by relative path (by package name the lint rules what they import)', () => {
    const reachingOut = graph.edges.filter(
      (edge) => edge.to && edge.request.startsWith('.') && /^(console-shell|console-remotes\/[^/]+)\/src\//.test(edge.from) && workspaceOf(edge.from) !== workspaceOf(edge.to),
    );
    expect(reachingOut.map(describeEdge)).toEqual([]);
  });

  it('imports @engram/activities only in the worker wiring and test support; workflow code imports its types alone', () => {
    const misplaced = graph.edges
      .filter((edge) => edge.request === '@engram/activities' || edge.request.startsWith('@engram/activities/'))
      .filter((edge) => {
        const workspace = workspaceOf(edge.from);
        if (['activities', 'temporal', 'testing'].includes(workspace)) return false;
        // A workflow test may build the activities to run its own worker; workflow code only proxies their types.
        if (workspace === 'workflows') return !isTest(edge.from) && !importsOnlyTypes(edge.from, edge.request);
        return true;
      });
    expect(misplaced.map(describeEdge)).toEqual([]);
  });

  it("loads no worker or activity code in the API process: its value imports reach workflow modules only for ids, messages and search attributes", () => {
    const reached = new Set<string>(['api/src/server.ts']);
    const externals = new Set<string>();
    const queue = ['api/src/server.ts'];
    while (queue.length > 0) {
      const file = queue.pop()!;
      for (const edge of graph.edges) {
        if (edge.from !== file || importsOnlyTypes(edge.from, edge.request)) continue;
        if (!edge.to) externals.add(edge.request);
        else if (!reached.has(edge.to)) {
          reached.add(edge.to);
          queue.push(edge.to);
        }
      }
    }
    expect(reached.size).toBeGreaterThan(200);
    const workerSide = [...reached].filter(
      (file) =>
        file.startsWith('activities/') ||
        /^temporal\/src\/(worker|worker-main|bundle|dev-server|abandoned-runs)\.ts$/.test(file) ||
        (file.startsWith('workflows/') && !/\/(ids|messages|search-attributes)\.ts$/.test(file)),
    );
    expect(workerSide).toEqual([]);
    expect([...externals].filter((request) => /^@temporalio\/(worker|activity)(\/|$)/.test(request))).toEqual([]);
  });

  it('keeps @engram/integrations free of the worker and the API, and away from the browser', () => {
    const forbidden = graph.edges.filter(
      (edge) =>
        (workspaceOf(edge.from) === 'integrations' && /^@engram\/(activities|api|temporal|workflows)(\/|$)/.test(edge.request)) ||
        (/^(console-shell|console-remotes)/.test(edge.from) && edge.request.startsWith('@engram/integrations')),
    );
    expect(forbidden.map(describeEdge)).toEqual([]);
  });
});
