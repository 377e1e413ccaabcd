import { wireDate, type LettaMessage, type StopReason, type StopReasonFrame, type UsageStatistics } from '@engram/core';
import { createDeltaReplayFilter } from './delta-replay.js';
import type { LogItem } from './run-log-reader.js';
import type { SseChannel } from '../../http/sse.js';

const CONTROL_FRAMES = new Set(['stop_reason', 'usage_statistics', 'ping', 'error_message']);

export type OutputOptions = {
  /** Message types the caller asked for; control frames always pass. */
  includeTypes: string[] | null;
};

export function passesFilter(frame: { message_type: string }, options: OutputOptions): boolean {
  return CONTROL_FRAMES.has(frame.message_type) || !options.includeTypes || options.includeTypes.includes(frame.message_type);
}

export type RunResponse = {
  messages: LettaMessage[];
  stop_reason: StopReasonFrame;
  usage: UsageStatistics;
  error: { error_type: string; message: string } | null;
};

/** Assembles the sync `LettaResponse` from the run's log. */
export async function collectRunResponse(items: AsyncIterable<LogItem>, options: OutputOptions): Promise<RunResponse> {
  const messages: LettaMessage[] = [];
  let stopReason: StopReason = 'end_turn';
  let usage: UsageStatistics = { message_type: 'usage_statistics', completion_tokens: 0, prompt_tokens: 0, total_tokens: 0, step_count: 0 };
  let error: RunResponse['error'] = null;
  for await (const item of items) {
    if (item.kind !== 'frame') continue;
    const { frame } = item;
    // The log holds the frames the worker wrote from these same core types.
    if (frame.message_type === 'stop_reason') stopReason = frame.stop_reason as StopReason;
    else if (frame.message_type === 'usage_statistics') usage = frame as unknown as UsageStatistics;
    else if (frame.message_type === 'error_message') error = { error_type: String(frame.error_type), message: String(frame.message) };
    else if (passesFilter(frame, options)) messages.push(frame as unknown as LettaMessage);
  }
  return { messages, stop_reason: { message_type: 'stop_reason', stop_reason: stopReason }, usage, error };
}

/**
 * Writes a run's log as SSE. With token deltas, a message already previewed by deltas on this
 * connection is not sent again whole; a resumed connection (no deltas seen) gets it whole.
 */
export async function streamRunOutput(
  channel: SseChannel,
  items: AsyncIterable<LogItem>,
  options: OutputOptions & { runId: string; includePings: boolean; pingIntervalMs: number; startingAfter: number },
): Promise<void> {
  let lastSeq = options.startingAfter;
  const ping = () => ({ message_type: 'ping', id: `ping-${crypto.randomUUID()}`, date: wireDate(new Date()), run_id: options.runId, seq_id: lastSeq });
  if (options.includePings) channel.send(ping());
  const keepalive = options.includePings
    ? setInterval(() => {
        if (channel.idleMs() >= options.pingIntervalMs) channel.send(ping());
      }, Math.max(50, Math.floor(options.pingIntervalMs / 4)))
    : undefined;
  const previewed = new Set<string>();
  const forwardDelta = createDeltaReplayFilter();
  try {
    for await (const item of items) {
      const { frame } = item;
      const key = `${String(frame.id)}:${frame.message_type}`;
      if (item.kind === 'delta') {
        previewed.add(key);
        const delta = forwardDelta(key, item.attempt, frame);
        if (delta && passesFilter(delta, options)) channel.send({ ...delta, run_id: options.runId, seq_id: lastSeq, date: wireDate(new Date()) });
        continue;
      }
      lastSeq = item.seqId;
      if (previewed.has(key)) continue;
      if (!passesFilter(frame, options)) continue;
      channel.send(frame, frame.message_type === 'error_message' ? 'error' : undefined);
    }
  } finally {
    if (keepalive) clearInterval(keepalive);
  }
  channel.done();
}
