/**
 * Where a test file's time goes: the test stack, Chromium and the console build record how long they took
 * (`profiled`), and the set-up file hands the spans of each file to the profile reporter through the file's
 * task meta (`npm run test:profile`). Recording costs a `performance.now()` pair, so it is always on.
 */
export type ProfileSpan = { label: string; ms: number };

declare module 'vitest' {
  interface TaskMeta {
    profileSpans?: ProfileSpan[];
    /** `expect` calls the file's tests made (vitest counts them per test). */
    assertionCalls?: number;
  }
}

let spans: ProfileSpan[] = [];


/** Runs `work` and records its duration under `label`. */
export async function profiled<T>(label: string, work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await work();
  } finally {
    spans.push({ label, ms: performance.now() - started });
  }
}

/** The spans recorded since the last call (one test file's, when the set-up file calls it after each file). */
export function takeProfileSpans(): ProfileSpan[] {
  const taken = spans;
  spans = [];
  return taken;
}
