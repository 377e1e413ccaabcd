import { Organization, Project, User, newId, type Database } from '@engram/db';
import { NotFoundError } from '../../errors.js';
import type { ApiKeyService, IssuedApiKey } from './api-keys.js';

export type CreatedTenant = {
  organizationId: string;
  userId: string;
  projectId: string;
  apiKey: IssuedApiKey;
};

export function createOrganizationService(deps: { db: Database; apiKeys: Pick<ApiKeyService, 'issue'> }) {
  return {
    /** An organization with its first admin, default project and first API key. */
    async createWithAdmin(input: { name: string; adminName: string; adminEmail?: string }): Promise<CreatedTenant> {
      const organizationId = newId('organization');
      const userId = newId('user');
      const projectId = newId('project');
      await deps.db.transaction(async (trx) => {
        await Organization.query(trx).insert({ id: organizationId, name: input.name });
        await User.query(trx).insert({
          id: userId,
          organizationId,
          name: input.adminName,
          email: input.adminEmail ?? null,
          role: 'admin',
        });
        await Project.query(trx).insert({
          id: projectId,
          organizationId,
          name: 'Default Project',
          slug: 'default-project',
          isDefault: true,
        });
      });
      const apiKey = await deps.apiKeys.issue({ organizationId, userId, name: 'default' });
      return { organizationId, userId, projectId, apiKey };
    },

    /** First start only: an empty database gets a default organization so the API is usable at once. */
    async bootstrapIfEmpty(): Promise<CreatedTenant | null> {
      const existing = await Organization.query(deps.db).first();
      if (existing) return null;
      return this.createWithAdmin({ name: 'Default Organization', adminName: 'admin' });
    },

    /** `X-Project` (slug) or `X-Project-Id` select a project; otherwise the organization's default. */
    async resolveProject(organizationId: string, selector: { id?: string; slug?: string }): Promise<string> {
      const query = Project.query(deps.db).forOrg(organizationId);
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
