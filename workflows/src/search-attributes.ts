import { defineSearchAttributeKey } from '@temporalio/common';

/** Let operators find runs in the Temporal UI by tenant, agent and kind. */
export const ORGANIZATION_ID = defineSearchAttributeKey('EngramOrganizationId', 'KEYWORD');
export const AGENT_ID = defineSearchAttributeKey('EngramAgentId', 'KEYWORD');
export const RUN_TYPE = defineSearchAttributeKey('EngramRunType', 'KEYWORD');

export const SEARCH_ATTRIBUTES = [ORGANIZATION_ID, AGENT_ID, RUN_TYPE];
