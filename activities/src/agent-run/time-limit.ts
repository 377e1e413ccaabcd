import { createContext, runInContext } from 'node:vm';

export class TimeLimitExceededError extends Error {}

/**
 * Runs synchronous work under V8's execution watchdog, which also interrupts a regular expression stuck
 * backtracking: a pattern the model writes must not freeze the worker's event loop (and with it every
 * heartbeat of the process). The work runs in this realm; the throwaway context only carries the call.
 */
export function runWithTimeLimit<T>(work: () => T, limitMs: number): T {
  const call = { work, result: undefined as T | undefined };
  try {
    runInContext('call.result = call.work()', createContext({ call }), { timeout: limitMs });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') throw new TimeLimitExceededError(`took longer than ${limitMs} ms`);
    throw error;
  }
  return call.result as T;
}
