import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { repoRoot } from './import-graph.js';

/**
 * The repository's ESLint configuration (`eslint.config.js`) for tests that prove a boundary rule catches what it is
 * there to catch. Those rules (`no-restricted-imports`, `no-restricted-globals`) read the syntax alone, so these tests
 * lint without type information: a fixture is text linted as if it lived at a path in the repository and is never
 * written there, which the TypeScript project service (it knows files on disk only) could not type-check anyway, and
 * a folder is linted in seconds instead of building the whole program. `npm run lint` runs the type-aware rules.
 */
const linter = new ESLint({ cwd: repoRoot, overrideConfig: tseslint.configs.disableTypeChecked });

/** The messages ESLint reports for `code` as the file `file` (relative to the repository root). */
export async function lintFixture(file: string, code: string): Promise<string[]> {
  const [result] = await linter.lintText(code, { filePath: `${repoRoot}/${file}` });
  return (result?.messages ?? []).map((message) => message.message);
}

/** Every problem ESLint reports in the given files or folders (relative to the repository root). */
export async function lintProblems(paths: string[]): Promise<string[]> {
  const results = await linter.lintFiles(paths);
  return results.flatMap((result) => result.messages.map((message) => `${result.filePath}:${message.line}: ${message.message} (${message.ruleId})`));
}
