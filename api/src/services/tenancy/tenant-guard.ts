import { isId, type Database, type IdKind } from '@engram/db';
import { NotFoundError } from '../../errors.js';

type OwnedResource = {
  /** The table holding it, or which one by the value's shape (a job is a run or a message batch). */
  table: string | ((value: string) => string);
  /** The column the path parameter holds (the primary key unless said otherwise). */
  column?: string;
  /** Shown in the 404, as the resource's own handlers word it. */
  label: string;
  /** Values of another shape are left to the route's validation, which answers them as before. */
  idShape: (value: string) => boolean;
  /** Values of another shape name the resource too (a template's version, `name:3`): the input rules do not refuse them. */
  otherShapesAllowed?: true;
  /** The column's value for a parameter that names the row another way (a migration by its workflow id). */
  columnValue?: (value: string) => string;
};

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const prefixed = (kind: IdKind) => (value: string) => isId(kind, value);
const matching = (shape: RegExp) => (value: string) => shape.test(value);
const uuid = matching(new RegExp(`^${UUID}$`));
/** A migration's workflow id is its row id after this (`templateMigrationWorkflowId`). */
const MIGRATION_WORKFLOW_PREFIX = 'template-migration-';

/**
 * Path parameters that name a tenant's row, by the parameter names routes use. Every route with one
 * of these is answered 404 for another organization's id before its handler (or even its
 * validation) runs, so isolation does not rest on each handler remembering `.forOrg`.
 */
