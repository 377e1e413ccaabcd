import { afterAll, afterEach, expect } from 'vitest';
import { takeProfileSpans } from './spans.js';

// Each test file's spans and `expect` calls travel to the profile reporter in the file's meta.
let assertionCalls = 0;
afterEach(() => {
  assertionCalls += expect.getState().assertionCalls;
});
// vitest hands hooks their fixtures first, and accepts only a destructuring pattern there.
afterAll(({}, file) => {
  file.meta.profileSpans = takeProfileSpans();
  file.meta.assertionCalls = assertionCalls;
  assertionCalls = 0;
});
