import type { Client } from '@temporalio/client';
import type { groupTurnWorkflow } from '@engram/workflows/group-turn/workflow';
import { ORGANIZATION_ID, RUN_TYPE } from '@engram/workflows/search-attributes';

/** How the API starts group turns; a turn's workflow id is the turn id (an operator may cancel one in the Temporal UI). */
export function createGroupTurnClient(deps: { client: Client; taskQueue: string }) {
  return {
    async start(input: { turnId: string; organizationId: string }): Promise<void> {
      await deps.client.workflow.start<typeof groupTurnWorkflow>('groupTurnWorkflow', {
        workflowId: input.turnId,
        taskQueue: deps.taskQueue,
        args: [{ turnId: input.turnId, organizationId: input.organizationId }],
        typedSearchAttributes: [
          { key: ORGANIZATION_ID, value: input.organizationId },
          { key: RUN_TYPE, value: 'group_turn' },
        ],
      });
    },
  };
}

export type GroupTurnClient = ReturnType<typeof createGroupTurnClient>;
