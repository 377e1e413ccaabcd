import type { EngramHttpClient } from '../http.js';

export type ThroughputMeasurement = {
  attempted: number;
  completed: number;
  errors: number;
  firstErrors: string[];
  wallMs: number;
  messagesPerSecond: number;
  latenciesMs: number[];
};

const ERRORS_KEPT = 5;

/**
 * Every agent sends its messages one after the other (a conversation), all agents at once. An agent
 * stops at its first failure, so a broken platform fails this phase within one request timeout.
 */
export async function measureThroughput(
  client: EngramHttpClient,
  plan: { agentIds: string[]; messagesPerAgent: number },
): Promise<ThroughputMeasurement> {
  const latenciesMs: number[] = [];
  const firstErrors: string[] = [];
  let errors = 0;
  const converse = async (agentId: string) => {
    for (let index = 0; index < plan.messagesPerAgent; index++) {
      try {
        const send = await client.sendMessage(agentId, `message ${index}`);
        latenciesMs.push(send.receivedAtMs - send.sentAtMs);
      } catch (error) {
        errors += 1;
        if (firstErrors.length < ERRORS_KEPT) firstErrors.push(error instanceof Error ? error.message : String(error));
        return;
      }
    }
  };
  const started = performance.now();
  await Promise.all(plan.agentIds.map(converse));
  const wallMs = performance.now() - started;
  return {
    attempted: plan.agentIds.length * plan.messagesPerAgent,
    completed: latenciesMs.length,
    errors,
    firstErrors,
    wallMs,
    messagesPerSecond: latenciesMs.length / (wallMs / 1000),
    latenciesMs,
  };
}
