import type { EngramHttpClient } from '../http.js';
import type { QueryCounts } from '../stack.js';

/** Statements per send: the answering API's, the worker's, and of the worker's the metering one. */
export type SendQueries = { api: number; worker: number | null; metering: number | null };

export type MeteringMeasurement = {
  offLatenciesMs: number[];
  onLatenciesMs: number[];
  queriesOff: SendQueries;
  queriesOn: SendQueries;
};

type Tally = { api: number; worker: number | null; metering: number | null };

function tally(into: Tally, before: QueryCounts, after: QueryCounts, api: (counts: QueryCounts) => number): void {
  const delta = (from: number | null, to: number | null) => (from === null || to === null ? null : to - from);
  const add = (total: number | null, more: number | null) => (total === null || more === null ? null : total + more);
  into.api += api(after) - api(before);
  into.worker = add(into.worker, delta(before.worker, after.worker));
  into.metering = add(into.metering, delta(before.metering, after.metering));
}

const perSend = (total: Tally, sends: number): SendQueries => ({
  api: total.api / sends,
  worker: total.worker === null ? null : total.worker / sends,
  metering: total.metering === null ? null : total.metering / sends,
});

/**
 * What billing costs a one-step send: the same send through the API with ENGRAM_BILLING=off and with it on, one of
 * each in turn on the same worker, so background load weighs on both alike. Every step is metered either way (one
 * statement in the step's own transaction); billing on adds the run's admission (balance, tier allowance).
 */
export async function measureMeteringCost(
  deps: { off: EngramHttpClient; on: EngramHttpClient; queryCounts: () => QueryCounts },
  plan: { agentIds: string[]; warmup: number; samples: number },
): Promise<MeteringMeasurement> {
  const agentFor = (index: number) => plan.agentIds[index % plan.agentIds.length] as string;
  for (let index = 0; index < plan.warmup; index++) {
    await deps.off.sendMessage(agentFor(index), `warm-up off ${index}`);
    await deps.on.sendMessage(agentFor(index), `warm-up on ${index}`);
  }
  const offLatenciesMs: number[] = [];
  const onLatenciesMs: number[] = [];
  const off: Tally = { api: 0, worker: 0, metering: 0 };
  const on: Tally = { api: 0, worker: 0, metering: 0 };
  for (let index = 0; index < plan.samples; index++) {
    const agentId = agentFor(plan.warmup + index);
    const beforeOff = deps.queryCounts();
    const sentOff = await deps.off.sendMessage(agentId, `off ${index}`);
    const afterOff = deps.queryCounts();
    offLatenciesMs.push(sentOff.receivedAtMs - sentOff.sentAtMs);
    tally(off, beforeOff, afterOff, (counts) => counts.api);
    const sentOn = await deps.on.sendMessage(agentId, `on ${index}`);
    onLatenciesMs.push(sentOn.receivedAtMs - sentOn.sentAtMs);
    tally(on, afterOff, deps.queryCounts(), (counts) => counts.billedApi);
  }
  return { offLatenciesMs, onLatenciesMs, queriesOff: perSend(off, plan.samples), queriesOn: perSend(on, plan.samples) };
}
