import { describe, expect, it } from 'vitest';
import { accessRuleFor, ROLE_PERMISSIONS as API_ROLE_PERMISSIONS } from '@engram/api/http/permissions';
import { ACTION_PERMISSIONS, allows, type Action } from './action-permissions.js';

/** The routes behind each action; an action behind several routes needs what the strictest one needs. */
const ACTION_ROUTES: Record<Action, Array<[method: string, route: string]>> = {
  createTool: [['POST', '/v1/tools/']],
  updateTool: [['PATCH', '/v1/tools/:tool_id']],
  deleteTool: [['DELETE', '/v1/tools/:tool_id']],
  tryToolSource: [
    ['POST', '/v1/tools/run'],
    ['POST', '/v1/tools/generate-schema'],
  ],
  changeAgent: [
    ['PATCH', '/v1/agents/:agent_id/tools/attach/:tool_id'],
    ['PATCH', '/v1/agents/:agent_id/tools/detach/:tool_id'],
    ['PATCH', '/v1/agents/:agent_id/tools/approval/:tool_name'],
    ['POST', '/v1/agents/:agent_id/tools/:tool_name/run'],
    ['PATCH', '/v1/agents/:agent_id/identities/attach/:identity_id'],
    ['PATCH', '/v1/agents/:agent_id/identities/detach/:identity_id'],
  ],
  addMcpServer: [['POST', '/v1/mcp-servers/']],
  deleteMcpServer: [['DELETE', '/v1/mcp-servers/:mcp_server_id']],
  useMcpServer: [
    ['POST', '/v1/tools/mcp/servers/test'],
    ['PATCH', '/v1/mcp-servers/:mcp_server_id/refresh'],
    ['POST', '/v1/mcp-servers/:mcp_server_id/tools/:tool_id/run'],
  ],
  addProvider: [['POST', '/v1/providers/']],
  checkProvider: [
    ['POST', '/v1/providers/check'],
    ['POST', '/v1/providers/:provider_id/check'],
  ],
  replaceProviderKey: [['PATCH', '/v1/providers/:provider_id']],
  deleteProvider: [['DELETE', '/v1/providers/:provider_id']],
  createGroup: [['POST', '/v1/groups/']],
  deleteGroup: [['DELETE', '/v1/groups/:group_id']],
  messageGroup: [['POST', '/v1/groups/:group_id/messages']],
  cancelBatch: [['PATCH', '/v1/messages/batches/:batch_id/cancel']],
  createIdentity: [['POST', '/v1/identities/']],
  updateIdentity: [
    ['PATCH', '/v1/identities/:identity_id'],
    ['PUT', '/v1/identities/:identity_id/properties'],
  ],
  deleteIdentity: [['DELETE', '/v1/identities/:identity_id']],
  createSandboxConfig: [
    ['POST', '/v1/sandbox-config/local'],
    ['POST', '/v1/sandbox-config/local/default'],
    ['POST', '/v1/sandbox-config/local/recreate-venv'],
  ],
  updateSandboxConfig: [['PATCH', '/v1/sandbox-config/:sandbox_config_id']],
  manageSandboxVariables: [
    ['POST', '/v1/sandbox-config/:sandbox_config_id/environment-variable'],
    ['PATCH', '/v1/sandbox-config/environment-variable/:env_var_id'],
    ['DELETE', '/v1/sandbox-config/environment-variable/:env_var_id'],
  ],
};

function needed(method: string, route: string): string[] {
  const rule = accessRuleFor(method, route);
  if (rule.kind !== 'permission') throw new Error(`${method} ${route} is not guarded by permissions`);
  return [...rule.permissions];
}

const holding = (role: keyof typeof API_ROLE_PERMISSIONS) => new Set<string>(API_ROLE_PERMISSIONS[role]);

describe("the agents remote's copy of the access rules", () => {
  it('asks of each action what the API asks of the routes behind it', () => {
    for (const [action, routes] of Object.entries(ACTION_ROUTES)) {
      const strictest = [...new Set(routes.flatMap(([method, route]) => needed(method, route)))].sort();
      expect([...ACTION_PERMISSIONS[action as Action]].sort(), action).toEqual(strictest);
    }
  });

  it('lets an analyst read only, an editor change tools and agents, and only an admin connect providers', () => {
    const [analyst, editor, admin] = [holding('analyst'), holding('editor'), holding('admin')];
    expect(allows(analyst, 'createTool') || allows(analyst, 'tryToolSource') || allows(analyst, 'changeAgent')).toBe(false);
    expect(allows(editor, 'createTool') && allows(editor, 'tryToolSource') && allows(editor, 'useMcpServer') && allows(editor, 'updateIdentity')).toBe(true);
    expect(allows(editor, 'addProvider')).toBe(false);
    expect(allows(admin, 'addProvider') && allows(admin, 'deleteProvider')).toBe(true);
  });

  it('needs every permission of an action: one of three tool writes is not enough to run source', () => {
    expect(allows(new Set(['create_tools', 'read_tools']), 'createTool')).toBe(true);
    expect(allows(new Set(['create_tools', 'read_tools']), 'tryToolSource')).toBe(false);
  });
});
