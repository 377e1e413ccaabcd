import { randomUUID } from 'node:crypto';
import { UniqueViolationError } from 'objection';
import {
  Agent,
  ApiKey,
  Organization,
  OrganizationMember,
  Project,
  newId,
  Run,
  SsoConfiguration,
  User,
  VerifiedDomain,
  type Database,
  type Role,
  VISIBLE_AGENT,
} from '@engram/db';
import type { AgentRunClient } from '@engram/temporal/client';
import { badRequest, ConflictError, NotFoundError } from '../../errors.js';
import { insertOrganizationRecords } from '../tenancy/organizations.js';

export type OffsetPage = { offset: number; limit: number; search?: string | undefined };

export type OrganizationStatistics = { members: number; projects: number; agents: number; apiKeys: number; runsLast30Days: number; activeRuns: number };

const ACTIVE_RUN_STATUSES = ['created', 'running'];

/** The likeness pattern of a search term, its wildcards taken literally. */
export const containing = (search: string) => `%${search.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;

/**
 * Organizations as platform admins see them: every tenant, not only their own. Banning one refuses
 * every credential of it at once (http/auth.ts asks `isBanned`) and cancels its runs in flight.
 */
export function createAdminOrganizationService(deps: { db: Database; agentRuns: Pick<AgentRunClient, 'cancel'> }) {
  const { db } = deps;

  async function find(organizationId: string): Promise<Organization> {
    const organization = await Organization.query(db).findById(organizationId);
    if (!organization) throw new NotFoundError('Organization');
    return organization;
  }

  async function count(query: { resultSize(): Promise<number> }): Promise<number> {
    return query.resultSize();
  }

  return {
    async list(page: OffsetPage): Promise<{ organizations: Organization[]; hasNextPage: boolean }> {
      const query = Organization.query(db).orderBy('createdAt', 'desc').orderBy('id');
      if (page.search) query.where((where) => {
          where.whereILike('name', containing(page.search!)).orWhere('id', page.search!);
        });
      const rows = await query.offset(page.offset).limit(page.limit + 1);
      return { organizations: rows.slice(0, page.limit), hasNextPage: rows.length > page.limit };
    },

    /** `/v1/admin/orgs`: by id after a cursor, as the public API pages. */
    async listAfter(page: { after?: string | undefined; limit: number }): Promise<Organization[]> {
      const query = Organization.query(db).orderBy('id').limit(page.limit);
      if (page.after) query.where('id', '>', page.after);
      return query;
    },

    /** An organization with no members yet and its default project. */
    async create(name: string): Promise<Organization> {
      return db.transaction(async (trx) => {
        return (await insertOrganizationRecords(trx, name)).organization;
      });
    },

    async rename(organizationId: string, name: string): Promise<Organization> {
      return (await find(organizationId)).$query(db).patchAndFetch({ name });
    },

    get: find,

    async delete(organizationId: string): Promise<void> {
      await this.cancelActiveRuns(organizationId);
      if ((await Organization.query(db).deleteById(organizationId)) === 0) throw new NotFoundError('Organization');
    },

    async isBanned(organizationId: string): Promise<boolean> {
      const organization = await Organization.query(db).findById(organizationId).select('bannedAt');
      return Boolean(organization?.bannedAt);
    },

    /** Bans the organization, then cancels what it has running; returns how many runs were cancelled. */
    async ban(organizationId: string): Promise<{ organization: Organization; cancelledRuns: number }> {
      const organization = await find(organizationId);
      const banned = organization.bannedAt ? organization : await organization.$query(db).patchAndFetch({ bannedAt: new Date() });
      return { organization: banned, cancelledRuns: await this.cancelActiveRuns(organizationId) };
    },

    async unban(organizationId: string): Promise<Organization> {
      const organization = await find(organizationId);
      return organization.$query(db).patchAndFetch({ bannedAt: null });
    },

    async cancelActiveRuns(organizationId: string): Promise<number> {
      const runs = await Run.query(db).forOrg(organizationId).whereIn('status', ACTIVE_RUN_STATUSES).select('id');
      if (runs.length === 0) return 0;
      await Run.query(db).forOrg(organizationId).whereIn('id', runs.map((run) => run.id)).patch({ cancelRequested: true });
      await Promise.all(runs.map((run) => deps.agentRuns.cancel(run.id)));
      return runs.length;
    },

    async members(organizationId: string): Promise<Array<{ user: User; role: Role; joinedAt: Date }>> {
      await find(organizationId);
      const memberships = await OrganizationMember.query(db).forOrg(organizationId).orderBy('createdAt');
      const users = await User.query(db).whereIn('id', memberships.map((membership) => membership.userId));
      const byId = new Map(users.map((user) => [user.id, user]));
      return memberships.flatMap((membership) => {
        const user = byId.get(membership.userId);
        return user ? [{ user, role: membership.role, joinedAt: membership.createdAt }] : [];
      });
    },

    async addUser(organizationId: string, input: { userId: string; role: Role }): Promise<void> {
      await find(organizationId);
      if (!(await User.query(db).findById(input.userId))) throw new NotFoundError('User');
      try {
        await OrganizationMember.query(db).insert({ organizationId, userId: input.userId, role: input.role });
      } catch (error) {
        if (error instanceof UniqueViolationError) throw badRequest('userAlreadyInOrganization', 'User already in the organization');
        throw error;
      }
    },

    async removeUser(organizationId: string, userId: string): Promise<void> {
      await find(organizationId);
      const removed = await OrganizationMember.query(db).forOrg(organizationId).where({ userId }).delete();
      if (removed === 0) throw new NotFoundError('Member');
    },

    async statistics(organizationId: string): Promise<OrganizationStatistics> {
      await find(organizationId);
      const since = new Date(Date.now() - 30 * 24 * 60 * 60_000);
      const [members, projects, agents, apiKeys, runsLast30Days, activeRuns] = await Promise.all([
        count(OrganizationMember.query(db).forOrg(organizationId)),
        count(Project.query(db).forOrg(organizationId)),
        count(Agent.query(db).forOrg(organizationId).whereRaw(VISIBLE_AGENT)),
        count(ApiKey.query(db).forOrg(organizationId)),
        count(Run.query(db).forOrg(organizationId).where('createdAt', '>=', since)),
        count(Run.query(db).forOrg(organizationId).whereIn('status', ACTIVE_RUN_STATUSES)),
      ]);
      return { members, projects, agents, apiKeys, runsLast30Days, activeRuns };
    },

    async verifiedDomains(organizationId: string): Promise<VerifiedDomain[]> {
      await find(organizationId);
      return VerifiedDomain.query(db).forOrg(organizationId).orderBy('domain');
    },

    async addVerifiedDomain(organizationId: string, domain: string): Promise<VerifiedDomain> {
      await find(organizationId);
      try {
        return await VerifiedDomain.query(db).insert({ id: randomUUID(), organizationId, domain: domain.toLowerCase() }).returning('*');
      } catch (error) {
        if (error instanceof UniqueViolationError) throw new ConflictError('This domain is already verified');
        throw error;
      }
    },

    async removeVerifiedDomain(organizationId: string, domainId: string): Promise<void> {
      if ((await VerifiedDomain.query(db).forOrg(organizationId).deleteById(domainId)) === 0) throw new NotFoundError('Verified domain');
    },

    async ssoConfigurations(organizationId: string): Promise<SsoConfiguration[]> {
      await find(organizationId);
      return SsoConfiguration.query(db).forOrg(organizationId).orderBy('domain');
    },

    async addSsoConfiguration(organizationId: string, input: { domain: string; workOSOrganizationId: string }): Promise<SsoConfiguration> {
      await find(organizationId);
      try {
        return await SsoConfiguration.query(db)
          .insert({ id: randomUUID(), organizationId, domain: input.domain.toLowerCase(), workosOrganizationId: input.workOSOrganizationId })
          .returning('*');
      } catch (error) {
        if (error instanceof UniqueViolationError) throw new ConflictError('This domain already has an SSO configuration');
        throw error;
      }
    },

    async removeSsoConfiguration(organizationId: string, configurationId: string): Promise<void> {
      if ((await SsoConfiguration.query(db).forOrg(organizationId).deleteById(configurationId)) === 0) throw new NotFoundError('SSO configuration');
    },

    /** `POST /verify-sso-email`: the SSO configuration of the email's domain, if any. */
    async ssoConfigurationForEmail(email: string): Promise<SsoConfiguration> {
      const domain = email.toLowerCase().split('@')[1] ?? '';
      const configuration = domain ? await SsoConfiguration.query(db).findOne({ domain }) : undefined;
      if (!configuration) throw badRequest('invalidSSO', 'No single sign-on is configured for this email domain');
      return configuration;
    },
  };
}

export type AdminOrganizationService = ReturnType<typeof createAdminOrganizationService>;