export const OWNED_RESOURCE_PARAMS: Record<string, OwnedResource> = {
  agent_id: { table: 'agents', label: 'Agent', idShape: prefixed('agent') },
  agentId: { table: 'agents', label: 'Agent', idShape: prefixed('agent') },
  run_id: { table: 'runs', label: 'Run', idShape: prefixed('run') },
  job_id: {
    table: (value) => (isId('batch', value) ? 'message_batches' : 'runs'),
    label: 'Job',
    idShape: (value) => isId('run', value) || isId('batch', value),
  },
  batch_id: { table: 'message_batches', label: 'Batch', idShape: prefixed('batch') },
  scheduled_message_id: { table: 'scheduled_messages', label: 'Scheduled message', idShape: prefixed('scheduledMessage') },
  group_id: { table: 'groups', label: 'Group', idShape: prefixed('group') },
  step_id: { table: 'steps', label: 'Step', idShape: prefixed('step') },
  message_id: { table: 'messages', label: 'Message', idShape: prefixed('message') },
  // `default` (with `agent_id`) or an agent's id name an agent's default conversation, which its handler resolves.
  conversation_id: { table: 'conversations', label: 'Conversation', idShape: prefixed('conversation'), otherShapesAllowed: true },
  block_id: { table: 'blocks', label: 'Block', idShape: prefixed('block') },
  tool_id: { table: 'tools', label: 'Tool', idShape: prefixed('tool') },
  provider_id: { table: 'providers', label: 'Provider', idShape: prefixed('provider') },
  identity_id: { table: 'identities', label: 'Identity', idShape: matching(new RegExp(`^identity-${UUID}$`)) },
  archive_id: { table: 'archives', label: 'Archive', idShape: matching(new RegExp(`^archive-${UUID}$`)) },
  passage_id: { table: 'passages', label: 'Passage', idShape: matching(new RegExp(`^passage-${UUID}$`)) },
  folder_id: { table: 'sources', label: 'Folder', idShape: prefixed('source') },
  source_id: { table: 'sources', label: 'Source', idShape: prefixed('source') },
  file_id: { table: 'files', label: 'File', idShape: prefixed('file') },
  sandbox_config_id: { table: 'sandbox_configs', label: 'Sandbox config', idShape: matching(new RegExp(`^sandbox-${UUID}$`)) },
  env_var_id: { table: 'sandbox_environment_variables', label: 'Sandbox environment variable', idShape: matching(new RegExp(`^sandbox-env-${UUID}$`)) },
  projectId: { table: 'projects', label: 'Project', idShape: prefixed('project') },
  apiKeyId: { table: 'api_keys', label: 'API key', idShape: prefixed('apiKey') },
  memberId: { table: 'organization_members', column: 'user_id', label: 'Member', idShape: prefixed('user') },
  inviteId: { table: 'organization_invites', label: 'Invite', idShape: uuid },
  ruleId: { table: 'invite_rules', label: 'Invite rule', idShape: uuid },
  environmentVariableId: { table: 'organization_environment_variables', label: 'Environment variable', idShape: uuid },
  developmentServerId: { table: 'development_servers', label: 'Development server', idShape: uuid },
  // A saved card by its Stripe PaymentMethod id (`pm_…`).
  methodId: { table: 'payment_cards', label: 'Card', idShape: matching(/^pm_[A-Za-z0-9_]+$/) },
  agentTemplateId: { table: 'agent_templates', label: 'Template', idShape: prefixed('template') },
  templateId: { table: 'agent_templates', label: 'Template', idShape: prefixed('template') },
  deployedAgentTemplateId: { table: 'agent_template_versions', label: 'Deployed template', idShape: prefixed('templateVersion') },
  blockTemplateId: { table: 'block_templates', label: 'Block template', idShape: prefixed('blockTemplate') },
  simulatedAgentId: { table: 'simulated_agents', label: 'Simulated agent', idShape: prefixed('simulatedAgent') },
  deployment_id: { table: 'template_deployments', label: 'Deployment', idShape: prefixed('deployment') },
  // Only the publishing organization's routes are guarded; reading a published file is public by its access level.
  agentFileId: { table: 'published_agent_files', label: 'Agent file', idShape: prefixed('publishedAgentFile') },
  datasetId: { table: 'datasets', label: 'Dataset', idShape: prefixed('dataset') },
  datasetItemId: { table: 'dataset_items', label: 'Dataset item', idShape: prefixed('datasetItem') },
  datasetRunId: { table: 'dataset_runs', label: 'Dataset run', idShape: prefixed('datasetRun') },
  abTestId: { table: 'ab_tests', label: 'A/B test', idShape: prefixed('abTest') },
  ab_test_id: { table: 'ab_tests', label: 'A/B test', idShape: prefixed('abTest') },
  abTestTemplateId: { table: 'ab_test_templates', label: 'Attached template', idShape: prefixed('abTestTemplate') },
  workflowId: {
    table: 'template_migrations',
    label: 'Migration',
    idShape: (value) => value.startsWith(MIGRATION_WORKFLOW_PREFIX) && isId('templateMigration', value.slice(MIGRATION_WORKFLOW_PREFIX.length)),
    columnValue: (value) => value.slice(MIGRATION_WORKFLOW_PREFIX.length),
  },
  // `/v1/templates/:template` names a template by its bare name, or a version of it (`name:version`, which its handler resolves).
  template: { table: 'agent_templates', column: 'name', label: 'Template', idShape: matching(/^[A-Za-z0-9_-]+$/), otherShapesAllowed: true },
};

export function createTenantGuard(deps: { db: Database }) {
  return {
    /** Throws 404 unless every resource named in `params` belongs to the organization. */
    async assertParamsOwned(organizationId: string, params: Record<string, unknown>): Promise<void> {
      for (const [name, value] of Object.entries(params)) {
        const resource = OWNED_RESOURCE_PARAMS[name];
        if (!resource || typeof value !== 'string' || !resource.idShape(value)) continue;
        const found = await deps
          .db(typeof resource.table === 'string' ? resource.table : resource.table(value))
          .where({ [resource.column ?? 'id']: resource.columnValue ? resource.columnValue(value) : value, organization_id: organizationId })
          .first(deps.db.raw('1 as found'));
        if (!found) throw new NotFoundError(resource.label);
      }
    },

    /** The agent a conversation of the organization belongs to; 404 for another organization's or an unknown one. */
    async agentOfConversation(organizationId: string, conversationId: string): Promise<string> {
      const conversation = await deps.db('conversations').where({ id: conversationId, organization_id: organizationId }).first('agent_id');
      if (!conversation) throw new NotFoundError('Conversation');
      return conversation.agentId as string;
    },
  };
}

export type TenantGuard = ReturnType<typeof createTenantGuard>;
