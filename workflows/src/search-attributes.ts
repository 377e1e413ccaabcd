import { defineSearchAttributeKey } from '@temporalio/common';

/** Let operators find runs in the Temporal UI by tenant, agent and kind. */
export const ORGANIZATION_ID = defineSearchAttributeKey('EngramOrganizationId', 'KEYWORD');
export const AGENT_ID = defineSearchAttributeKey('EngramAgentId', 'KEYWORD');
export const RUN_TYPE = defineSearchAttributeKey('EngramRunType', 'KEYWORD');
/**
 * An agent run's own status: `running` from its start, then `completed`, `failed` or `cancelled`. Its workflow
 * completes normally whatever the outcome, so Temporal's execution status alone would call every run completed.
 */
export const RUN_STATUS = defineSearchAttributeKey('EngramRunStatus', 'KEYWORD');

export const SEARCH_ATTRIBUTES = [ORGANIZATION_ID, AGENT_ID, RUN_TYPE, RUN_STATUS];

/**
 * What a run's workflow carries for operators, however it is started (by the API, or by a workflow): its tenant,
 * agent and kind, and the status `running` until it ends, as search attributes, and the same in its memo.
 */
export function runWorkflowAttributes(run: { organizationId: string; agentId: string; runType: string }) {
  return {
    typedSearchAttributes: [
      { key: ORGANIZATION_ID, value: run.organizationId },
      { key: AGENT_ID, value: run.agentId },
      { key: RUN_TYPE, value: run.runType },
      { key: RUN_STATUS, value: 'running' },
    ],
    memo: { organizationId: run.organizationId, agentId: run.agentId, runType: run.runType },
  };
}
