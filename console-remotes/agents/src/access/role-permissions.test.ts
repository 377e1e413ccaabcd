import { describe, expect, it } from 'vitest';
import { accessRuleFor, ROLE_PERMISSIONS as API_ROLE_PERMISSIONS } from '@engram/api/http/permissions';
import { ACTION_PERMISSIONS, allows, memberPermissions, ROLE_PERMISSIONS, type Action } from './role-permissions.js';

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

describe("the agents remote's copy of the access rules", () => {
  it('gives each role exactly the permissions the API gives it', () => {
    for (const [role, permissions] of Object.entries(API_ROLE_PERMISSIONS)) {
      expect([...(ROLE_PERMISSIONS[role] ?? [])].sort(), role).toEqual([...permissions].sort());
    }
  });

  it('asks of each action what the API asks of the routes behind it', () => {
    for (const [action, routes] of Object.entries(ACTION_ROUTES)) {
      const strictest = [...new Set(routes.flatMap(([method, route]) => needed(method, route)))].sort();
      expect([...ACTION_PERMISSIONS[action as Action]].sort(), action).toEqual(strictest);
    }
  });

  it('lets an analyst read only, an editor change tools and agents, and only an admin connect providers', () => {
    const analyst = memberPermissions('analyst', []);
    const editor = memberPermissions('editor', []);
    const admin = memberPermissions('admin', []);
    expect(allows(analyst, 'createTool') || allows(analyst, 'tryToolSource') || allows(analyst, 'changeAgent')).toBe(false);
    expect(allows(editor, 'createTool') && allows(editor, 'tryToolSource') && allows(editor, 'useMcpServer') && allows(editor, 'updateIdentity')).toBe(true);
    expect(allows(editor, 'addProvider')).toBe(false);
    expect(allows(admin, 'addProvider') && allows(admin, 'deleteProvider')).toBe(true);
  });

  it('gives a custom member exactly what was granted, whatever the role matrix says', () => {
    const toolsOnly = memberPermissions('custom', ['create_tools', 'read_tools']);
    expect(allows(toolsOnly, 'createTool')).toBe(true);
    expect(allows(toolsOnly, 'tryToolSource')).toBe(false);
    expect(allows(memberPermissions('unknown-role', []), 'createTool')).toBe(false);
  });
});
