import type { Role } from '@engram/db';

/**
 * Access control in one place: the permissions of spec 001 §6, what each role holds, and which
 * permission every route of the app needs. `registerAccessControl` (http/auth.ts) enforces it.
 */

/** Every organization permission, as stored in `organization_members.custom_permissions`. */
export const PERMISSIONS = [
  'create_api_keys',
  'read_api_keys',
  'delete_api_keys',
  'update_organization',
  'update_users_in_organization',
  'manage_environment_variables',
  'create_agents',
  'read_agents',
  'update_agents',
  'delete_agents',
  'message_agents',
  'create_tools',
  'read_tools',
  'update_tools',
  'delete_tools',
  'create_data_sources',
  'read_data_sources',
  'update_data_sources',
  'delete_data_sources',
  'manage_billing',
  'connect_integrations',
  'create_projects',
  'read_projects',
  'update_projects',
  'delete_projects',
  'create_templates',
  'read_templates',
  'update_templates',
  'delete_templates',
  'create_datasets',
  'read_datasets',
  'update_datasets',
  'delete_datasets',
  'create_dataset_items',
  'read_dataset_items',
  'update_dataset_items',
  'delete_dataset_items',
  'create_ab_tests',
  'read_ab_tests',
  'update_ab_tests',
  'delete_ab_tests',
  'create_block_templates',
  'read_block_templates',
  'update_block_templates',
  'delete_block_templates',
  // Internal: held by no role and grantable to no member; it stands for every other permission.
  'all_scopes',
] as const;

export type Permission = (typeof PERMISSIONS)[number];

/** What an admin may grant a `custom` member. */
export const ASSIGNABLE_PERMISSIONS = PERMISSIONS.filter((permission) => permission !== 'all_scopes') as [
  Exclude<Permission, 'all_scopes'>,
  ...Array<Exclude<Permission, 'all_scopes'>>,
];

export const ROLES = ['admin', 'editor', 'analyst', 'custom'] as const satisfies readonly Role[];

type Crud = { create: Permission; read: Permission; update: Permission; delete: Permission };

type CrudNoun = 'agents' | 'tools' | 'data_sources' | 'projects' | 'templates' | 'datasets' | 'dataset_items' | 'ab_tests' | 'block_templates';

const crud = (noun: CrudNoun): Crud => ({ create: `create_${noun}`, read: `read_${noun}`, update: `update_${noun}`, delete: `delete_${noun}` });

/** Permission families by resource, so route defaults can ask for "the writes of agents". */
export const RESOURCE_PERMISSIONS = {
  agents: crud('agents'),
  tools: crud('tools'),
  dataSources: crud('data_sources'),
  projects: crud('projects'),
  templates: crud('templates'),
  datasets: crud('datasets'),
  datasetItems: crud('dataset_items'),
  abTests: crud('ab_tests'),
  blockTemplates: crud('block_templates'),
} as const;

type Resource = keyof typeof RESOURCE_PERMISSIONS;

const ANALYST_READS: Resource[] = ['projects', 'agents', 'dataSources', 'tools', 'templates', 'datasets', 'datasetItems', 'abTests', 'blockTemplates'];

const ANALYST: Permission[] = [...ANALYST_READS.map((resource) => RESOURCE_PERMISSIONS[resource].read), 'message_agents'];

const EDITOR: Permission[] = [
  ...ANALYST,
  ...ANALYST_READS.flatMap((resource) => {
    const { create, update, delete: remove } = RESOURCE_PERMISSIONS[resource];
    return [create, update, remove];
  }),
  'manage_environment_variables',
  'create_api_keys',
  'read_api_keys',
];

const ADMIN: Permission[] = [
  ...EDITOR,
  'delete_api_keys',
  'update_users_in_organization',
  'update_organization',
  'manage_billing',
  'connect_integrations',
];

/** The role matrix of spec 001 §6. */
export const ROLE_PERMISSIONS: Record<Role, ReadonlySet<Permission>> = {
  admin: new Set(ADMIN),
  editor: new Set(EDITOR),
  analyst: new Set(ANALYST),
  custom: new Set(),
};

/** What a member may do: the role's permissions, or for `custom` exactly the granted ones. */
export function effectivePermissions(role: Role, customPermissions: readonly string[]): ReadonlySet<Permission> {
  if (role !== 'custom') return ROLE_PERMISSIONS[role];
  const assignable = new Set<string>(ASSIGNABLE_PERMISSIONS);
  return new Set(customPermissions.filter((permission): permission is Permission => assignable.has(permission)));
}

