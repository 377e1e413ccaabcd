import type { EngramHttpClient } from '../http.js';

export type StreamMeasurement = { firstByteMs: number[]; firstAssistantFrameMs: number[]; totalMs: number[] };

/** Sequential streamed sends, round-robin over agents like the one-step sends. */
export async function measureStreamLatency(
  client: EngramHttpClient,
  plan: { agentIds: string[]; warmup: number; samples: number },
): Promise<StreamMeasurement> {
  const agentFor = (index: number) => plan.agentIds[index % plan.agentIds.length] as string;
  for (let index = 0; index < plan.warmup; index++) await client.streamMessage(agentFor(index), `warm-up ${index}`);
  const measurement: StreamMeasurement = { firstByteMs: [], firstAssistantFrameMs: [], totalMs: [] };
  for (let index = 0; index < plan.samples; index++) {
    const stream = await client.streamMessage(agentFor(plan.warmup + index), `message ${index}`);
    measurement.firstByteMs.push(stream.firstByteAtMs - stream.sentAtMs);
    measurement.firstAssistantFrameMs.push(stream.firstAssistantFrameAtMs - stream.sentAtMs);
    measurement.totalMs.push(stream.doneAtMs - stream.sentAtMs);
  }
  return measurement;
}
