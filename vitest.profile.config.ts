import { mergeConfig } from 'vitest/config';
import config from './vitest.config.js';

/**
 * `npm run test:profile`: the suite as `npm test` runs it, and where each file's time goes (testing/src/profile/):
 * a set-up file hands each file's spans and `expect` count to the profile reporter.
 */
export default mergeConfig(config, {
  test: {
    setupFiles: ['testing/src/profile/setup.ts'],
    reporters: ['default', './testing/src/profile/reporter.ts'],
  },
});
