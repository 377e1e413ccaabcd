import type { Knex } from 'knex';
import * as tenancy from './20261121000000_tenancy.js';
import * as agentRuntime from './20261121010000_agent_runtime.js';
import * as identities from './20261121030000_identities.js';
import * as sandbox from './20261121040000_sandbox.js';
import * as archival from './20261121050000_archival.js';
import * as mcp from './20261121060000_mcp.js';
import * as accounts from './20261122000000_accounts.js';
import * as folders from './20261123000000_folders.js';
import * as toolSchemaOrder from './20261124000000_tool_schema_order.js';
import * as firstStartAdmin from './20261125000000_first_start_admin.js';
import * as clientSideAccessTokens from './20261126000000_client_side_access_tokens.js';
import * as oauth from './20261126010000_oauth.js';
import * as runPendingInputs from './20261126100000_run_pending_inputs.js';
import * as messageBatchesAndSchedules from './20261127160000_message_batches_and_schedules.js';
import * as platformAdmin from './20261127190000_platform_admin.js';
import * as stepCostsInBilling from './20261127191000_step_costs_in_billing.js';
import * as billing from './20261127140000_billing.js';
import * as templates from './20261127210000_templates.js';
import * as traces from './20261127230000_traces.js';
import * as rateLimitWindows from './20261128000000_rate_limit_windows.js';
import * as simulatedAgents from './20261126300000_simulated_agents.js';
import * as modelCallReservations from './20261126500000_model_call_reservations.js';
import * as billingSettings from './20261126510000_billing_settings.js';
import * as groups from './20261126400000_groups.js';
import * as groupTurnsAndAgentCalls from './20261126410000_group_turns_and_agent_calls.js';
import * as cardPayments from './20261126100000_card_payments.js';
import * as billingPeriods from './20261126110000_billing_periods.js';
import * as inferenceCounters from './20261126120000_inference_counters.js';
import * as datasets from './20261129200000_datasets.js';
import * as abTests from './20261129210000_ab_tests.js';
import * as sharing from './20261129300000_sharing.js';
import * as conversations from './20261129500000_conversations.js';
import * as metricRollups from './20261130100000_metric_rollups.js';
import * as runChain from './20261201100000_run_chain.js';
import * as firstStartOrganization from './20261202100000_first_start_organization.js';
import * as hiddenAgentsAndTemplateVariables from './20261205100000_hidden_agents_and_template_variables.js';
import * as conversationIsolatedBlocks from './20261206300000_conversation_isolated_blocks.js';
import * as lettaImports from './20261206310000_letta_imports.js';

type Migration = { up(knex: Knex): Promise<void>; down(knex: Knex): Promise<void> };

/** Every migration, in order. Listed explicitly so the same code runs under tsx, vitest and bundlers. */
export const migrations: ReadonlyArray<readonly [name: string, migration: Migration]> = [
  ['20261121000000_tenancy', tenancy],
  ['20261121010000_agent_runtime', agentRuntime],
  ['20261121030000_identities', identities],
  ['20261121040000_sandbox', sandbox],
  ['20261121050000_archival', archival],
  ['20261121060000_mcp', mcp],
  ['20261122000000_accounts', accounts],
  ['20261123000000_folders', folders],
  ['20261124000000_tool_schema_order', toolSchemaOrder],
  ['20261125000000_first_start_admin', firstStartAdmin],
  ['20261126000000_client_side_access_tokens', clientSideAccessTokens],
  ['20261126010000_oauth', oauth],
  ['20261126100000_run_pending_inputs', runPendingInputs],
  ['20261127160000_message_batches_and_schedules', messageBatchesAndSchedules],
  ['20261127190000_platform_admin', platformAdmin],
  ['20261127191000_step_costs_in_billing', stepCostsInBilling],
  ['20261127140000_billing', billing],
  ['20261127210000_templates', templates],
  ['20261127230000_traces', traces],
  ['20261128000000_rate_limit_windows', rateLimitWindows],
  ['20261126300000_simulated_agents', simulatedAgents],
  ['20261126500000_model_call_reservations', modelCallReservations],
  ['20261126510000_billing_settings', billingSettings],
  ['20261126400000_groups', groups],
  ['20261126410000_group_turns_and_agent_calls', groupTurnsAndAgentCalls],
  ['20261126100000_card_payments', cardPayments],
  ['20261126110000_billing_periods', billingPeriods],
  ['20261126120000_inference_counters', inferenceCounters],
  ['20261129200000_datasets', datasets],
  ['20261129210000_ab_tests', abTests],
  ['20261129300000_sharing', sharing],
  ['20261129500000_conversations', conversations],
  ['20261130100000_metric_rollups', metricRollups],
  ['20261201100000_run_chain', runChain],
  ['20261202100000_first_start_organization', firstStartOrganization],
  ['20261205100000_hidden_agents_and_template_variables', hiddenAgentsAndTemplateVariables],
  ['20261206300000_conversation_isolated_blocks', conversationIsolatedBlocks],
  ['20261206310000_letta_imports', lettaImports],
];
