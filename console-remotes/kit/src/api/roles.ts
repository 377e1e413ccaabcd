/*
 * Organization roles and the permissions an admin may grant a `custom` member, as the console API
 * knows them (api/src/http/permissions.ts: ROLES, ASSIGNABLE_PERMISSIONS); the browser cannot import
 * the API, so they are repeated here, grouped for the role picker.
 */

export const ROLES = ['admin', 'editor', 'analyst', 'custom'] as const;

export type Role = (typeof ROLES)[number];

export const ROLE_DESCRIPTIONS: Record<Role, string> = {
  admin: 'Everything, including members, billing and integrations.',
  editor: 'Builds and changes agents, tools, projects and data; manages environment variables and creates API keys.',
  analyst: 'Reads everything and messages agents.',
  custom: 'Exactly the permissions you choose.',
};

type Noun = 'agents' | 'tools' | 'data_sources' | 'projects' | 'templates' | 'datasets' | 'dataset_items' | 'ab_tests' | 'block_templates';

/** A permission a member can hold (roles.test.ts checks the list equals the API's). */
export type Permission =
  | `${'create' | 'read' | 'update' | 'delete'}_${Noun}`
  | 'message_agents'
  | 'create_api_keys'
  | 'read_api_keys'
  | 'delete_api_keys'
  | 'update_organization'
  | 'update_users_in_organization'
  | 'manage_environment_variables'
  | 'manage_billing'
  | 'connect_integrations';

export type PermissionGroup = { label: string; permissions: Array<{ value: Permission; label: string }> };

const crud = (noun: Noun, label: string): PermissionGroup => ({
  label,
  permissions: [
    { value: `create_${noun}`, label: 'Create' },
    { value: `read_${noun}`, label: 'Read' },
    { value: `update_${noun}`, label: 'Update' },
    { value: `delete_${noun}`, label: 'Delete' },
  ],
});

const agentPermissions = crud('agents', 'Agents');

/** Every grantable permission, once, by what it is about. */
export const PERMISSION_GROUPS: PermissionGroup[] = [
  {
    label: 'Organization',
    permissions: [
      { value: 'update_organization', label: 'Update the organization' },
      { value: 'update_users_in_organization', label: 'Manage members and invites' },
      { value: 'manage_environment_variables', label: 'Manage environment variables' },
      { value: 'manage_billing', label: 'Manage billing' },
      { value: 'connect_integrations', label: 'Connect integrations' },
    ],
  },
  {
    label: 'API keys',
    permissions: [
      { value: 'create_api_keys', label: 'Create' },
      { value: 'read_api_keys', label: 'Read' },
      { value: 'delete_api_keys', label: 'Delete' },
    ],
  },
  { ...agentPermissions, permissions: [...agentPermissions.permissions, { value: 'message_agents', label: 'Message' }] },
  crud('tools', 'Tools'),
  crud('data_sources', 'Data sources'),
  crud('projects', 'Projects'),
  crud('templates', 'Templates'),
  crud('datasets', 'Datasets'),
  crud('dataset_items', 'Dataset items'),
  crud('ab_tests', 'A/B tests'),
  crud('block_templates', 'Block templates'),
];

export const ASSIGNABLE_PERMISSIONS: Permission[] = PERMISSION_GROUPS.flatMap((group) => group.permissions.map((permission) => permission.value));
