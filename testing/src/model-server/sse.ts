import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';

/** Waits `ms`; resolves false instead when `signal` aborts first (client gone or server closing). */
export async function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  try {
    await sleep(ms, undefined, { signal });
    return true;
  } catch (error) {
    if (signal.aborted) return false;
    throw error;
  }
}

/** Waits for `gate` to settle; resolves false instead when `signal` aborts first. */
export async function awaitGate(gate: Promise<unknown>, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return false;
  return new Promise<boolean>((resolve) => {
    const onAbort = () => resolve(false);
    signal.addEventListener('abort', onAbort, { once: true });
    const settle = () => {
      signal.removeEventListener('abort', onAbort);
      resolve(!signal.aborted);
    };
    gate.then(settle, settle);
  });
}

/**
 * Writes each frame as an SSE `data:` event, then `data: [DONE]`, pausing `chunkDelayMs`
 * between events. Frames are raw strings so a test can script one that is not JSON.
 */
export async function writeEventStream(
  response: ServerResponse,
  frames: string[],
  options: { chunkDelayMs: number; signal: AbortSignal },
): Promise<void> {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const events = [...frames, '[DONE]'];
  for (const [position, frame] of events.entries()) {
    if (position > 0 && options.chunkDelayMs > 0 && !(await pause(options.chunkDelayMs, options.signal))) return;
    if (options.signal.aborted) return;
    response.write(`data: ${frame}\n\n`);
  }
  response.end();
}
