import type { BareWorkflowRunner } from '../bare/runner.js';
import type { EngramHttpClient, SyncSendResult } from '../http.js';
import { queriesPer, type QueryCounts } from '../stack.js';

export type OneStepMeasurement = {
  sends: SyncSendResult[];
  sendLatenciesMs: number[];
  bareLatenciesMs: number[];
  queriesPerSend: QueryCounts;
};

/**
 * One-step sync sends next to bare workflows, alternating one of each, so background load on the
 * machine weighs on both alike. Sends go round-robin over a few agents, so no context grows long; each send
 * starts its run's workflow, as the bare baseline starts its own.
 */
export async function measureOneStepOverhead(
  deps: { client: EngramHttpClient; bare: BareWorkflowRunner; queryCounts: () => QueryCounts },
  plan: { agentIds: string[]; warmup: number; samples: number },
): Promise<OneStepMeasurement> {
  const agentFor = (index: number) => plan.agentIds[index % plan.agentIds.length] as string;
  for (let index = 0; index < plan.warmup; index++) {
    await deps.client.sendMessage(agentFor(index), `warm-up ${index}`);
    await deps.bare.runOnce();
  }
  const sends: SyncSendResult[] = [];
  const sendLatenciesMs: number[] = [];
  const bareLatenciesMs: number[] = [];
  const queriesBefore = deps.queryCounts();
  for (let index = 0; index < plan.samples; index++) {
    const send = await deps.client.sendMessage(agentFor(plan.warmup + index), `message ${index}`);
    sends.push(send);
    sendLatenciesMs.push(send.receivedAtMs - send.sentAtMs);
    const bareStarted = performance.now();
    await deps.bare.runOnce();
    bareLatenciesMs.push(performance.now() - bareStarted);
  }
  const queriesAfter = deps.queryCounts();
  return {
    sends,
    sendLatenciesMs,
    bareLatenciesMs,
    queriesPerSend: queriesPer(queriesBefore, queriesAfter, plan.samples),
  };
}
