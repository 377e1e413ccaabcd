import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { templateMigrationWorkflow } from '@engram/workflows/template-migration/workflow';
import { templateMigrationWorkflowId } from '@engram/workflows/template-migration/ids';
import { abortTemplateMigrationSignal } from '@engram/workflows/template-migration/messages';
import { ORGANIZATION_ID, RUN_STATUS, RUN_TYPE } from '@engram/workflows/search-attributes';

/** How the API starts and aborts template migrations. */
export function createTemplateMigrationClient(deps: { client: Client; taskQueue: string }) {
  return {
    workflowId: templateMigrationWorkflowId,

    /** Starts the migration's workflow (visible in the Temporal UI as `EngramRunType = template_migration`). */
    async start(input: { organizationId: string; migrationId: string }): Promise<string> {
      const workflowId = templateMigrationWorkflowId(input.migrationId);
      try {
        await deps.client.workflow.start<typeof templateMigrationWorkflow>('templateMigrationWorkflow', {
          workflowId,
          taskQueue: deps.taskQueue,
          args: [{ organizationId: input.organizationId, migrationId: input.migrationId }],
          typedSearchAttributes: [
            { key: ORGANIZATION_ID, value: input.organizationId },
            { key: RUN_TYPE, value: 'template_migration' },
            { key: RUN_STATUS, value: 'running' },
          ],
        });
      } catch (error) {
        if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
      }
      return workflowId;
    },

    /** Asks the migration to stop at its next agent; false when its workflow is no longer there to ask. */
    async abort(migrationId: string): Promise<boolean> {
      try {
        await deps.client.workflow.getHandle(templateMigrationWorkflowId(migrationId)).signal(abortTemplateMigrationSignal);
        return true;
      } catch (error) {
        if (error instanceof WorkflowNotFoundError) return false;
        throw error;
      }
    },
  };
}

export type TemplateMigrationClient = ReturnType<typeof createTemplateMigrationClient>;
