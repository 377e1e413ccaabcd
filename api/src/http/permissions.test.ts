import { describe, expect, it } from 'vitest';
import { accessRuleFor, effectivePermissions, missingPermissions, PERMISSIONS, ROLE_PERMISSIONS, UNMAPPED, type Permission } from './permissions.js';

const reads = ['read_projects', 'read_agents', 'read_data_sources', 'read_tools', 'read_templates', 'read_datasets', 'read_dataset_items', 'read_ab_tests', 'read_block_templates'];

describe('the role matrix (spec 001 §6)', () => {
  it('gives analysts reads and messaging only', () => {
    expect([...ROLE_PERMISSIONS.analyst].sort()).toEqual([...reads, 'message_agents'].sort());
  });

  it('gives editors the analyst permissions plus writes, environment variables and creating and reading API keys', () => {
    const editor = ROLE_PERMISSIONS.editor;
    for (const permission of ROLE_PERMISSIONS.analyst) expect(editor.has(permission)).toBe(true);
    for (const noun of ['projects', 'templates', 'agents', 'tools', 'data_sources', 'datasets', 'dataset_items', 'ab_tests', 'block_templates']) {
      for (const verb of ['create', 'update', 'delete']) expect(editor.has(`${verb}_${noun}` as Permission)).toBe(true);
    }
    expect(editor.has('manage_environment_variables')).toBe(true);
    expect(editor.has('create_api_keys') && editor.has('read_api_keys')).toBe(true);
    for (const adminOnly of ['delete_api_keys', 'update_users_in_organization', 'update_organization', 'manage_billing', 'connect_integrations'] as const) {
      expect(editor.has(adminOnly)).toBe(false);
    }
  });

  it('gives admins everything but the internal all-scopes permission, and custom members nothing by default', () => {
    expect([...ROLE_PERMISSIONS.admin].sort()).toEqual(PERMISSIONS.filter((permission) => permission !== 'all_scopes').sort());
    expect(ROLE_PERMISSIONS.custom.size).toBe(0);
  });

  it('grants custom members exactly the assignable permissions they were given', () => {
    expect([...effectivePermissions('custom', ['read_agents', 'not_a_permission', 'all_scopes'])]).toEqual(['read_agents']);
    expect(effectivePermissions('analyst', ['delete_agents']).has('delete_agents')).toBe(false);
  });
});

describe('route rules', () => {
  it('maps listed routes to their own rule, whatever the trailing slash or HEAD', () => {
    expect(accessRuleFor('POST', '/v1/agents/:agent_id/messages/stream')).toEqual({ kind: 'permission', permissions: ['message_agents'] });
    expect(accessRuleFor('DELETE', '/api/api-keys/:apiKeyId')).toEqual({ kind: 'permission', permissions: ['delete_api_keys'] });
    expect(accessRuleFor('POST', '/v1/agents/')).toEqual({ kind: 'permission', permissions: ['create_agents'] });
    expect(accessRuleFor('HEAD', '/v1/agents/:agent_id')).toEqual({ kind: 'permission', permissions: ['read_agents'] });
    expect(accessRuleFor('POST', '/api/user/login')).toEqual({ kind: 'public' });
    expect(accessRuleFor('GET', '/v1/anything', { public: true })).toEqual({ kind: 'public' });
  });

  it('gives unlisted routes their family default, the broadest for unknown writes', () => {
    expect(accessRuleFor('GET', '/v1/groups/:group_id')).toEqual({ kind: 'permission', permissions: ['read_agents'] });
    expect(accessRuleFor('POST', '/v1/groups/:group_id/messages')).toEqual({ kind: 'permission', permissions: ['message_agents'] });
    expect(accessRuleFor('POST', '/v1/folders')).toEqual({ kind: 'permission', permissions: ['create_data_sources'] });
    expect(accessRuleFor('PATCH', '/v1/folders/:folder_id')).toEqual({ kind: 'permission', permissions: ['update_data_sources'] });
    expect(accessRuleFor('DELETE', '/v1/folders/:folder_id')).toEqual({ kind: 'permission', permissions: ['delete_data_sources'] });
    expect(accessRuleFor('POST', '/v1/agents/:agent_id/some-new-thing')).toEqual({
      kind: 'permission',
      permissions: ['create_agents', 'update_agents', 'delete_agents'],
    });
    expect(accessRuleFor('GET', '/api/admin/organizations')).toEqual({ kind: 'platform_admin' });
  });

  it('lets whoever reads agents read their traces and metrics, the trace search included', () => {
    const readAgents = { kind: 'permission', permissions: ['read_agents'] };
    expect(accessRuleFor('GET', '/api/traces/:traceId')).toEqual(readAgents);
    expect(accessRuleFor('POST', '/api/observability/traces')).toEqual(readAgents);
    expect(accessRuleFor('GET', '/api/observability/metrics/latency')).toEqual(readAgents);
    expect(accessRuleFor('GET', '/v1/runs/:run_id/trace')).toEqual(readAgents);
  });

  it('leaves routes outside every family to admins alone', () => {
    expect(accessRuleFor('GET', '/v1/something-new')).toBe(UNMAPPED);
    expect(accessRuleFor('GET', '/api/something-new')).toBe(UNMAPPED);
    const as = (role: 'admin' | 'editor' | 'analyst') => ({ userId: 'user-1', organizationId: 'org-1', permissions: ROLE_PERMISSIONS[role], isPlatformAdmin: false });
    expect(missingPermissions(UNMAPPED, as('admin'))).toEqual([]);
    expect(missingPermissions(UNMAPPED, as('editor'))).toEqual(['delete_api_keys', 'update_organization', 'update_users_in_organization', 'manage_billing', 'connect_integrations']);
    expect(missingPermissions(UNMAPPED, as('analyst')).length).toBeGreaterThan(30);
  });

  it('lets the internal all-scopes permission stand for every other', () => {
    const internal = { userId: 'user-1', organizationId: 'org-1', permissions: new Set<Permission>(['all_scopes']), isPlatformAdmin: false };
    expect(missingPermissions(accessRuleFor('DELETE', '/api/api-keys/:apiKeyId'), internal)).toEqual([]);
  });
});