/** What a route needs from its caller. */
export type AccessRule =
  /** Nothing: reachable without credentials. */
  | { kind: 'public' }
  /** A signed-in console user, whether or not they belong to an organization yet. */
  | { kind: 'account' }
  /** Any member of the acting organization. */
  | { kind: 'member' }
  /** A member holding every listed permission. */
  | { kind: 'permission'; permissions: readonly Permission[] }
  /** A user with the platform-wide `platform_admin` permission. */
  | { kind: 'platform_admin' };

const PUBLIC: AccessRule = { kind: 'public' };
const ACCOUNT: AccessRule = { kind: 'account' };
const MEMBER: AccessRule = { kind: 'member' };
const PLATFORM_ADMIN: AccessRule = { kind: 'platform_admin' };
const needs = (...permissions: Permission[]): AccessRule => ({ kind: 'permission', permissions: [...new Set(permissions)] });
/**
 * Where no rule matched: the broadest grant there is, every permission an admin holds, so a route
 * nobody has mapped yet is closed to every other role (and a test lists it until it is mapped).
 */
export const UNMAPPED: AccessRule = needs(...ASSIGNABLE_PERMISSIONS);

const agents = RESOURCE_PERMISSIONS.agents;
const projects = RESOURCE_PERMISSIONS.projects;

/**
 * Routes with a rule of their own, keyed `METHOD /pattern` as Fastify registers them (no trailing
 * slash). Everything else falls back to its family below.
 */
