import { TenantModel } from './base-model.js';

export type BatchStatus = 'created' | 'running' | 'completed' | 'cancelled';
export type BatchItemStatus = 'pending' | 'running' | 'completed' | 'failed' | 'cancelled';

/** A message batch: its job record (`job_type: batch`), the callback outcome included. */
export class MessageBatch extends TenantModel {
  static override tableName = 'message_batches';
  static override jsonAttributes = ['metadata'];
  declare id: string;
  declare userId: string | null;
  declare status: BatchStatus;
  declare cancelRequested: boolean;
  declare callbackUrl: string | null;
  declare callbackSentAt: Date | null;
  declare callbackStatusCode: number | null;
  declare callbackError: string | null;
  declare callbackAttempts: number;
  declare metadata: Record<string, unknown>;
  declare completedAt: Date | null;
}

/** One request of a batch; its run exists once the batch dispatched it. */
export class MessageBatchItem extends TenantModel {
  static override tableName = 'message_batch_items';
  static override jsonAttributes = ['request'];
  declare id: string;
  declare batchId: string;
  declare position: number;
  declare agentId: string;
  declare runId: string | null;
  declare status: BatchItemStatus;
  declare request: Record<string, unknown>;
}
