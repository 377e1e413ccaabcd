import { defineConfig } from 'vitest/config';

/*
 * Not part of `npm test`: records the workflow histories that workflows/src/replay.test.ts replays
 * (README "Changing a workflow safely"). Run: npx vitest run --config vitest.record-histories.config.ts
 */
export default defineConfig({
  test: {
    pool: 'forks',
    include: ['testing/src/replay/record-histories.ts'],
    testTimeout: 120_000,
    hookTimeout: 180_000,
    globalSetup: ['testing/src/global-setup.ts'],
    setupFiles: ['testing/src/setup-file.ts'],
  },
});