export const ROUTE_RULES: Record<string, AccessRule> = {
  // Console: account and session.
  'POST /api/user/new': PUBLIC,
  'POST /api/user/new-with-invite': PUBLIC,
  'POST /api/user/login': PUBLIC,
  'POST /api/user/logout': PUBLIC,
  'POST /api/user/forgot-password/start': PUBLIC,
  'POST /api/user/forgot-password/update': PUBLIC,
  'GET /api/invites/:inviteCode': PUBLIC,
  'GET /api/user/self': ACCOUNT,
  'PUT /api/user/self': ACCOUNT,
  'DELETE /api/user/self': ACCOUNT,
  'GET /api/user/self/organizations': ACCOUNT,
  'PUT /api/user/self/active-organization': ACCOUNT,
  'POST /api/user/self/onboarded': ACCOUNT,
  'PUT /api/user/self/onboarding/claim': ACCOUNT,
  'POST /api/user/self/onboarding/pause': ACCOUNT,
  'POST /api/user/self/onboarding/unpause': ACCOUNT,
  'POST /api/user/self/email-verification/start': ACCOUNT,
  'POST /api/user/self/email-verification/complete': ACCOUNT,
  'POST /api/user/self/phone-verification/start': ACCOUNT,
  'POST /api/user/self/phone-verification/complete': ACCOUNT,
  'GET /api/user/self/verified-contacts': ACCOUNT,
  'GET /api/user/self/intercom-token': ACCOUNT,
  'POST /api/user/self/set-email-marketing-consent': ACCOUNT,
  'POST /api/organizations': ACCOUNT,
  // Registered only where the configuration exposes the development outbox.
  'GET /api/development/outbox': ACCOUNT,
  // The user's answer to an app asking for access (consent screen, device verification), whichever organization they pick.
  'GET /api/oauth/interactions/:interactionId': ACCOUNT,
  'POST /api/oauth/interactions/:interactionId': ACCOUNT,
  'POST /api/oauth/device/verify-code': ACCOUNT,
  'POST /api/oauth/device/verify': ACCOUNT,
  // Asked before signing in, to route the email to its identity provider.
  'POST /api/verify-sso-email': PUBLIC,
  // Any signed-in user may enter a code for the organization they act in (services/admin/cloud-access.ts).
  'POST /api/cloud-access-code': ACCOUNT,

  // Console: the acting organization.
  'GET /api/organizations/self': MEMBER,
  // The member's own connections to OAuth apps in this organization.
  'GET /api/user/self/connected-apps': MEMBER,
  'GET /api/user/self/connected-apps/:clientId/connections': MEMBER,
  'DELETE /api/user/self/connected-apps/:clientId': MEMBER,
  'DELETE /api/user/self/connected-apps/:clientId/connections/:connectionId': MEMBER,
  'PATCH /api/organizations/self': needs('update_organization'),
  'DELETE /api/organizations/self': needs('update_organization'),
  'GET /api/organizations/self/deletion-impact': needs('update_organization'),
  // Any member may leave (the service keeps the last admin in).
  'POST /api/organizations/self/leave': MEMBER,
  'GET /api/organizations/self/preferences': MEMBER,
  'GET /api/organizations/self/billing-info': needs('manage_billing'),
  'GET /api/organizations/self/credits': needs('manage_billing'),
  'POST /api/organizations/self/credits': needs('manage_billing'),
  'GET /api/organizations/self/setup-intent': needs('manage_billing'),
  'GET /api/organizations/self/billing-info/methods': needs('manage_billing'),
  'POST /api/organizations/self/billing-info/methods': needs('manage_billing'),
  'DELETE /api/organizations/self/billing-info/methods/:methodId': needs('manage_billing'),
  'POST /api/organizations/self/billing-info/methods/:methodId/default': needs('manage_billing'),
  'POST /api/organizations/self/upgrade': needs('manage_billing'),
  'DELETE /api/organizations/self/subscription': needs('manage_billing'),
  'POST /api/organizations/self/subscription/resume': needs('manage_billing'),
  'GET /api/organizations/self/billing-history': needs('manage_billing'),
  'GET /api/organizations/self/auto-top-up': needs('manage_billing'),
  'PUT /api/organizations/self/auto-top-up': needs('manage_billing'),
  // Usage against the plan's limits: what every member's console shows beside what they create.
  'GET /api/organizations/self/quotas': MEMBER,
  'GET /api/organizations/self/quotas/full': MEMBER,
  'GET /api/transactions': needs('manage_billing'),
  'GET /api/transactions/usage-aggregation': needs('manage_billing'),
  'POST /api/gift-codes/redeem': needs('manage_billing'),
  'GET /api/referral/code': needs('manage_billing'),
  'GET /api/referral/stats': needs('manage_billing'),
  // Asked on the sign-up form, before there is an account.
  'POST /api/referral/validate': PUBLIC,
  'GET /api/organizations/self/members': MEMBER,
  'DELETE /api/organizations/self/members/:memberId': needs('update_users_in_organization'),
  'PATCH /api/organizations/self/members/:memberId/role': needs('update_users_in_organization'),
  'GET /api/organizations/self/invited-members': needs('update_users_in_organization'),
  'POST /api/organizations/self/invited-members': needs('update_users_in_organization'),
  'DELETE /api/organizations/self/invited-members/:inviteId': needs('update_users_in_organization'),
  'POST /api/organizations/self/invited-members/:inviteId/regenerate': needs('update_users_in_organization'),
  'GET /api/organizations/self/verified-domains': needs('update_users_in_organization'),
  'GET /api/organizations/self/invite-rules': needs('update_users_in_organization'),
  'POST /api/organizations/self/invite-rules': needs('update_users_in_organization'),
  'DELETE /api/organizations/self/invite-rules/:ruleId': needs('update_users_in_organization'),

  'GET /api/projects': needs(projects.read),
  'POST /api/projects': needs(projects.create),
  'GET /api/projects/:projectId': needs(projects.read),
  'PATCH /api/projects/:projectId': needs(projects.update),
  'DELETE /api/projects/:projectId': needs(projects.delete),
  // A favorite is the member's own bookmark, not a change to the project.
  'POST /api/projects/:projectId/favorite': needs(projects.read),
  'GET /api/projects/:projectId/source-agents': needs(projects.read, agents.read),

  'POST /api/api-keys': needs('create_api_keys'),
  'GET /api/api-keys': needs('read_api_keys'),
  'GET /api/api-keys/:apiKeyId': needs('read_api_keys'),
  'DELETE /api/api-keys/:apiKeyId': needs('delete_api_keys'),

  'GET /api/environment-variables': needs('manage_environment_variables'),
  'POST /api/environment-variables': needs('manage_environment_variables'),
  'PUT /api/environment-variables': needs('manage_environment_variables'),
  'GET /api/environment-variables/:key': needs('manage_environment_variables'),
  'DELETE /api/environment-variables/:environmentVariableId': needs('manage_environment_variables'),

  // Development servers are where members edit agents from the ADE.
  'GET /api/development-servers': needs(agents.read),
  'GET /api/development-servers/:developmentServerId': needs(agents.read),
  'POST /api/development-servers': needs(agents.update),
  'PUT /api/development-servers/:developmentServerId': needs(agents.update),
  'DELETE /api/development-servers/:developmentServerId': needs(agents.update),

  'GET /api/feature-flags': MEMBER,
  // The member's own permissions and where runs are inspected: what every member's console adapts to.
  'GET /api/console-settings': MEMBER,
  // The layout is the member's own, so reading the agent is enough to keep one.
  'GET /api/ade-preferences/:agentId': needs(agents.read),
  'PUT /api/ade-preferences/:agentId': needs(agents.read),

  // /v1: calls that do not follow their family's default.
  'POST /v1/agents/:agent_id/messages': needs('message_agents'),
  'POST /v1/agents/:agent_id/messages/stream': needs('message_agents'),
  'POST /v1/agents/:agent_id/messages/async': needs('message_agents'),
  'POST /v1/agents/:agent_id/messages/cancel': needs('message_agents'),
  'POST /v1/agents/:agent_id/messages/preview-raw-payload': needs(agents.read),
  'POST /v1/agents/:agent_id/recompile': needs(agents.update),
  // Conversations are how a member chats with an agent: keeping them (new, rename, archive, fork, delete) is messaging.
  'POST /v1/conversations': needs('message_agents'),
  'PATCH /v1/conversations/:conversation_id': needs('message_agents'),
  'DELETE /v1/conversations/:conversation_id': needs('message_agents'),
  'POST /v1/conversations/:conversation_id/messages': needs('message_agents'),
  'POST /v1/conversations/:conversation_id/cancel': needs('message_agents'),
  'POST /v1/conversations/:conversation_id/fork': needs('message_agents'),
  'POST /v1/conversations/:conversation_id/stream': needs(agents.read),
  'POST /v1/conversations/:conversation_id/compact': needs(agents.update),
  'POST /v1/conversations/:conversation_id/recompile': needs(agents.update),
  'PATCH /v1/agents/:agent_id/messages/:message_id': needs(agents.update),
  'PATCH /v1/agents/:agent_id/reset-messages': needs(agents.update),
  'PATCH /v1/groups/:group_id/messages/:message_id': needs(agents.update),
  'PATCH /v1/groups/:group_id/reset-messages': needs(agents.update),
  'PATCH /v1/groups/:group_id/blocks/attach/:block_id': needs(agents.update),
  'PATCH /v1/groups/:group_id/blocks/detach/:block_id': needs(agents.update),
  'PATCH /v1/agents/:agent_id/core-memory/blocks/:block_label': needs(agents.update),
  'PATCH /v1/agents/:agent_id/core-memory/blocks/attach/:block_id': needs(agents.update),
  'PATCH /v1/agents/:agent_id/core-memory/blocks/detach/:block_id': needs(agents.update),
  'PATCH /v1/agents/:agent_id/tools/attach/:tool_id': needs(agents.update),
  'PATCH /v1/agents/:agent_id/tools/detach/:tool_id': needs(agents.update),
  'PATCH /v1/agents/:agent_id/tools/approval/:tool_name': needs(agents.update),
  // Runs code with the agent's secrets, and archival inserts change its memory: an edit of the agent, not a read.
  'POST /v1/agents/:agent_id/tools/:tool_name/run': needs(agents.update),
  'PATCH /v1/agents/:agent_id/folders/attach/:folder_id': needs(agents.update),
  'PATCH /v1/agents/:agent_id/folders/detach/:folder_id': needs(agents.update),
  'PATCH /v1/agents/:agent_id/sources/attach/:source_id': needs(agents.update),
  'PATCH /v1/agents/:agent_id/sources/detach/:source_id': needs(agents.update),
  'PATCH /v1/agents/:agent_id/files/:file_id/open': needs(agents.update),
  'PATCH /v1/agents/:agent_id/files/:file_id/close': needs(agents.update),
  'PATCH /v1/agents/:agent_id/files/close-all': needs(agents.update),
  'PATCH /v1/agents/:agent_id/identities/attach/:identity_id': needs(agents.update),
  'PATCH /v1/agents/:agent_id/identities/detach/:identity_id': needs(agents.update),
  'PATCH /v1/blocks/:block_id/identities/attach/:identity_id': needs(agents.update),
  'PATCH /v1/blocks/:block_id/identities/detach/:identity_id': needs(agents.update),
  'PUT /v1/identities': needs(agents.create, agents.update),
  'PUT /v1/identities/:identity_id/properties': needs(agents.update),
  // A search: it reads traces, whatever its method.
  'POST /api/observability/traces': needs(agents.read),
  'POST /v1/agents/search': needs(agents.read),
  'POST /v1/agents/messages/search': needs(agents.read),
  'POST /v1/agents/import': needs(agents.create),
  'POST /v1/runs/:run_id/stream': needs(agents.read),
  'PATCH /v1/jobs/:job_id/cancel': needs('message_agents'),
  'PATCH /v1/steps/:step_id/feedback': needs(agents.update),
  'PATCH /v1/steps/:step_id/transaction/:transaction_id': needs(agents.update),
  'POST /v1/sandbox-config/:sandbox_config_id/environment-variable': needs(RESOURCE_PERMISSIONS.tools.update),
  'PATCH /v1/sandbox-config/environment-variable/:env_var_id': needs(RESOURCE_PERMISSIONS.tools.update),
  'DELETE /v1/sandbox-config/environment-variable/:env_var_id': needs(RESOURCE_PERMISSIONS.tools.update),
  'POST /v1/chat/completions': needs('message_agents'),
  'POST /v1/messages/batches': needs('message_agents'),
  'PATCH /v1/messages/batches/:batch_id/cancel': needs('message_agents'),
  // A file uploaded into a folder is a new data source item; deleting one is a deletion, not a change to the folder.
  'POST /v1/folders/:folder_id/upload': needs(RESOURCE_PERMISSIONS.dataSources.create),
  'DELETE /v1/folders/:folder_id/:file_id': needs(RESOURCE_PERMISSIONS.dataSources.delete),
  'POST /v1/sources/:source_id/upload': needs(RESOURCE_PERMISSIONS.dataSources.create),
  'DELETE /v1/sources/:source_id/:file_id': needs(RESOURCE_PERMISSIONS.dataSources.delete),
  // Templates: saving, rolling back, renaming and describing change a template; agents made from one are agents.
  'POST /v1/templates/:template/save': needs(RESOURCE_PERMISSIONS.templates.update),
  'POST /v1/templates/:template/rollback': needs(RESOURCE_PERMISSIONS.templates.update),
  'POST /v1/templates/:template/fork': needs(RESOURCE_PERMISSIONS.templates.create),
  'PATCH /v1/templates/:template/name': needs(RESOURCE_PERMISSIONS.templates.update),
  'PATCH /v1/templates/:template/description': needs(RESOURCE_PERMISSIONS.templates.update),
  'POST /v1/templates/:template/agents': needs(agents.create, RESOURCE_PERMISSIONS.templates.read),
  'POST /v1/templates/:template/migrate': needs(RESOURCE_PERMISSIONS.templates.update, agents.update),
  'DELETE /v1/_internal_templates/deployment/:deployment_id': needs(agents.delete),
  // A deployment's entities made one by one are agents and blocks (blocks are the agents' family).
  'POST /v1/_internal_templates/agents': needs(agents.create),
  'POST /v1/_internal_templates/blocks': needs(agents.create),
  'POST /v1/_internal_templates/blocks/batch': needs(agents.create),
  'POST /api/agent-templates/migrations/:workflowId/abort': needs(RESOURCE_PERMISSIONS.templates.update),
  'PATCH /api/agent-templates/:agentTemplateId/name': needs(RESOURCE_PERMISSIONS.templates.update),
  'POST /api/agent-templates/:agentTemplateId/fork': needs(RESOURCE_PERMISSIONS.templates.create),
  'POST /api/agent-templates/:agentTemplateId/versions': needs(RESOURCE_PERMISSIONS.templates.update),
  'POST /api/template-versions/:slug/agents': needs(agents.create, RESOURCE_PERMISSIONS.templates.read),
  'POST /api/template-versions/:slug/migrate': needs(RESOURCE_PERMISSIONS.templates.update, agents.update),
  'POST /api/agent-template/import': needs(RESOURCE_PERMISSIONS.templates.create),
  // Attaching and detaching block templates changes the template; creating one on the way is a block template too.
  'POST /api/agent-templates/:agentTemplateId/block-templates': needs(RESOURCE_PERMISSIONS.blockTemplates.create, RESOURCE_PERMISSIONS.templates.update),
  'POST /api/agent-templates/:agentTemplateId/block-templates/:blockTemplateId': needs(
    RESOURCE_PERMISSIONS.blockTemplates.read,
    RESOURCE_PERMISSIONS.templates.update,
  ),
  'DELETE /api/agent-templates/:agentTemplateId/block-templates/:blockTemplateId': needs(RESOURCE_PERMISSIONS.templates.update),
  // A simulated agent is the template editor's: syncing writes the working state, rebuilding and new variables
  // change what the editor tests; starting its conversation over is talking to it.
  'POST /api/agent-templates/:agentTemplateId/simulated-agents/default/sync': needs(RESOURCE_PERMISSIONS.templates.update),
  'POST /api/simulated-agents/:simulatedAgentId/refresh': needs(RESOURCE_PERMISSIONS.templates.update),
  'PUT /api/simulated-agents/:simulatedAgentId/variables': needs(RESOURCE_PERMISSIONS.templates.update),
  'POST /api/simulated-agents/:simulatedAgentId/flush': needs(RESOURCE_PERMISSIONS.templates.read, 'message_agents'),
  // Sharing an agent's chat is changing who reaches the agent; a launch link is the template's.
  'GET /api/projects/:projectId/agents/:agentId/shared-chat/configuration': needs(agents.read),
  'PUT /api/projects/:projectId/agents/:agentId/shared-chat/configuration': needs(agents.update),
  'POST /api/agent-templates/:agentTemplateId/launch-link': needs(RESOURCE_PERMISSIONS.templates.update),
  'PUT /api/agent-templates/:agentTemplateId/launch-link': needs(RESOURCE_PERMISSIONS.templates.update),
  // Public on purpose: a shared chat, a launch link and a published agent file admit each visitor by their own
  // access level, read on every request (services/sharing), signed in or not.
  'GET /api/chat/:chatId': PUBLIC,
  'GET /api/chat/:chatId/messages': PUBLIC,
  'POST /api/chat/:chatId/messages/stream': PUBLIC,
  'GET /api/launch-link-metadata/:launchId': PUBLIC,
  'POST /api/launch-links/:launchId/share-chat': PUBLIC,
  'GET /api/agent-files': PUBLIC,
  'GET /api/agent-files/:agentFileId/metadata': PUBLIC,
  'GET /api/agent-files/:agentFileId/summary': PUBLIC,
  'GET /api/agent-files/:agentFileId/details': PUBLIC,
  'GET /api/agent-files/:agentFileId/download': PUBLIC,
  // Any signed-in user may vote on a file they can read, whatever their organization.
  'POST /api/agent-files/:agentFileId/vote': ACCOUNT,
  // Publishing exports the agent for others to read: a change to who sees it.
  'POST /api/agent-files': needs(agents.read, agents.update),
  'PATCH /api/agent-files/:agentFileId/access-level': needs(agents.update),
  // A dataset's items are their own family of permissions; running a dataset makes agents from a template and messages them.
  'GET /api/datasets/:datasetId/items': needs(RESOURCE_PERMISSIONS.datasetItems.read),
  'GET /api/datasets/:datasetId/items/export': needs(RESOURCE_PERMISSIONS.datasetItems.read),
  'GET /api/datasets/:datasetId/items/:datasetItemId': needs(RESOURCE_PERMISSIONS.datasetItems.read),
  'POST /api/datasets/:datasetId/items': needs(RESOURCE_PERMISSIONS.datasetItems.create),
  'POST /api/datasets/:datasetId/items/import': needs(RESOURCE_PERMISSIONS.datasetItems.create),
  'PATCH /api/datasets/:datasetId/items/:datasetItemId': needs(RESOURCE_PERMISSIONS.datasetItems.update),
  'DELETE /api/datasets/:datasetId/items/:datasetItemId': needs(RESOURCE_PERMISSIONS.datasetItems.delete),
  // Attaching and detaching arms and changing weights update the test; the entry point makes an agent from a template;
  // stopping with a promotion deploys a version and migrates the template's agents.
  'POST /api/ab-tests/:abTestId/templates': needs(RESOURCE_PERMISSIONS.abTests.update, RESOURCE_PERMISSIONS.templates.read),
  'PATCH /api/ab-tests/:abTestId/templates/:abTestTemplateId': needs(RESOURCE_PERMISSIONS.abTests.update),
  'DELETE /api/ab-tests/:abTestId/templates/:abTestTemplateId': needs(RESOURCE_PERMISSIONS.abTests.update),
  'POST /api/ab-tests/:abTestId/stop': needs(RESOURCE_PERMISSIONS.abTests.update, RESOURCE_PERMISSIONS.templates.update, agents.update),
  'POST /v1/ab-tests/:ab_test_id/agents': needs(agents.create, RESOURCE_PERMISSIONS.abTests.read, RESOURCE_PERMISSIONS.templates.read),
  'POST /api/datasets/:datasetId/runs': needs(RESOURCE_PERMISSIONS.datasets.update, RESOURCE_PERMISSIONS.templates.read, agents.create, 'message_agents'),
};

