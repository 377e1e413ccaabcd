import { existsSync, rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SandboxEnvironmentVariable } from '@engram/db';
import { defaultVenvRoot } from '@engram/integrations/tools';
import { startTestStack, type TestStack } from '@engram/testing';

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack({ inProcessWorker: false });
});

afterAll(async () => {
  await stack?.stop();
});

/** Response bodies are checked field by field, so they are read untyped. */
type JsonResponse = Omit<Response, 'json'> & { json(): Promise<any> };

/** Each test works in an organization of its own: an organization has one sandbox config per type. */
async function tenantApi() {
  const tenant = await stack.createTenant();
  const call = (method: string, path: string, body?: unknown): Promise<JsonResponse> =>
    fetch(`${stack.baseUrl}/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${tenant.apiKey.key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  return { tenant, call };
}

describe('sandbox configs', () => {
  it('creates the default local config once, with its settings', async () => {
    const { tenant, call } = await tenantApi();
    const first = await call('POST', '/sandbox-config/local/default');
    expect(first.status).toBe(200);
    const config = await first.json();
    expect(config).toEqual({
      id: expect.stringMatching(/^sandbox-[0-9a-f-]{36}$/),
      type: 'local',
      config: { sandbox_dir: null, use_venv: false, venv_name: 'venv', pip_requirements: [], timeout: 180 },
      organization_id: tenant.organizationId,
      created_by_id: tenant.userId,
      last_updated_by_id: tenant.userId,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect((await (await call('POST', '/sandbox-config/local/default')).json()).id).toBe(config.id);
  });

  it('tells the config type from its keys, keeps one config per type, and lists them by type', async () => {
    const { call } = await tenantApi();
    const e2b = await (await call('POST', '/sandbox-config/', { config: { template: 'my-template', timeout: 120 } })).json();
    expect(e2b).toMatchObject({ type: 'e2b', config: { template: 'my-template', timeout: 120 } });

    const local = await (await call('POST', '/sandbox-config/', { config: { use_venv: true, pip_requirements: [{ name: 'requests', version: '2.32.3' }] } })).json();
    expect(local).toMatchObject({ type: 'local', config: { use_venv: true, pip_requirements: [{ name: 'requests', version: '2.32.3' }] } });
    const replaced = await (await call('POST', '/sandbox-config/local', { use_venv: false, venv_name: 'tools' })).json();
    expect(replaced).toMatchObject({ id: local.id, type: 'local', config: { use_venv: false, venv_name: 'tools' } });

    const all = await (await call('GET', '/sandbox-config/')).json();
    expect(all.map((config: { id: string }) => config.id)).toEqual([e2b.id, local.id]);
    expect((await (await call('GET', '/sandbox-config/?sandbox_type=e2b')).json()).map((config: { id: string }) => config.id)).toEqual([e2b.id]);
    expect(await (await call('GET', `/sandbox-config/?after=${e2b.id}&limit=1`)).json()).toHaveLength(1);

    const unknownKey = await call('POST', '/sandbox-config/local', { use_venv: true, shell: '/bin/sh' });
    expect(unknownKey.status).toBe(422);
    const badRequirement = await call('POST', '/sandbox-config/', { config: { use_venv: true, pip_requirements: [{ name: '--index-url=http://evil' }] } });
    expect(badRequirement.status).toBe(422);
    expect((await badRequirement.json()).detail[0].loc).toEqual(['body', 'config', 'pip_requirements', 0, 'name']);
  });

  it('patches the settings given, checked against the config type, and deletes with 204', async () => {
    const { call } = await tenantApi();
    const config = await (await call('POST', '/sandbox-config/local/default')).json();
    const patched = await (await call('PATCH', `/sandbox-config/${config.id}`, { config: { timeout: 30 } })).json();
    expect(patched.config).toEqual({ ...config.config, timeout: 30 });
    expect((await call('PATCH', `/sandbox-config/${config.id}`, { config: { template: 'e2b-only' } })).status).toBe(422);

    const other = await tenantApi();
    expect((await other.call('PATCH', `/sandbox-config/${config.id}`, { config: { timeout: 5 } })).status).toBe(404);
    expect((await other.call('DELETE', `/sandbox-config/${config.id}`)).status).toBe(404);

    const deleted = await call('DELETE', `/sandbox-config/${config.id}`);
    expect(deleted.status).toBe(204);
    expect(await deleted.text()).toBe('');
    expect((await call('DELETE', `/sandbox-config/${config.id}`)).status).toBe(404);
  });
});

describe('sandbox environment variables', () => {
  it('stores values encrypted, shows them masked, and updates and deletes them', async () => {
    const { tenant, call } = await tenantApi();
    const config = await (await call('POST', '/sandbox-config/local/default')).json();
    const created = await call('POST', `/sandbox-config/${config.id}/environment-variable`, {
      key: 'WEATHER_API_KEY',
      value: 'wk-live-1234567890',
      description: 'for the weather tool',
    });
    expect(created.status).toBe(200);
    const variable = await created.json();
    expect(variable).toEqual({
      id: expect.stringMatching(/^sandbox-env-[0-9a-f-]{36}$/),
      key: 'WEATHER_API_KEY',
      value: 'wk-l****7890',
      description: 'for the weather tool',
      sandbox_config_id: config.id,
      organization_id: tenant.organizationId,
      value_enc: null,
      created_by_id: tenant.userId,
      last_updated_by_id: tenant.userId,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });

    const row = await SandboxEnvironmentVariable.query(stack.db).findById(variable.id);
    expect(row!.valueEnc).toMatch(/^v1:/);
    expect(row!.valueEnc).not.toContain('wk-live-1234567890');
    const rawRow = await stack.db('sandbox_environment_variables').where({ id: variable.id }).first();
    expect(JSON.stringify(rawRow)).not.toContain('1234567890');

    const listed = await (await call('GET', `/sandbox-config/${config.id}/environment-variable`)).json();
    expect(listed).toEqual([variable]);

    const duplicate = await call('POST', `/sandbox-config/${config.id}/environment-variable`, { key: 'WEATHER_API_KEY', value: 'other' });
    expect(duplicate.status).toBe(409);

    const updated = await (await call('PATCH', `/sandbox-config/environment-variable/${variable.id}`, { value: 'short' })).json();
    expect(updated).toMatchObject({ id: variable.id, key: 'WEATHER_API_KEY', value: '****', description: 'for the weather tool' });
    const resealed = await SandboxEnvironmentVariable.query(stack.db).findById(variable.id);
    expect(resealed!.valueEnc).not.toBe(row!.valueEnc);

    const other = await tenantApi();
    expect((await other.call('PATCH', `/sandbox-config/environment-variable/${variable.id}`, { value: 'x' })).status).toBe(404);
    expect((await other.call('GET', `/sandbox-config/${config.id}/environment-variable`)).status).toBe(404);

    expect((await call('DELETE', `/sandbox-config/environment-variable/${variable.id}`)).status).toBe(204);
    expect(await (await call('GET', `/sandbox-config/${config.id}/environment-variable`)).json()).toEqual([]);
  });

  it('accepts only names and values a process environment can hold', async () => {
    const { call } = await tenantApi();
    const config = await (await call('POST', '/sandbox-config/local/default')).json();
    expect((await call('POST', `/sandbox-config/${config.id}/environment-variable`, { key: 'A=B', value: 'x' })).status).toBe(422);
    expect((await call('POST', `/sandbox-config/${config.id}/environment-variable`, { key: 'OK', value: 'a\u0000b' })).status).toBe(422);
  });
});

describe('POST /sandbox-config/local/recreate-venv', () => {
  it('builds the venv the local sandbox then runs tools in', async () => {
    const { tenant, call } = await tenantApi();
    const config = await (await call('POST', '/sandbox-config/local', { use_venv: true, venv_name: 'tools-venv' })).json();
    const response = await call('POST', '/sandbox-config/local/recreate-venv');
    expect(response.status).toBe(200);
    expect((await response.json()).id).toBe(config.id);
    const venvDir = `${defaultVenvRoot()}/${tenant.organizationId}/${config.id}/tools-venv`;
    expect(existsSync(`${venvDir}/bin/python`)).toBe(true);

    const run = await (await call('POST', '/tools/run', { source_code: 'import sys\ndef where():\n    return sys.prefix', args: {} })).json();
    expect(run).toMatchObject({ status: 'success', tool_return: venvDir });
    rmSync(`${defaultVenvRoot()}/${tenant.organizationId}`, { recursive: true, force: true });
  });

  it('fails fast with 502 and says why when the requirements cannot be installed', async () => {
    const { tenant, call } = await tenantApi();
    await call('POST', '/sandbox-config/local', { use_venv: true, pip_requirements: [{ name: 'engram-package-that-does-not-exist' }] });
    const started = Date.now();
    const response = await call('POST', '/sandbox-config/local/recreate-venv');
    expect(Date.now() - started).toBeLessThan(60_000);
    expect(response.status).toBe(502);
    expect((await response.json()).detail).toMatch(
      /^pip could not install engram-package-that-does-not-exist \(is a package index reachable from this server\?\): /,
    );
    rmSync(`${defaultVenvRoot()}/${tenant.organizationId}`, { recursive: true, force: true });
  });
});
