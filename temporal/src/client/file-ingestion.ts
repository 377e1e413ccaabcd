import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { fileIngestionWorkflow } from '@engram/workflows/file-ingestion/workflow';
import { fileIngestionWorkflowId, type FileIngestionInput } from '@engram/workflows/file-ingestion/ids';
import { ORGANIZATION_ID, RUN_TYPE } from '@engram/workflows/search-attributes';

/** How the API starts the parse → chunk → embed pipeline of an uploaded file. */
export function createFileIngestionClient(deps: { client: Client; taskQueue: string }) {
  return {
    /** Starts ingesting the file; an ingestion of the same file that is still running is left alone. */
    async start(input: FileIngestionInput): Promise<void> {
      try {
        await deps.client.workflow.start<typeof fileIngestionWorkflow>('fileIngestionWorkflow', {
          workflowId: fileIngestionWorkflowId(input.fileId),
          taskQueue: deps.taskQueue,
          args: [{ organizationId: input.organizationId, fileId: input.fileId }],
          typedSearchAttributes: [
            { key: ORGANIZATION_ID, value: input.organizationId },
            { key: RUN_TYPE, value: 'file_ingestion' },
          ],
        });
      } catch (error) {
        if (error instanceof WorkflowExecutionAlreadyStartedError) return;
        throw error;
      }
    },

    /**
     * Whether the file's ingestion is still under way. `ended` names how a workflow that is no longer running
     * closed (`TERMINATED`, `TIMED_OUT`, …); `missing` means Temporal has no such workflow (never started, or
     * past its retention).
     */
    async progress(fileId: string): Promise<{ running: true } | { running: false; ended: string }> {
      try {
        const { status } = await deps.client.workflow.getHandle(fileIngestionWorkflowId(fileId)).describe();
        return status.name === 'RUNNING' ? { running: true } : { running: false, ended: status.name };
      } catch (error) {
        if (error instanceof WorkflowNotFoundError) return { running: false, ended: 'missing' };
        throw error;
      }
    },
  };
}

export type FileIngestionClient = ReturnType<typeof createFileIngestionClient>;
