import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { messageBatchWorkflow } from '@engram/workflows/batch-messages/workflow';
import { ORGANIZATION_ID, RUN_TYPE } from '@engram/workflows/search-attributes';

/** How the API starts and cancels message batches; the batch workflow's id is the batch id. */
export function createMessageBatchClient(deps: { client: Client; taskQueue: string }) {
  return {
    async start(input: { batchId: string; organizationId: string; concurrency: number }): Promise<void> {
      await deps.client.workflow.start<typeof messageBatchWorkflow>('messageBatchWorkflow', {
        workflowId: input.batchId,
        taskQueue: deps.taskQueue,
        args: [{ batchId: input.batchId, organizationId: input.organizationId, concurrency: input.concurrency }],
        typedSearchAttributes: [
          { key: ORGANIZATION_ID, value: input.organizationId },
          { key: RUN_TYPE, value: 'message_batch' },
        ],
      });
    },

    /** Requests cancellation; false when the batch's workflow is gone (already closed past retention). */
    async cancel(batchId: string): Promise<boolean> {
      try {
        await deps.client.workflow.getHandle(batchId).cancel();
        return true;
      } catch (error) {
        if (error instanceof WorkflowNotFoundError) return false;
        throw error;
      }
    },
  };
}

export type MessageBatchClient = ReturnType<typeof createMessageBatchClient>;
