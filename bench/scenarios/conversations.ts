import type { Database } from '@engram/db';
import type { EngramHttpClient } from '../http.js';
import type { ThroughputMeasurement } from './throughput.js';

export type ConversationsMeasurement = ThroughputMeasurement & {
  conversations: number;
  messagesPerConversation: number;
  /** The most runs of the agent executing at one moment (from each run's recorded start and end). */
  mostRunsAtOnce: number;
  /** Pairs of runs of one conversation whose executions overlapped in time: must be 0. */
  overlapsWithinAConversation: number;
  /** Runs of one conversation that began before a run sent earlier in it: must be 0. */
  outOfOrderWithinAConversation: number;
};

const ERRORS_KEPT = 5;

type RunSpan = { startedMs: number; completedMs: number };

/** The most spans open at one instant: sweep their starts and ends in time order (an end before a start at a tie). */
function mostAtOnce(spans: RunSpan[]): number {
  const edges = spans.flatMap((span) => [
    { at: span.startedMs, delta: 1 },
    { at: span.completedMs, delta: -1 },
  ]);
  edges.sort((a, b) => a.at - b.at || a.delta - b.delta);
  let open = 0;
  let most = 0;
  for (const edge of edges) {
    open += edge.delta;
    most = Math.max(most, open);
  }
  return most;
}

/**
 * One agent, many conversations: each conversation's sends one after the other, all conversations at once. The
 * runs' recorded start and end show what ran concurrently: runs of different conversations should overlap, runs of
 * one conversation never, and each conversation's runs should begin in the order they were sent.
 */
export async function measureConversations(
  deps: { client: EngramHttpClient; db: Database },
  plan: { agentId: string; conversations: number; messagesPerConversation: number },
): Promise<ConversationsMeasurement> {
  const conversationIds: string[] = [];
  for (let index = 0; index < plan.conversations; index++) conversationIds.push(await deps.client.createConversation(plan.agentId));
  const latenciesMs: number[] = [];
  const firstErrors: string[] = [];
  const sentRunIds = new Map<string, string[]>(conversationIds.map((id) => [id, []]));
  let errors = 0;
  const converse = async (conversationId: string) => {
    for (let index = 0; index < plan.messagesPerConversation; index++) {
      try {
        const send = await deps.client.sendToConversation(conversationId, `message ${index}`);
        latenciesMs.push(send.receivedAtMs - send.sentAtMs);
        sentRunIds.get(conversationId)?.push(send.runId);
      } catch (error) {
        errors += 1;
        if (firstErrors.length < ERRORS_KEPT) firstErrors.push(error instanceof Error ? error.message : String(error));
        return;
      }
    }
  };
  const started = performance.now();
  await Promise.all(conversationIds.map(converse));
  const wallMs = performance.now() - started;

  const runIds = [...sentRunIds.values()].flat();
  const rows = (await deps.db('runs')
    .select(
      'id',
      deps.db.raw('cast(extract(epoch from started_at) * 1000 as float8) as started_ms'),
      deps.db.raw('cast(extract(epoch from completed_at) * 1000 as float8) as completed_ms'),
    )
    .whereIn('id', runIds)) as Array<{ id: string } & RunSpan>;
  const byId = new Map(rows.map((row) => [row.id, row]));
  let overlapsWithinAConversation = 0;
  let outOfOrderWithinAConversation = 0;
  for (const ids of sentRunIds.values()) {
    const runs = ids.map((id) => byId.get(id)).filter((run) => run !== undefined);
    for (let index = 1; index < runs.length; index++) {
      if (runs[index]!.startedMs < runs[index - 1]!.startedMs) outOfOrderWithinAConversation += 1;
      if (runs[index]!.startedMs < runs[index - 1]!.completedMs) overlapsWithinAConversation += 1;
    }
  }
  return {
    conversations: plan.conversations,
    messagesPerConversation: plan.messagesPerConversation,
    attempted: plan.conversations * plan.messagesPerConversation,
    completed: latenciesMs.length,
    errors,
    firstErrors,
    wallMs,
    messagesPerSecond: latenciesMs.length / (wallMs / 1000),
    latenciesMs,
    mostRunsAtOnce: mostAtOnce(rows),
    overlapsWithinAConversation,
    outOfOrderWithinAConversation,
  };
}
