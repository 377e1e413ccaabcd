/** How `until` waits: at most `timeoutMs` (60 s unless said), reading every `intervalMs` (100 ms unless said). */
export type UntilOptions = {
  timeoutMs?: number;
  intervalMs?: number;
  /** What is waited for, named in the error when it does not come. */
  what?: string;
};

/**
 * The one way tests wait for something that happens on its own time (a workflow, a worker, another process):
 * reads `read` until its value is truthy, or until `done(value)` holds, and returns that value. After
 * `timeoutMs` it throws, naming what it waited for and the last value it read.
 */
export function until<T>(read: () => T | PromiseLike<T>, options?: UntilOptions): Promise<Exclude<T, undefined | null | false>>;
export function until<T>(read: () => T | PromiseLike<T>, done: (value: T) => boolean, options?: UntilOptions): Promise<T>;
export async function until<T>(
  read: () => T | PromiseLike<T>,
  doneOrOptions?: ((value: T) => boolean) | UntilOptions,
  maybeOptions: UntilOptions = {},
): Promise<unknown> {
  const done = typeof doneOrOptions === 'function' ? doneOrOptions : (value: T) => Boolean(value);
  const { timeoutMs = 60_000, intervalMs = 100, what } = typeof doneOrOptions === 'object' ? doneOrOptions : maybeOptions;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) {
      throw new Error(`${what ?? 'the condition'} not reached within ${timeoutMs} ms; last read: ${describe(value)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

function describe(value: unknown): string {
  try {
    const text = JSON.stringify(value) ?? String(value);
    return text.length > 500 ? `${text.slice(0, 500)}…` : text;
  } catch {
    return String(value);
  }
}
