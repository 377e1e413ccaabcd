import type { RunRequest } from '@engram/core';
import { Agent, Message, MessageBatch, MessageBatchItem, newId, type Database } from '@engram/db';
import type { MessageBatchClient } from '@engram/temporal/client';
import { ConflictError, NotFoundError, ServiceUnavailableError, UnprocessableError } from '../../errors.js';
import type { RequestContext } from '../../http/request-context.js';
import { keysetPage, type PageRequest } from '../shared/paging.js';
import { assertReachableUrl, type UrlGate } from '../shared/egress.js';

export type BatchRequest = { agentId: string; request: RunRequest };

/** Most items of one batch running at once, across its agents (each agent runs one at a time). */
export const BATCH_CONCURRENCY = 16;

export type BatchWithCounts = { batch: MessageBatch; itemCounts: Record<string, number> };

export function createBatchService(deps: { db: Database; messageBatches: MessageBatchClient; egress: UrlGate }) {
  async function requireBatch(ctx: RequestContext, batchId: string): Promise<MessageBatch> {
    const batch = await MessageBatch.query(deps.db).forOrg(ctx.organizationId).findById(batchId);
    if (!batch) throw new NotFoundError('Batch');
    return batch;
  }

  async function itemCounts(ctx: RequestContext, batchIds: string[]): Promise<Map<string, Record<string, number>>> {
    const counts = new Map<string, Record<string, number>>(batchIds.map((id) => [id, {}]));
    if (batchIds.length === 0) return counts;
    const rows = (await MessageBatchItem.query(deps.db)
      .forOrg(ctx.organizationId)
      .whereIn('batchId', batchIds)
      .select('batchId', 'status')
      .count('* as count')
      .groupBy('batchId', 'status')) as unknown as Array<{ batchId: string; status: string; count: string }>;
    for (const row of rows) counts.get(row.batchId)![row.status] = Number(row.count);
    return counts;
  }

  return {
    /** Records the batch and its items, then starts its workflow; the job is returned at once. */
    async create(ctx: RequestContext, requests: BatchRequest[], callbackUrl: string | null): Promise<BatchWithCounts> {
      const agentIds = [...new Set(requests.map((request) => request.agentId))];
      const found = await Agent.query(deps.db).forOrg(ctx.organizationId).whereIn('id', agentIds).select('id');
      const known = new Set(found.map((agent) => agent.id));
      const missing = requests.findIndex((request) => !known.has(request.agentId));
      if (missing >= 0) throw new UnprocessableError(['body', 'requests', missing, 'agent_id'], `Agent ${requests[missing]!.agentId} not found`);
      if (callbackUrl) await assertReachableUrl(deps.egress, ctx.organizationId, callbackUrl, ['body', 'callback_url']);

      const batchId = newId('batch');
      const batch = await deps.db.transaction(async (trx) => {
        const inserted = await MessageBatch.query(trx).insertAndFetch({
          id: batchId,
          organizationId: ctx.organizationId,
          userId: ctx.userId,
          status: 'created',
          callbackUrl,
          metadata: { request_count: requests.length },
        } as Partial<MessageBatch>);
        await MessageBatchItem.query(trx).insert(
          requests.map((request, position) => ({
            id: newId('batchItem'),
            organizationId: ctx.organizationId,
            batchId,
            position,
            agentId: request.agentId,
            status: 'pending',
            request: request.request as unknown as Record<string, unknown>,
          })) as unknown as MessageBatchItem[],
        );
        return inserted;
      });
      try {
        await deps.messageBatches.start({ batchId, organizationId: ctx.organizationId, concurrency: BATCH_CONCURRENCY });
      } catch (error) {
        await MessageBatch.query(deps.db).findById(batchId).patch({ status: 'cancelled', completedAt: new Date(), metadata: { ...batch.metadata, error: 'Temporal is unreachable' } });
        throw new ServiceUnavailableError(`The batch could not be started: ${(error as Error).message}`);
      }
      return { batch, itemCounts: { pending: requests.length } };
    },

    async get(ctx: RequestContext, batchId: string): Promise<BatchWithCounts> {
      const batch = await requireBatch(ctx, batchId);
      return { batch, itemCounts: (await itemCounts(ctx, [batchId])).get(batchId)! };
    },

    /** These batches of the organization with their item counts (ids of others are left out). */
    async getMany(ctx: RequestContext, batchIds: string[]): Promise<BatchWithCounts[]> {
      if (batchIds.length === 0) return [];
      const batches = await MessageBatch.query(deps.db).forOrg(ctx.organizationId).whereIn('id', batchIds);
      const counts = await itemCounts(ctx, batches.map((batch) => batch.id));
      return batches.map((batch) => ({ batch, itemCounts: counts.get(batch.id)! }));
    },

    async list(ctx: RequestContext, page: PageRequest): Promise<BatchWithCounts[]> {
      const batches = await keysetPage(MessageBatch.query(deps.db).forOrg(ctx.organizationId), page, { table: 'message_batches' });
      const counts = await itemCounts(ctx, batches.map((batch) => batch.id));
      return batches.map((batch) => ({ batch, itemCounts: counts.get(batch.id)! }));
    },

    /** Each item of the batch with its agent, run and status, in request order. */
    async items(ctx: RequestContext, batchId: string): Promise<MessageBatchItem[]> {
      await requireBatch(ctx, batchId);
      return MessageBatchItem.query(deps.db).forOrg(ctx.organizationId).where({ batchId }).orderBy('position');
    },

    /** The stored messages of the batch's runs (inputs and answers), oldest first. */
    async messages(ctx: RequestContext, batchId: string, filter: { agentId?: string | undefined }, page: PageRequest): Promise<Message[]> {
      await requireBatch(ctx, batchId);
      const runIds = MessageBatchItem.query(deps.db).forOrg(ctx.organizationId).where({ batchId }).whereNotNull('runId').select('runId');
      const query = Message.query(deps.db).forOrg(ctx.organizationId).whereIn('runId', runIds).whereNot('role', 'system');
      if (filter.agentId) query.where('messages.agent_id', filter.agentId);
      return keysetPage(query, page, { table: 'messages', sortKey: (alias) => `${alias}.sequence` });
    },

    /** Cancels the batch if it is still running, then deletes it with its items; answers it as it was. */
    async delete(ctx: RequestContext, batchId: string): Promise<BatchWithCounts> {
      const found = await this.get(ctx, batchId);
      if (found.batch.status === 'created' || found.batch.status === 'running') {
        await MessageBatch.query(deps.db).forOrg(ctx.organizationId).findById(batchId).patch({ cancelRequested: true });
        await deps.messageBatches.cancel(batchId);
      }
      await MessageBatch.query(deps.db).forOrg(ctx.organizationId).deleteById(batchId);
      return found;
    },

    /** Items not started never start; running ones are cancelled. A finished batch is a 409. */
    async cancel(ctx: RequestContext, batchId: string): Promise<BatchWithCounts> {
      const batch = await requireBatch(ctx, batchId);
      if (batch.status === 'completed' || batch.status === 'cancelled') throw new ConflictError(`The batch is already ${batch.status}`);
      await MessageBatch.query(deps.db).forOrg(ctx.organizationId).findById(batchId).patch({ cancelRequested: true });
      await deps.messageBatches.cancel(batchId);
      return this.get(ctx, batchId);
    },
  };
}

export type BatchService = ReturnType<typeof createBatchService>;
