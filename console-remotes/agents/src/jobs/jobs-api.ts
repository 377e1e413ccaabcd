import type { Wire } from '@engram/console-kit';
import { keysetQuery, segment, v1Json, type KeysetPage } from '../v1-request.js';

/** A wire `Job` of `/v1/jobs`: a run of one agent, or a message batch (`job_type: batch`, no agent). */
export type Job = Wire.Job;

export type BatchItemStatus = 'pending' | 'running' | 'completed' | 'failed' | 'cancelled';

/** One request of a batch (`GET /messages/batches/{id}/items`): its agent, the run it became and how it went. */
export type BatchItem = { id: string; agent_id: string; run_id: string | null; status: BatchItemStatus; position: number };

/** What the Runs screen narrows to: a status, one agent's runs (batches name no agent, so they drop out then). */
export type JobFilter = { status?: string | undefined; agentId?: string | undefined };

export function listJobs(page: KeysetPage, filter: JobFilter = {}) {
  return v1Json<Job[]>('/jobs/', {
    query: { ...keysetQuery(page), ...(filter.status ? { statuses: filter.status } : {}), ...(filter.agentId ? { agent_id: filter.agentId } : {}) },
  });
}

export function listBatchItems(batchId: string) {
  return v1Json<BatchItem[]>(`/messages/batches/${segment(batchId)}/items`);
}

/** Requests not started never start; running ones are cancelled. */
export function cancelBatch(batchId: string) {
  return v1Json<Job>(`/messages/batches/${segment(batchId)}/cancel`, { method: 'PATCH' });
}
