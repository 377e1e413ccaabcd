import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { lettaImportWorkflow } from '@engram/workflows/letta-import/workflow';
import { lettaImportWorkflowId } from '@engram/workflows/letta-import/ids';
import { ORGANIZATION_ID, RUN_STATUS, RUN_TYPE } from '@engram/workflows/search-attributes';

/** How the API starts migrations from another Letta-API server. */
export function createLettaImportClient(deps: { client: Client; taskQueue: string }) {
  return {
    workflowId: lettaImportWorkflowId,

    /** Starts the run's workflow (in the Temporal UI as `EngramRunType = letta_import`); starting it twice starts it once. */
    async start(input: { organizationId: string; importId: string }): Promise<string> {
      const workflowId = lettaImportWorkflowId(input.importId);
      try {
        await deps.client.workflow.start<typeof lettaImportWorkflow>('lettaImportWorkflow', {
          workflowId,
          taskQueue: deps.taskQueue,
          args: [{ organizationId: input.organizationId, importId: input.importId }],
          typedSearchAttributes: [
            { key: ORGANIZATION_ID, value: input.organizationId },
            { key: RUN_TYPE, value: 'letta_import' },
            { key: RUN_STATUS, value: 'running' },
          ],
        });
      } catch (error) {
        if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
      }
      return workflowId;
    },
  };
}

export type LettaImportClient = ReturnType<typeof createLettaImportClient>;
