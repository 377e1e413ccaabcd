import type { Client } from '@temporalio/client';
import type { autoTopUpWorkflow } from '@engram/workflows/auto-top-up/workflow';
import { autoTopUpWorkflowId } from '@engram/workflows/auto-top-up/ids';
import { balanceLowSignal } from '@engram/workflows/auto-top-up/messages';
import { ORGANIZATION_ID, RUN_TYPE } from '@engram/workflows/search-attributes';

/** How the API (auto top-up turned on below the threshold) and the worker (a step crossed it) ask for a top-up. */
export function createAutoTopUpClient(deps: { client: Client; taskQueue: string }) {
  return {
    /** Signals the organization's top-up workflow, starting it if none is running (one at a time per organization). */
    async request(organizationId: string): Promise<void> {
      await deps.client.workflow.signalWithStart<typeof autoTopUpWorkflow, []>('autoTopUpWorkflow', {
        workflowId: autoTopUpWorkflowId(organizationId),
        taskQueue: deps.taskQueue,
        args: [{ organizationId }],
        signal: balanceLowSignal,
        signalArgs: [],
        typedSearchAttributes: [
          { key: ORGANIZATION_ID, value: organizationId },
          { key: RUN_TYPE, value: 'auto_top_up' },
        ],
      });
    },
  };
}

export type AutoTopUpClient = ReturnType<typeof createAutoTopUpClient>;
