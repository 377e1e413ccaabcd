import { SCRIPTED_REPLY, type EngramHttpClient } from '../http.js';

export type BatchThroughputMeasurement = {
  agents: number;
  requests: number;
  completed: number;
  /** Items that did not complete, and answers that were not the scripted reply. */
  errors: number;
  firstErrors: string[];
  wallMs: number;
  requestsPerSecond: number;
};

/** How often the batch's job is read while it runs; a tenth of a second is small next to the whole batch. */
const POLL_INTERVAL_MS = 100;
const ERRORS_KEPT = 5;

/**
 * One `POST /v1/messages/batches` of `requestsPerAgent` requests to each agent, timed from the POST to the
 * job's `completed`; then every item's answer is checked against the scripted reply.
 */
export async function measureBatchThroughput(
  client: EngramHttpClient,
  plan: { agentIds: string[]; requestsPerAgent: number; timeoutMs: number },
): Promise<BatchThroughputMeasurement> {
  const requests = Array.from({ length: plan.requestsPerAgent }, (_, turn) =>
    plan.agentIds.map((agentId) => ({ agent_id: agentId, messages: [{ role: 'user', content: `batch request ${turn}` }] })),
  ).flat();
  const started = performance.now();
  const batchId = await client.createBatch(requests);
  const deadline = Date.now() + plan.timeoutMs;
  let job = await client.getBatch(batchId);
  while (job.status === 'created' || job.status === 'running') {
    if (Date.now() > deadline) throw new Error(`the batch did not finish within ${plan.timeoutMs} ms: ${JSON.stringify(job.metadata)}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
    job = await client.getBatch(batchId);
  }
  const wallMs = performance.now() - started;

  const firstErrors: string[] = [];
  const counts = (job.metadata.item_counts ?? {}) as Record<string, number>;
  const completed = counts.completed ?? 0;
  let errors = requests.length - completed;
  if (errors > 0) firstErrors.push(`items by status: ${JSON.stringify(counts)}`);
  const answers = await client.batchAnswers(batchId, requests.length);
  const wrong = answers.filter((text) => text !== SCRIPTED_REPLY);
  errors += wrong.length + Math.max(0, completed - answers.length);
  if (wrong.length > 0) firstErrors.push(...wrong.slice(0, ERRORS_KEPT).map((text) => `unexpected answer: ${text.slice(0, 100)}`));
  return { agents: plan.agentIds.length, requests: requests.length, completed, errors, firstErrors, wallMs, requestsPerSecond: completed / (wallMs / 1000) };
}
