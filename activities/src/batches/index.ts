import type { RunRequest } from '@engram/core';
import { insertQueuedRun, MessageBatch, MessageBatchItem, Run, type BatchItemStatus, type Database } from '@engram/db';
import { EgressRefusedError, type EgressPolicy } from '@engram/integrations/egress';
import { callbackFailure } from '../agent-run/finish-run.js';

export type BatchesDeps = { db: Database; egress: Pick<EgressPolicy, 'fetchFor'> };

type BatchRef = { organizationId: string; batchId: string };
export type BatchPlanItem = { itemId: string; agentId: string };
export type DispatchedItem = { runId: string; maxSteps: number; runType: string } | { runId: null };

const RUN_TYPE = 'send_message_batch';
const FINISHED_RUN: Record<string, BatchItemStatus> = { completed: 'completed', failed: 'failed', cancelled: 'cancelled' };

/** The batch workflow's I/O: dispatching items as runs, reading their outcome, closing the job and its callback. */
export function createBatchActivities(deps: BatchesDeps) {
  return {
    /** The items still to run, in request order; the batch is marked running. */
    async loadBatchPlan(input: BatchRef): Promise<BatchPlanItem[]> {
      await MessageBatch.query(deps.db).forOrg(input.organizationId).findById(input.batchId).where('status', 'created').patch({ status: 'running' });
      const items = await MessageBatchItem.query(deps.db)
        .forOrg(input.organizationId)
        .where({ batchId: input.batchId, status: 'pending' })
        .orderBy('position')
        .select('id', 'agentId');
      return items.map((item) => ({ itemId: item.id, agentId: item.agentId }));
    },

    /**
     * Records the item's run (once: a retry finds the run it made). No run when the batch was cancelled or
     * the agent deleted meanwhile; the item is then closed as cancelled or failed.
     */
    async dispatchBatchItem(input: { organizationId: string; itemId: string }): Promise<DispatchedItem> {
      return deps.db.transaction(async (trx) => {
        const item = await MessageBatchItem.query(trx).forOrg(input.organizationId).findById(input.itemId).forUpdate();
        if (!item) return { runId: null };
        const request = item.request as unknown as RunRequest;
        if (item.runId) return { runId: item.runId, maxSteps: request.maxSteps, runType: RUN_TYPE };
        if (item.status !== 'pending') return { runId: null };
        const batch = await MessageBatch.query(trx).forOrg(input.organizationId).findById(item.batchId);
        if (!batch || batch.cancelRequested) {
          await MessageBatchItem.query(trx).findById(item.id).patch({ status: 'cancelled' });
          return { runId: null };
        }
        const run = await insertQueuedRun(trx, {
          organizationId: input.organizationId,
          agentId: item.agentId,
          request,
          runType: RUN_TYPE,
          callbackUrl: null,
          metadata: { batch_id: item.batchId, batch_item_id: item.id },
          batchItemId: item.id,
        });
        if (!run) {
          await MessageBatchItem.query(trx).findById(item.id).patch({ status: 'failed' });
          return { runId: null };
        }
        await MessageBatchItem.query(trx).findById(item.id).patch({ runId: run.id, status: 'running' });
        return { runId: run.id, maxSteps: request.maxSteps, runType: RUN_TYPE };
      });
    },

    /** Copies the outcome of finished runs onto their items; returns the items now finished. */
    async settleBatchItems(input: { organizationId: string; itemIds: string[] }): Promise<string[]> {
      if (input.itemIds.length === 0) return [];
      const items = await MessageBatchItem.query(deps.db).forOrg(input.organizationId).whereIn('id', input.itemIds);
      const runIds = items.flatMap((item) => (item.runId ? [item.runId] : []));
      const runs = runIds.length ? await Run.query(deps.db).forOrg(input.organizationId).whereIn('id', runIds).select('id', 'status') : [];
      const statusOfRun = new Map(runs.map((run) => [run.id, run.status as string]));
      const finished: string[] = [];
      for (const item of items) {
        // A run deleted by its user counts as cancelled.
        const runStatus = item.runId ? (statusOfRun.get(item.runId) ?? 'cancelled') : null;
        const outcome = runStatus ? FINISHED_RUN[runStatus] : undefined;
        if (outcome) {
          if (item.status !== outcome) await MessageBatchItem.query(deps.db).findById(item.id).patch({ status: outcome });
          finished.push(item.id);
        } else if (item.status !== 'pending' && item.status !== 'running') {
          finished.push(item.id);
        }
      }
      return finished;
    },

    /** Items not dispatched yet never start; the runs of dispatched ones are flagged (a queued run then never begins). */
    async cancelBatchItems(input: BatchRef): Promise<string[]> {
      return deps.db.transaction(async (trx) => {
        await MessageBatch.query(trx).forOrg(input.organizationId).findById(input.batchId).patch({ cancelRequested: true });
        await MessageBatchItem.query(trx).forOrg(input.organizationId).where({ batchId: input.batchId, status: 'pending' }).patch({ status: 'cancelled' });
        const running = await MessageBatchItem.query(trx).forOrg(input.organizationId).where({ batchId: input.batchId, status: 'running' }).whereNotNull('runId');
        const runIds = running.map((item) => item.runId as string);
        if (runIds.length) {
          await Run.query(trx).forOrg(input.organizationId).whereIn('id', runIds).whereIn('status', ['created', 'running']).patch({ cancelRequested: true });
        }
        return runIds;
      });
    },

    /** Closes the job; true when a callback is to be sent. */
    async finishBatch(input: BatchRef & { status: 'completed' | 'cancelled' }): Promise<boolean> {
      const batch = await MessageBatch.query(deps.db).forOrg(input.organizationId).findById(input.batchId);
      if (!batch) return false;
      if (batch.status !== 'completed' && batch.status !== 'cancelled') {
        const counts = await MessageBatchItem.query(deps.db)
          .forOrg(input.organizationId)
          .where({ batchId: input.batchId })
          .select('status')
          .count('* as count')
          .groupBy('status');
        const itemCounts = Object.fromEntries(counts.map((row) => [row.status, Number((row as unknown as { count: string }).count)]));
        await MessageBatch.query(deps.db)
          .forOrg(input.organizationId)
          .findById(input.batchId)
          .patch({ status: input.status, completedAt: new Date(), metadata: { ...batch.metadata, item_counts: itemCounts } });
      }
      return Boolean(batch.callbackUrl) && !(batch.callbackSentAt && !batch.callbackError);
    },

    /**
     * POSTs `{job_id, status, completed_at, metadata}` to the batch's callback_url, through the egress policy. A failed
     * attempt throws, so Temporal retries it with backoff (but a destination the policy refuses); every attempt's
     * answer is recorded on the job, a delivered one stops it.
     */
    async sendBatchCallback(input: BatchRef): Promise<void> {
      const batch = await MessageBatch.query(deps.db).forOrg(input.organizationId).findById(input.batchId);
      if (!batch?.callbackUrl || (batch.callbackSentAt && !batch.callbackError)) return;
      let statusCode: number | null = null;
      let error: string | null = null;
      let refused = false;
      try {
        const response = await deps.egress.fetchFor({ organizationId: input.organizationId })(batch.callbackUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            job_id: batch.id,
            status: batch.status,
            completed_at: batch.completedAt?.toISOString() ?? null,
            metadata: batch.metadata,
          }),
          signal: AbortSignal.timeout(10_000),
        });
        statusCode = response.status;
        if (!response.ok) error = `callback answered ${response.status}`;
      } catch (cause) {
        error = (cause as Error).message;
        refused = cause instanceof EgressRefusedError;
      }
      await MessageBatch.query(deps.db)
        .forOrg(input.organizationId)
        .findById(batch.id)
        .patch({
          callbackSentAt: new Date(),
          callbackStatusCode: statusCode,
          callbackError: error,
          callbackAttempts: batch.callbackAttempts + 1,
        });
      if (error) throw callbackFailure(error, refused);
    },
  };
}

export type BatchActivities = ReturnType<typeof createBatchActivities>;
