import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['{core,api,workflows,activities,integrations,db,temporal,testing,scripts}/**/*.test.ts', '{console-shell,console-remotes}/**/*.test.ts'],
    globalSetup: ['testing/src/global-setup.ts'],
    setupFiles: ['testing/src/setup-file.ts'],
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 180_000,
    // Two cores: files that each start an API and a worker compete for them.
    maxWorkers: 2,
  },
});
