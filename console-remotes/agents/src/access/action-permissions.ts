/*
 * The permission each action of these screens needs, so an action the member's role cannot take is hidden or
 * disabled instead of failing with 403. The console cannot import the API, so what its routes need
 * (api/src/http/permissions.ts) is repeated here; action-permissions.test.ts keeps the two equal.
 */

/** Writes to a family's root or one item need one permission; any other write of a family needs all three. */
const everyToolWrite = ['create_tools', 'update_tools', 'delete_tools'];

/** The actions these screens offer, each with what the routes behind it need. */
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
  createGroup: ['create_agents'],
  deleteGroup: ['delete_agents'],
  messageGroup: ['message_agents'],
  cancelBatch: ['message_agents'],
  createIdentity: ['create_agents'],
  updateIdentity: ['update_agents'],
  deleteIdentity: ['delete_agents'],
  /** Creating the local sandbox config, with given settings or its defaults, and rebuilding its venv. */
  createSandboxConfig: everyToolWrite,
  updateSandboxConfig: ['update_tools'],
  manageSandboxVariables: ['update_tools'],
} satisfies Record<string, readonly string[]>;

export type Action = keyof typeof ACTION_PERMISSIONS;

/** Whether a member holding `granted` may take the action. */
export function allows(granted: ReadonlySet<string>, action: Action): boolean {
  return ACTION_PERMISSIONS[action].every((permission) => granted.has(permission));
}
