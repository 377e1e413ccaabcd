import { newId, Organization, OrganizationMember, User, type Database, type Role, type UserPermission } from '@engram/db';
import { NotFoundError, ServiceUnavailableError } from '../../errors.js';
import { containing, type OffsetPage } from './admin-organizations.js';

const PLATFORM_ADMIN: UserPermission = 'platform_admin';

/** Accounts across the platform, and who holds the platform-admin permission. */
export function createAdminUserService(deps: {
  db: Database;
  /** The account deletion of the console (organizations the user was alone in go with it). */
  deleteAccount(userId: string): Promise<void>;
  /** ENGRAM_ADMIN_EMAILS, lower-cased. */
  adminEmails: readonly string[];
}) {
  const { db } = deps;
  const adminEmails = new Set(deps.adminEmails.map((email) => email.toLowerCase()));

  async function find(userId: string): Promise<User> {
    const user = await User.query(db).findById(userId);
    if (!user) throw new NotFoundError('User');
    return user;
  }

  return {
    async list(page: OffsetPage): Promise<{ users: User[]; hasNextPage: boolean }> {
      const query = User.query(db).orderBy('createdAt', 'desc').orderBy('id');
      if (page.search) {
        const pattern = containing(page.search);
        query.where((where) => {
          where.whereILike('email', pattern).orWhereILike('name', pattern).orWhere('id', page.search!);
        });
      }
      const rows = await query.offset(page.offset).limit(page.limit + 1);
      return { users: rows.slice(0, page.limit), hasNextPage: rows.length > page.limit };
    },

    get: find,

    /** `/v1/admin/users`: by id after a cursor, as the public API pages. */
    async listAfter(page: { after?: string | undefined; limit: number }): Promise<User[]> {
      const query = User.query(db).orderBy('id').limit(page.limit);
      if (page.after) query.where('id', '>', page.after);
      return query;
    },

    /** An account without a password (it signs in once given one through a reset), as a member of the organization. */
    async create(input: { name: string; organizationId: string; role: Role }): Promise<User> {
      if (!(await Organization.query(db).findById(input.organizationId))) throw new NotFoundError('Organization');
      return db.transaction(async (trx) => {
        const user = await User.query(trx).insert({ id: newId('user'), name: input.name, activeOrganizationId: input.organizationId }).returning('*');
        await OrganizationMember.query(trx).insert({ organizationId: input.organizationId, userId: user.id, role: input.role });
        return user;
      });
    },

    async rename(userId: string, name: string): Promise<User> {
      return (await find(userId)).$query(db).patchAndFetch({ name });
    },

    async delete(userId: string): Promise<void> {
      await find(userId);
      await deps.deleteAccount(userId);
    },

    async organizations(userId: string): Promise<Organization[]> {
      await find(userId);
      return Organization.query(db)
        .join('organization_members', 'organization_members.organization_id', 'organizations.id')
        .where('organization_members.user_id', userId)
        .orderBy('organization_members.created_at')
        .select('organizations.*');
    },

    /** No CRM is part of Engram; the call exists for installs that add one. */
    async syncToCrm(userId: string): Promise<never> {
      await find(userId);
      throw new ServiceUnavailableError('No CRM (HubSpot) is configured on this platform, so there is nothing to sync the user to');
    },

    /** Whether the account is a platform admin by ENGRAM_ADMIN_EMAILS, which the stored permission then follows. */
    isConfiguredAdmin(user: Pick<User, 'email'>): boolean {
      return user.email !== null && adminEmails.has(user.email.toLowerCase());
    },

    /** Gives every existing account of ENGRAM_ADMIN_EMAILS the permission (at start; sign-ins catch later accounts). */
    async grantConfiguredAdmins(): Promise<number> {
      if (adminEmails.size === 0) return 0;
      return User.query(db)
        .whereIn('email', [...adminEmails])
        .whereRaw('not (? = any(permissions))', [PLATFORM_ADMIN])
        .patch({ permissions: db.raw('array_append(permissions, ?)', [PLATFORM_ADMIN]) as unknown as UserPermission[] });
    },

    async grantPlatformAdmin(userId: string): Promise<void> {
      const user = await find(userId);
      if (!user.permissions.includes(PLATFORM_ADMIN)) await user.$query(db).patch({ permissions: [...user.permissions, PLATFORM_ADMIN] });
    },
  };
}

export type AdminUserService = ReturnType<typeof createAdminUserService>;
