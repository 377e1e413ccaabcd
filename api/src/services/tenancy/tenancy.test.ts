import { afterAll, describe, expect, it } from 'vitest';
import { ApiKey, Organization, OrganizationMember, Project, User } from '@engram/db';
import { startTestStack } from '@engram/testing';

const stack = await startTestStack({ inProcessWorker: false });
afterAll(() => stack.stop());

describe('API keys', () => {
  it('stores only a hash and authenticates the key as its creator in its organization', async () => {
    const tenant = await stack.createTenant('keys org');
    const rows = await ApiKey.query(stack.db).forOrg(tenant.organizationId);
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(tenant.apiKey.key);
    expect(rows[0]?.keyHash).toMatch(/^[0-9a-f]{64}$/);

    const principal = await stack.services.apiKeys.authenticate(tenant.apiKey.key);
    expect(principal).toEqual({
      organizationId: tenant.organizationId,
      userId: tenant.userId,
      role: 'admin',
      customPermissions: [],
      isPlatformAdmin: false,
      apiKeyId: tenant.apiKey.id,
    });
    expect(await stack.services.apiKeys.authenticate(`${tenant.apiKey.key}x`)).toBeNull();
  });

  it('issues random keys that differ every time', async () => {
    const first = await stack.createTenant();
    const second = await stack.createTenant();
    expect(first.apiKey.key).not.toBe(second.apiKey.key);
    expect(first.apiKey.key).toMatch(/^sk-engram-[A-Za-z0-9_-]{43}$/);
  });
});

describe('organizations', () => {
  it('creates an organization with an admin user and a default project', async () => {
    const tenant = await stack.createTenant('acme');
    expect(await Organization.query(stack.db).findById(tenant.organizationId)).toMatchObject({ name: 'acme' });
    expect(await OrganizationMember.query(stack.db).forOrg(tenant.organizationId)).toEqual([
      expect.objectContaining({ userId: tenant.userId, role: 'admin' }),
    ]);
    expect(await User.query(stack.db).findById(tenant.userId)).toMatchObject({ activeOrganizationId: tenant.organizationId });
    const resolved = await stack.services.organizations.resolveProject(tenant.organizationId, {});
    expect(resolved).toBe(tenant.projectId);
    expect(await Project.query(stack.db).findById(resolved)).toMatchObject({ slug: 'default-project', isDefault: true });
  });

  it("never resolves another organization's project", async () => {
    const mine = await stack.createTenant();
    const theirs = await stack.createTenant();
    await expect(
      stack.services.organizations.resolveProject(mine.organizationId, { id: theirs.projectId }),
    ).rejects.toThrow('Project not found');
    await expect(
      stack.services.organizations.resolveProject(mine.organizationId, { slug: 'default-project' }),
    ).resolves.toBe(mine.projectId);
  });

  it('bootstraps only an empty database', async () => {
    await expect(stack.services.organizations.bootstrapIfEmpty()).resolves.toBeNull();
  });
});
