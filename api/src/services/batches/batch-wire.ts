import type { MessageBatchItem } from '@engram/db';
import type { JobWire } from '../../contracts/v1/runs.js';
import type { BatchWithCounts } from './batch-service.js';

const iso = (date: Date | null | undefined) => (date ? date.toISOString() : null);

/** A batch as the `Job` of the public API (`job_type: batch`); item counts by status go in its metadata. */
export function batchToWire({ batch, itemCounts }: BatchWithCounts) {
  return {
    id: batch.id,
    status: batch.status,
    job_type: 'batch' as const,
    agent_id: null,
    user_id: batch.userId,
    stop_reason: null,
    background: true,
    callback_url: batch.callbackUrl,
    callback_sent_at: iso(batch.callbackSentAt),
    callback_status_code: batch.callbackStatusCode,
    callback_error: batch.callbackError,
    ttft_ns: null,
    total_duration_ns: batch.completedAt ? (batch.completedAt.getTime() - batch.createdAt.getTime()) * 1_000_000 : null,
    metadata: { ...batch.metadata, item_counts: itemCounts },
    request_config: null,
    base_template_id: null,
    created_at: batch.createdAt.toISOString(),
    updated_at: batch.updatedAt.toISOString(),
    completed_at: iso(batch.completedAt),
  };
}

export function batchItemToWire(item: MessageBatchItem) {
  return { id: item.id, agent_id: item.agentId, run_id: item.runId, status: item.status, position: item.position };
}

/** A batch seen through the `/v1/jobs` routes: the client's `Job` with `job_type: batch` and no agent. */
export function batchToJob(found: BatchWithCounts): JobWire {
  return { ...batchToWire(found), conversation_id: null };
}
