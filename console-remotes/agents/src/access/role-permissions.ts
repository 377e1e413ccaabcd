/*
 * What the signed-in member may do in these screens, worked out in the browser so an action their role
 * cannot take is hidden or disabled instead of failing with 403. The console cannot import the API, so its
 * role matrix (api/src/http/permissions.ts: ROLE_PERMISSIONS) and the permission each route needs are
 * repeated here; role-permissions.test.ts keeps both equal to the API's.
 */

const reads = ['projects', 'agents', 'data_sources', 'tools', 'templates', 'datasets', 'dataset_items', 'ab_tests', 'block_templates'];

const ANALYST = [...reads.map((noun) => `read_${noun}`), 'message_agents'];
const EDITOR = [
  ...ANALYST,
  ...reads.flatMap((noun) => [`create_${noun}`, `update_${noun}`, `delete_${noun}`]),
  'manage_environment_variables',
  'create_api_keys',
  'read_api_keys',
];
const ADMIN = [...EDITOR, 'delete_api_keys', 'update_users_in_organization', 'update_organization', 'manage_billing', 'connect_integrations'];

/** What each role holds; `custom` holds exactly what an admin granted the member. */
export const ROLE_PERMISSIONS: Record<string, readonly string[]> = { admin: ADMIN, editor: EDITOR, analyst: ANALYST, custom: [] };

/** Writes to a family's root or one item need one permission; any other write of a family needs all three. */
const everyToolWrite = ['create_tools', 'update_tools', 'delete_tools'];

/** The actions these screens offer, each with what the route behind it needs. */
export const ACTION_PERMISSIONS = {
  createTool: ['create_tools'],
  updateTool: ['update_tools'],
  deleteTool: ['delete_tools'],
  /** Running unsaved source and deriving a schema from it (`POST /tools/run`, `/tools/generate-schema`). */
  tryToolSource: everyToolWrite,
  /** Attaching and detaching tools and identities, a tool's approval, running one of the agent's tools. */
  changeAgent: ['update_agents'],
  addMcpServer: ['create_tools'],
  deleteMcpServer: ['delete_tools'],
  /** Testing a config, refreshing a server's tools and running one of them. */
  useMcpServer: everyToolWrite,
  addProvider: ['connect_integrations'],
  checkProvider: ['connect_integrations'],
  replaceProviderKey: ['connect_integrations'],
  deleteProvider: ['connect_integrations'],
  createIdentity: ['create_agents'],
  updateIdentity: ['update_agents'],
  deleteIdentity: ['delete_agents'],
  /** Creating the local sandbox config, with given settings or its defaults, and rebuilding its venv. */
  createSandboxConfig: everyToolWrite,
  updateSandboxConfig: ['update_tools'],
  manageSandboxVariables: ['update_tools'],
} satisfies Record<string, readonly string[]>;

export type Action = keyof typeof ACTION_PERMISSIONS;

/** A member's effective permissions: their role's, or for `custom` the ones granted. */
export function memberPermissions(role: string, customPermissions: readonly string[]): ReadonlySet<string> {
  return new Set(role === 'custom' ? customPermissions : (ROLE_PERMISSIONS[role] ?? []));
}

export function allows(permissions: ReadonlySet<string>, action: Action): boolean {
  return ACTION_PERMISSIONS[action].every((permission) => permissions.has(permission));
}
