import { defineConfig } from 'vitest/config';
import { splitTestFiles } from './testing/src/test-projects.js';

/*
 * Two projects, decided per file from what it imports (testing/src/test-projects.ts):
 * - unit: pure code, no global set-up; `npx vitest run --project unit` takes seconds.
 * - integration: files that reach the stack (PostgreSQL, Temporal), Chromium, child processes or ESLint.
 * `npx vitest run` (and `npm test`) runs both.
 */
const { unit, integration } = splitTestFiles();

export default defineConfig({
  test: {
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 180_000,
    // Two cores: files that each start an API and a worker compete for them.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: unit, isolate: false },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: integration,
          isolate: false,
          globalSetup: ['testing/src/global-setup.ts'],
          setupFiles: ['testing/src/setup-file.ts'],
        },
      },
    ],
  },
});