/** A path prefix and what its routes need when they have no rule of their own. */
type Family = { prefix: string; rule: AccessRule } | { prefix: string; resource: Crud };

/** Longest prefix wins. */
const FAMILIES: Family[] = [
  { prefix: '/docs', rule: PUBLIC },
  // The OAuth protocol endpoints authenticate clients and users themselves (oidc-provider).
  { prefix: '/oauth', rule: PUBLIC },
  { prefix: '/openapi.json', rule: PUBLIC },
  { prefix: '/admin', rule: PLATFORM_ADMIN },
  { prefix: '/api/admin', rule: PLATFORM_ADMIN },
  { prefix: '/v1/admin', rule: PLATFORM_ADMIN },
  { prefix: '/v1/health', rule: PUBLIC },
  // What Letta's clients read of the caller and the plan: any member may see who they are and what is left to spend.
  { prefix: '/v1/metadata', rule: MEMBER },
  { prefix: '/v1/organizations/self/quotas', rule: MEMBER },
  { prefix: '/v1/_internal_search', rule: needs(agents.read) },
  // A migration brings a whole organization's agents, tools and identities in: an organization admin's decision.
  { prefix: '/v1/imports', rule: needs('update_organization', agents.create) },
  { prefix: '/v1/agents', resource: agents },
  { prefix: '/v1/groups', resource: agents },
  { prefix: '/v1/identities', resource: agents },
  { prefix: '/v1/blocks', resource: agents },
  { prefix: '/v1/runs', resource: agents },
  { prefix: '/v1/jobs', resource: agents },
  { prefix: '/v1/steps', resource: agents },
  { prefix: '/v1/messages', resource: agents },
  { prefix: '/v1/conversations', resource: agents },
  { prefix: '/v1/tags', resource: agents },
  { prefix: '/v1/_internal_agents', resource: agents },
  { prefix: '/v1/_internal_blocks', resource: agents },
  { prefix: '/v1/_internal_runs', resource: agents },
  { prefix: '/v1/_internal_templates', resource: RESOURCE_PERMISSIONS.templates },
  { prefix: '/v1/templates', resource: RESOURCE_PERMISSIONS.templates },
  { prefix: '/api/agent-templates', resource: RESOURCE_PERMISSIONS.templates },
  { prefix: '/api/agent-templates-memory-variables', resource: RESOURCE_PERMISSIONS.templates },
  { prefix: '/api/template-versions', resource: RESOURCE_PERMISSIONS.templates },
  { prefix: '/api/deployed-agent-templates', resource: RESOURCE_PERMISSIONS.templates },
  { prefix: '/api/templates', resource: RESOURCE_PERMISSIONS.templates },
  { prefix: '/api/simulated-agents', resource: RESOURCE_PERMISSIONS.templates },
  { prefix: '/api/block-templates', resource: RESOURCE_PERMISSIONS.blockTemplates },
  { prefix: '/api/datasets', resource: RESOURCE_PERMISSIONS.datasets },
  { prefix: '/api/dataset-runs', resource: RESOURCE_PERMISSIONS.datasets },
  { prefix: '/api/ab-tests', resource: RESOURCE_PERMISSIONS.abTests },
  { prefix: '/v1/ab-tests', resource: RESOURCE_PERMISSIONS.abTests },
  { prefix: '/v1/projects', resource: projects },
  // Traces and metrics show what agents did: reading agents is what it takes (analysts included).
  { prefix: '/api/traces', rule: needs(agents.read) },
  { prefix: '/api/observability', rule: needs(agents.read) },
  // What the agents used and cost, and the limits they run under, belong with their traces.
  { prefix: '/api/usage', rule: needs(agents.read) },
  { prefix: '/api/costs', rule: needs(agents.read) },
  { prefix: '/api/rate-limits', rule: needs(agents.read) },
  { prefix: '/v1/tools', resource: RESOURCE_PERMISSIONS.tools },
  { prefix: '/v1/mcp-servers', resource: RESOURCE_PERMISSIONS.tools },
  { prefix: '/v1/sandbox-config', resource: RESOURCE_PERMISSIONS.tools },
  { prefix: '/v1/folders', resource: RESOURCE_PERMISSIONS.dataSources },
  { prefix: '/v1/sources', resource: RESOURCE_PERMISSIONS.dataSources },
  { prefix: '/v1/archives', resource: RESOURCE_PERMISSIONS.dataSources },
  { prefix: '/v1/passages', resource: RESOURCE_PERMISSIONS.dataSources },
  { prefix: '/v1/embeddings', resource: RESOURCE_PERMISSIONS.dataSources },
  // Reading models is what choosing one for an agent needs; adding a provider's key connects an integration.
  { prefix: '/v1/models', rule: needs(agents.read) },
  { prefix: '/v1/providers', resource: { create: 'connect_integrations', read: agents.read, update: 'connect_integrations', delete: 'connect_integrations' } },
  { prefix: '/v1/client-side-access-tokens', resource: { create: 'create_api_keys', read: 'read_api_keys', update: 'create_api_keys', delete: 'delete_api_keys' } },
];

