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
