import { grantPeriodCredits, Organization, OrganizationMember, Project, User, newId, type Database } from '@engram/db';
import { NotFoundError } from '../../errors.js';
import type { ApiKeyService, IssuedApiKey } from './api-keys.js';

export type CreatedTenant = {
  organizationId: string;
  userId: string;
  projectId: string;
  apiKey: IssuedApiKey;
};

const DEFAULT_PROJECT = { name: 'Default Project', slug: 'default-project' } as const;

/**
 * A new organization on the free tier, with its default project and this period's credit grant: the billing period
 * schedule grants the periods after this one (the same per-period key, so never twice).
 */
export async function insertOrganizationRecords(trx: Database, name: string): Promise<{ organization: Organization; projectId: string }> {
  const organization = await Organization.query(trx).insert({ id: newId('organization'), name }).returning('*');
  const projectId = newId('project');
  await Project.query(trx).insert({ id: projectId, organizationId: organization.id, ...DEFAULT_PROJECT, isDefault: true });
  await grantPeriodCredits(trx, { organizationId: organization.id, tier: organization.billingTier, at: new Date() });
  return { organization, projectId };
}

/** An organization with its default project, and the user as its first admin. */
async function insertOrganization(trx: Database, input: { name: string; adminUserId: string }) {
  const { organization, projectId } = await insertOrganizationRecords(trx, input.name);
  await OrganizationMember.query(trx).insert({ organizationId: organization.id, userId: input.adminUserId, role: 'admin' });
  return { organizationId: organization.id, projectId };
}

/** Inside a caller's transaction: a new organization the user administers and switches to. */
export async function addOrganizationForUser(trx: Database, userId: string, name: string) {
  const created = await insertOrganization(trx, { name, adminUserId: userId });
  await User.query(trx).findById(userId).patch({ activeOrganizationId: created.organizationId });
  return created;
}

export function createOrganizationService(deps: { db: Database; apiKeys: Pick<ApiKeyService, 'issue'> }) {
  const { db } = deps;

  async function find(organizationId: string): Promise<Organization> {
    const organization = await Organization.query(db).findById(organizationId);
    if (!organization) throw new NotFoundError('Organization');
    return organization;
  }

  return {
    /**
     * An organization with a new admin user (no password), its default project and first API key.
     * A claimable admin is taken over by the first account to sign up (accounts/account-service.ts).
     */
    async createWithAdmin(input: { name: string; adminName: string; adminEmail?: string; claimableByFirstSignUp?: boolean; firstStart?: boolean }): Promise<CreatedTenant> {
      const userId = newId('user');
      const created = await db.transaction(async (trx) => {
        await User.query(trx).insert({
          id: userId,
          name: input.adminName,
          email: input.adminEmail?.toLowerCase() ?? null,
          claimableByFirstSignUp: input.claimableByFirstSignUp ?? false,
          // The first-start admin administers the platform too; whoever claims it inherits that.
          permissions: input.claimableByFirstSignUp ? ['platform_admin'] : [],
        });
        const organization = await addOrganizationForUser(trx, userId, input.name);
        if (input.firstStart) await Organization.query(trx).findById(organization.organizationId).patch({ firstStart: true });
        return organization;
      });
      const apiKey = await deps.apiKeys.issue({ organizationId: created.organizationId, userId, name: 'default' });
      return { ...created, userId, apiKey };
    },

    /** A new organization the user administers and switches to. */
    async createForUser(userId: string, name: string): Promise<{ organizationId: string; projectId: string }> {
      return db.transaction((trx) => addOrganizationForUser(trx, userId, name));
    },

    /**
     * First start only: an empty database gets a default organization so the API is usable at once.
     * Its admin has no way to sign in, so the first account to sign up becomes that admin.
     */
    async bootstrapIfEmpty(): Promise<CreatedTenant | null> {
      const existing = await Organization.query(db).first();
      if (existing) return null;
      return this.createWithAdmin({ name: 'Default Organization', adminName: 'admin', claimableByFirstSignUp: true, firstStart: true });
    },

    /** Whether the first-start admin still waits for the first sign-up to take it over. */
    async firstStartAdminUnclaimed(): Promise<boolean> {
      return (await User.query(db).findOne({ claimableByFirstSignUp: true })) !== undefined;
    },

    get: find,

    async rename(organizationId: string, name: string): Promise<Organization> {
      const organization = await find(organizationId);
      return organization.$query(db).patchAndFetch({ name });
    },

    /** Deletes the organization and everything it owns; members keep their accounts. */
    async delete(organizationId: string): Promise<void> {
      const deleted = await Organization.query(db).deleteById(organizationId);
      if (deleted === 0) throw new NotFoundError('Organization');
    },

    async listForUser(userId: string): Promise<Organization[]> {
      return Organization.query(db)
        .join('organization_members', 'organization_members.organization_id', 'organizations.id')
        .where('organization_members.user_id', userId)
        .orderBy('organization_members.created_at')
        .select('organizations.*');
    },

    async defaultProjectId(organizationId: string): Promise<string | null> {
      const project = await Project.query(db).forOrg(organizationId).findOne({ isDefault: true });
      return project?.id ?? null;
    },

    /** `X-Project` (slug) or `X-Project-Id` select a project; otherwise the organization's default. */
    async resolveProject(organizationId: string, selector: { id?: string; slug?: string }): Promise<string> {
      const query = Project.query(db).forOrg(organizationId);
      const project = selector.id
        ? await query.findById(selector.id)
        : selector.slug
          ? await query.findOne({ slug: selector.slug })
          : await query.findOne({ isDefault: true });
      if (!project) throw new NotFoundError('Project');
      return project.id;
    },
  };
}

export type OrganizationService = ReturnType<typeof createOrganizationService>;