function withoutTrailingSlash(url: string): string {
  return url.length > 1 && url.endsWith('/') ? url.slice(0, -1) : url;
}

function familyOf(url: string): Family | undefined {
  let best: Family | undefined;
  for (const family of FAMILIES) {
    const matches = url === family.prefix || url.startsWith(`${family.prefix}/`);
    if (matches && (!best || family.prefix.length > best.prefix.length)) best = family;
  }
  return best;
}

const SENDS_MESSAGES = /\/messages(\/(stream|async))?$/;

/**
 * A family's default for a route it does not list: reads (and searches) need read; creating at the
 * family root needs create; updating or deleting one item (`/prefix/:id`) needs update or delete;
 * sending an agent messages needs message. Any other write needs the broadest grant (create, update
 * and delete), so a new route is never easier to reach than the resource's own writes.
 */
function familyDefault(method: string, url: string, family: Family): AccessRule {
  if ('rule' in family) return family.rule;
  const { resource } = family;
  const onOneItem = /^\/:[^/]+$/.test(url.slice(family.prefix.length));
  if (method === 'GET') return needs(resource.read);
  if (method === 'POST' && url === family.prefix) return needs(resource.create);
  if (method === 'POST' && url.endsWith('/search')) return needs(resource.read);
  if (method === 'POST' && resource === agents && SENDS_MESSAGES.test(url)) return needs('message_agents');
  if ((method === 'PATCH' || method === 'PUT') && onOneItem) return needs(resource.update);
  if (method === 'DELETE' && onOneItem) return needs(resource.delete);
  return needs(resource.create, resource.update, resource.delete);
}

/** The rule for a route as registered: its own, else its family's default, else closed. */
export function accessRuleFor(method: string, routeUrl: string, options: { public?: boolean } = {}): AccessRule {
  if (options.public) return PUBLIC;
  const url = withoutTrailingSlash(routeUrl);
  const normalizedMethod = method === 'HEAD' ? 'GET' : method;
  const own = ROUTE_RULES[`${normalizedMethod} ${url}`];
  if (own) return own;
  const family = familyOf(url);
  return family ? familyDefault(normalizedMethod, url, family) : UNMAPPED;
}

/** Who is acting, as far as access control cares. */
export type Access = {
  userId: string;
  organizationId: string | null;
  permissions: ReadonlySet<Permission>;
  isPlatformAdmin: boolean;
};

/** The permissions a rule wants that the caller lacks (empty when allowed). */
export function missingPermissions(rule: AccessRule, access: Access): Permission[] {
  if (rule.kind !== 'permission' || access.permissions.has('all_scopes')) return [];
  return rule.permissions.filter((permission) => !access.permissions.has(permission));
}
