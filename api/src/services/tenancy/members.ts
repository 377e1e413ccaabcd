import { OrganizationInvite, OrganizationMember, User, type Database, type Role } from '@engram/db';
import { BadRequestError, NotFoundError, badRequest } from '../../errors.js';

export type MemberView = { member: OrganizationMember; user: User };

export type Actor = { organizationId: string; userId: string };

/** Keeps an organization manageable: someone must still hold the admin role afterwards. */
async function assertAnotherAdminRemains(trx: Database, organizationId: string, userId: string): Promise<void> {
  const otherAdmins = await OrganizationMember.query(trx)
    .forOrg(organizationId)
    .where({ role: 'admin' })
    .whereNot({ userId })
    .forUpdate()
    .resultSize();
  if (otherAdmins === 0) throw badRequest('lastAdmin', 'An organization needs at least one admin');
}

export function createMemberService(deps: { db: Database }) {
  const { db } = deps;

  return {
    async list(
      organizationId: string,
      page: { offset: number; limit: number; search?: string | undefined },
    ): Promise<{ members: MemberView[]; hasNextPage: boolean }> {
      const query = OrganizationMember.query(db)
        .forOrg(organizationId)
        .join('users', 'users.id', 'organization_members.user_id')
        .select('organization_members.*')
        .orderBy('organization_members.created_at')
        .orderBy('organization_members.user_id');
      if (page.search) {
        query.where((where) => {
          where.whereILike('users.name', `%${page.search}%`).orWhereILike('users.email', `%${page.search}%`);
        });
      }
      const rows = await query.offset(page.offset).limit(page.limit + 1);
      const shown = rows.slice(0, page.limit);
      const users = new Map((await User.query(db).findByIds(shown.map((row) => row.userId))).map((user) => [user.id, user]));
      return {
        members: shown.flatMap((member) => {
          const user = users.get(member.userId);
          return user ? [{ member, user }] : [];
        }),
        hasNextPage: rows.length > page.limit,
      };
    },

    async remove(actor: Actor, memberId: string): Promise<void> {
      if (memberId === actor.userId) throw new BadRequestError('You cannot remove yourself');
      const deleted = await OrganizationMember.query(db).forOrg(actor.organizationId).where({ userId: memberId }).delete();
      if (deleted === 0) throw new NotFoundError('Member');
    },

    async changeRole(actor: Actor, memberId: string, change: { role: Role; customPermissions?: string[] | undefined }): Promise<void> {
      await db.transaction(async (trx) => {
        const member = await OrganizationMember.query(trx).forOrg(actor.organizationId).findOne({ userId: memberId }).forUpdate();
        if (!member) throw new NotFoundError('Member');
        if (member.role === 'admin' && change.role !== 'admin') await assertAnotherAdminRemains(trx, actor.organizationId, memberId);
        await OrganizationMember.query(trx)
          .forOrg(actor.organizationId)
          .where({ userId: memberId })
          .patch({ role: change.role, customPermissions: change.role === 'custom' ? (change.customPermissions ?? []) : [] });
      });
    },
  };
}

export type MemberService = ReturnType<typeof createMemberService>;
