import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { datasetRunWorkflow } from '@engram/workflows/dataset-run/workflow';
import { datasetRunWorkflowId } from '@engram/workflows/dataset-run/ids';
import { ORGANIZATION_ID, RUN_TYPE } from '@engram/workflows/search-attributes';

/** How the API starts dataset runs. */
export function createDatasetRunClient(deps: { client: Client; taskQueue: string }) {
  return {
    workflowId: datasetRunWorkflowId,

    /** Starts the run's workflow (visible in the Temporal UI as `EngramRunType = dataset_run`); starting it again is a no-op. */
    async start(input: { organizationId: string; datasetRunId: string; concurrency: number }): Promise<string> {
      const workflowId = datasetRunWorkflowId(input.datasetRunId);
      try {
        await deps.client.workflow.start<typeof datasetRunWorkflow>('datasetRunWorkflow', {
          workflowId,
          taskQueue: deps.taskQueue,
          args: [input],
          typedSearchAttributes: [
            { key: ORGANIZATION_ID, value: input.organizationId },
            { key: RUN_TYPE, value: 'dataset_run' },
          ],
        });
      } catch (error) {
        if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
      }
      return workflowId;
    },
  };
}

export type DatasetRunClient = ReturnType<typeof createDatasetRunClient>;
