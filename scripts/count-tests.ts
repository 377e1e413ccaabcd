/**
 * How many test files, tests and `expect`s the suite holds, read from the source (`npm run test:count`): the numbers
 * that must not go down when the suite is made faster. A test is an `it(`/`test(` call (with its modifiers:
 * `it.each(…)(` counts once); an `expect` is an `expect(`, `expect.poll(`, `expect.soft(`… call, in test files and
 * in the test helpers they share.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { reachedModules, repoRoot, splitTestFiles } from '@engram/testing/test-projects';

const TEST_CALL = /(?:^|[^\w$.])(?:it|test)(?:\.(?:each|for|concurrent|sequential|fails|only|skip|todo|skipIf|runIf|extend)\b(?:\([^()]*\))?)*\s*\(/g;
const EXPECT_CALL = /(?:^|[^\w$.])expect(?:\.(?:poll|soft|element))?\s*\(/g;

const stripComments = (source: string) => source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:])\/\/.*$/gm, '$1');
const countIn = (source: string, pattern: RegExp) => stripComments(source).match(pattern)?.length ?? 0;

const { unit, integration } = splitTestFiles();
const testFiles = [...unit, ...integration];
const helpers = new Set<string>();
for (const file of testFiles) for (const reached of reachedModules(file).slice(1)) if (!reached.file.endsWith('.test.ts')) helpers.add(reached.file);

const read = (file: string) => readFileSync(path.join(repoRoot, file), 'utf8');
const tests = testFiles.reduce((sum, file) => sum + countIn(read(file), TEST_CALL), 0);
const expectsInTests = testFiles.reduce((sum, file) => sum + countIn(read(file), EXPECT_CALL), 0);
const helpersWithExpects = [...helpers].map((file) => countIn(read(file), EXPECT_CALL)).filter((count) => count > 0);
const expectsInHelpers = helpersWithExpects.reduce((sum, count) => sum + count, 0);

console.log(`test files: ${testFiles.length} (unit ${unit.length}, integration ${integration.length})`);
console.log(`tests declared: ${tests}`);
console.log(`expect calls written: ${expectsInTests + expectsInHelpers} (${expectsInTests} in test files, ${expectsInHelpers} in ${helpersWithExpects.length} shared helpers)`);
