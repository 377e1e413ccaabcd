import { describe, expect, it } from 'vitest';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { TestProjectInlineConfiguration, ViteUserConfig } from 'vitest/config';
import { reachedModules, repoRoot, scanImports, splitTestFiles } from './test-projects.js';

/*
 * The unit project must stay fast and self-contained: no file in it may reach the test stack, a database, Temporal
 * or a browser. This checks the configuration vitest really loads, with a list of its own.
 */

/** Test helpers that start or need the platform. */
const STACK_HELPERS = [
  'testing/src/index.ts',
  'testing/src/stack.ts',
  'testing/src/agent-test-context.ts',
  'testing/src/global-setup.ts',
  'testing/src/setup-file.ts',
  'testing/src/mcp-fixture/index.ts',
];

/** Packages a unit test may import as types only. */
const RUNTIME_FORBIDDEN = /^(@engram\/(db|temporal|testing)|@temporalio\/(client|testing)|pg|knex|objection|playwright(-core)?)(\/|$)|^(node:)?child_process$/;

// The configuration vitest itself loads (the repository root is no workspace, so it is loaded by its path).
const config = ((await import(pathToFileURL(path.join(repoRoot, 'vitest.config.ts')).href)) as { default: ViteUserConfig }).default;
const projects = (config.test?.projects ?? []) as TestProjectInlineConfiguration[];
const project = (name: string) => {
  const found = projects.find((entry) => entry.test?.name === name);
  if (!found?.test) throw new Error(`no ${name} project in vitest.config.ts`);
  return found.test;
};

describe('the unit test project', () => {
  it('has no global set-up and no setup files', () => {
    expect(project('unit').globalSetup ?? []).toEqual([]);
    expect(project('unit').setupFiles ?? []).toEqual([]);
    expect(config.test?.globalSetup ?? []).toEqual([]);
    expect(config.test?.setupFiles ?? []).toEqual([]);
  });

  it('reaches no stack, database, Temporal or browser helper from any of its files', () => {
    const unit = project('unit').include ?? [];
    expect(unit.length).toBeGreaterThan(20);
    const problems: string[] = [];
    for (const testFile of unit) {
      for (const { file, imports } of reachedModules(testFile)) {
        if (STACK_HELPERS.includes(file)) problems.push(`${testFile} reaches ${file}`);
        if (imports.injectsFromGlobalSetup) problems.push(`${testFile}: ${file} imports inject from vitest`);
        for (const specifier of imports.runtime.filter((name) => RUNTIME_FORBIDDEN.test(name))) {
          // @engram/testing helpers that need nothing (the model server, fixtures) are fine; the list above names the rest.
          if (!specifier.startsWith('@engram/testing')) problems.push(`${testFile}: ${file} imports ${specifier}`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('and the integration project hold every test file once, the stack tests in integration', () => {
    const unit = project('unit').include ?? [];
    const integration = project('integration').include ?? [];
    const { unit: allUnit, integration: allIntegration } = splitTestFiles(repoRoot);
    expect([...unit, ...integration].sort()).toEqual([...allUnit, ...allIntegration].sort());
    expect(unit.filter((file) => integration.includes(file))).toEqual([]);
    expect(integration).toEqual(
      expect.arrayContaining([
        'api/src/routes/v1/health.test.ts',
        'api/src/routes/v1/agents/agents.test.ts',
        'console-shell/e2e/console.test.ts',
        'integrations/src/archival/passage-store.test.ts',
        'workflows/src/health/workflows.test.ts',
      ]),
    );
    expect(project('integration').globalSetup).toEqual(['testing/src/global-setup.ts']);
  });
});

/** Scans source text written with IMPORT and EXPORT, so that this file's own scan does not read the examples. */
const scan = (source: string) => scanImports(source.replaceAll('IMPORT', 'import').replaceAll('EXPORT', 'export'));

describe('the import scan', () => {
  it('counts value imports, re-exports, side-effect and dynamic imports, not type-only ones', () => {
    const { runtime } = scan(
      [
        "IMPORT type { Database } from '@engram/db';",
        "IMPORT { type Client, type Connection } from '@temporalio/client';",
        "IMPORT { createDatabase, type Database as Db } from '@engram/db/models';",
        "EXPORT { startTestStack } from './stack.js';",
        "EXPORT type { TestStack } from './stack-types.js';",
        "IMPORT './setup.js';",
        "const lazy = await IMPORT('playwright-core');",
        "// IMPORT { gone } from 'commented-out';",
        "IMPORT Fastify, { type FastifyInstance } from 'fastify';",
      ].join('\n'),
    );
    expect(runtime.sort()).toEqual(['./setup.js', './stack.js', '@engram/db/models', 'fastify', 'playwright-core']);
  });

  it('notices inject from vitest, renamed or among other names, and only from vitest', () => {
    expect(scan("IMPORT { describe, inject, it } from 'vitest';").injectsFromGlobalSetup).toBe(true);
    expect(scan("IMPORT {\n  inject as provided,\n} from 'vitest';").injectsFromGlobalSetup).toBe(true);
    expect(scan("IMPORT { describe, it } from 'vitest';\nawait app.inject({ url: '/' });").injectsFromGlobalSetup).toBe(false);
    expect(scan("IMPORT { inject } from 'other';").injectsFromGlobalSetup).toBe(false);
  });
});
