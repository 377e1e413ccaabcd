import { randomBytes, randomUUID } from 'node:crypto';
import {
  InviteRule,
  Organization,
  OrganizationInvite,
  OrganizationMember,
  User,
  VerifiedDomain,
  type Database,
  type Role,
} from '@engram/db';
import { UniqueViolationError } from 'objection';
import { NotFoundError, badRequest } from '../../errors.js';
import type { Notifier } from '@engram/integrations/notifications';
import type { Actor } from './members.js';
import type { TierLimitGuard } from './tier-limits.js';

const INVITE_TTL_MS = 14 * 24 * 60 * 60_000;

export type InviteOutcome =
  /** 201: a new invite; the code is what the invitee signs up with. */
  | { kind: 'invited'; invite: OrganizationInvite }
  /** 200: the email already had an account, which joined at once. */
  | { kind: 'added'; user: User };

export type InviteRuleView = { rule: InviteRule; domain: string };

const newInviteCode = () => randomBytes(24).toString('base64url');

export function createInviteService(deps: { db: Database; notifier: Notifier; limits: Pick<TierLimitGuard, 'assertWithinLimit' | 'hasRoom'> }) {
  const { db } = deps;

  async function notifyInvitee(invite: OrganizationInvite): Promise<void> {
    const organization = await Organization.query(db).findById(invite.organizationId);
    await deps.notifier.send({
      channel: 'email',
      recipient: invite.email,
      subject: `You are invited to ${organization?.name ?? 'an organization'}`,
      body: `Use the invite code ${invite.inviteCode} to join ${organization?.name ?? 'the organization'}. It expires on ${invite.expiresAt.toISOString()}.`,
    });
  }

  return {
    async invite(actor: Actor, input: { email: string; role: Role }): Promise<InviteOutcome> {
      const email = input.email.trim().toLowerCase();
      const outcome = await db.transaction(async (trx): Promise<InviteOutcome> => {
        const existing = await User.query(trx).findOne({ email });
        if (existing) {
          const member = await OrganizationMember.query(trx).forOrg(actor.organizationId).findOne({ userId: existing.id });
          if (member) throw badRequest('userAlreadyInOrganization', 'User already in the organization');
        } else if (await OrganizationInvite.query(trx).forOrg(actor.organizationId).findOne({ email })) {
          throw badRequest('userAlreadyInvited', 'User already invited');
        }
        // Members and pending invites both take a seat.
        await deps.limits.assertWithinLimit(trx, actor.organizationId, 'members');
        if (existing) {
          await OrganizationMember.query(trx).insert({ organizationId: actor.organizationId, userId: existing.id, role: input.role });
          return { kind: 'added', user: existing };
        }
        const invite = await OrganizationInvite.query(trx)
          .insert({
            id: randomUUID(),
            organizationId: actor.organizationId,
            email,
            role: input.role,
            inviteCode: newInviteCode(),
            invitedById: actor.userId,
            expiresAt: new Date(Date.now() + INVITE_TTL_MS),
          })
          .returning('*');
        return { kind: 'invited', invite };
      });
      if (outcome.kind === 'invited') await notifyInvitee(outcome.invite);
      return outcome;
    },

    async list(
      organizationId: string,
      page: { offset: number; limit: number; search?: string | undefined },
    ): Promise<{ invites: OrganizationInvite[]; hasNextPage: boolean }> {
      const query = OrganizationInvite.query(db).forOrg(organizationId).orderBy('createdAt').orderBy('id');
      if (page.search) query.whereILike('email', `%${page.search}%`);
      const rows = await query.offset(page.offset).limit(page.limit + 1);
      return { invites: rows.slice(0, page.limit), hasNextPage: rows.length > page.limit };
    },

    async remove(organizationId: string, inviteId: string): Promise<void> {
      const deleted = await OrganizationInvite.query(db).forOrg(organizationId).deleteById(inviteId);
      if (deleted === 0) throw new NotFoundError('Invite');
    },

    /** A new code (the old one stops working) and a fresh expiry. */
    async regenerate(organizationId: string, inviteId: string): Promise<OrganizationInvite> {
      const invite = await OrganizationInvite.query(db).forOrg(organizationId).findById(inviteId);
      if (!invite) throw new NotFoundError('Invite');
      const regenerated = await invite
        .$query(db)
        .patchAndFetch({ inviteCode: newInviteCode(), expiresAt: new Date(Date.now() + INVITE_TTL_MS) });
      await notifyInvitee(regenerated);
      return regenerated;
    },

    /** What the code's holder may see before signing up: whose invite, for which email. */
    async lookup(inviteCode: string): Promise<{ organizationName: string; email: string }> {
      const invite = await OrganizationInvite.query(db).findOne({ inviteCode });
      if (!invite || invite.expiresAt.getTime() <= Date.now()) throw new NotFoundError('Invite');
      const organization = await Organization.query(db).findById(invite.organizationId);
      if (!organization) throw new NotFoundError('Invite');
      return { organizationName: organization.name, email: invite.email };
    },

    /**
     * Inside sign-up: the invite for this code and email becomes a membership. Returns the
     * organization joined, or null when the code is unknown, expired or for another email.
     */
    async accept(trx: Database, input: { inviteCode: string; email: string; userId: string }): Promise<string | null> {
      const invite = await OrganizationInvite.query(trx).findOne({ inviteCode: input.inviteCode }).forUpdate();
      if (!invite || invite.email !== input.email || invite.expiresAt.getTime() <= Date.now()) return null;
      await OrganizationInvite.query(trx).deleteById(invite.id);
      await OrganizationMember.query(trx).insert({ organizationId: invite.organizationId, userId: input.userId, role: invite.role });
      return invite.organizationId;
    },

    /** Inside sign-up: organizations whose verified domain matches the email take the user in. */
    async applyInviteRules(trx: Database, input: { email: string; userId: string }): Promise<string[]> {
      const domain = input.email.split('@')[1];
      if (!domain) return [];
      const rules = await InviteRule.query(trx)
        .join('verified_domains', 'verified_domains.id', 'invite_rules.verified_domain_id')
        .where('verified_domains.domain', domain)
        .select('invite_rules.*');
      const joined: string[] = [];
      for (const rule of rules) {
        // A full organization (billing on) does not take the account in; the sign-up goes on without it.
        if (!(await deps.limits.hasRoom(trx, rule.organizationId, 'members'))) continue;
        joined.push(rule.organizationId);
        await OrganizationMember.query(trx)
          .insert({ organizationId: rule.organizationId, userId: input.userId, role: rule.role })
          .onConflict(['organization_id', 'user_id'])
          .ignore();
      }
      return joined;
    },

    async listVerifiedDomains(organizationId: string): Promise<VerifiedDomain[]> {
      return VerifiedDomain.query(db).forOrg(organizationId).orderBy('domain');
    },

    async listInviteRules(organizationId: string): Promise<InviteRuleView[]> {
      const rules = await InviteRule.query(db)
        .forOrg(organizationId)
        .join('verified_domains', 'verified_domains.id', 'invite_rules.verified_domain_id')
        .select('invite_rules.*', 'verified_domains.domain')
        .orderBy('verified_domains.domain');
      return rules.map((rule) => ({ rule, domain: (rule as InviteRule & { domain: string }).domain }));
    },

    async createInviteRule(organizationId: string, input: { domainId: string; role: Role }): Promise<InviteRuleView> {
      const domain = await VerifiedDomain.query(db).forOrg(organizationId).findById(input.domainId);
      if (!domain) throw badRequest('domainNotFound', 'Domain not found');
      try {
        const rule = await InviteRule.query(db)
          .insert({ id: randomUUID(), organizationId, verifiedDomainId: domain.id, role: input.role })
          .returning('*');
        return { rule, domain: domain.domain };
      } catch (error) {
        if (error instanceof UniqueViolationError) throw badRequest('ruleAlreadyExists', 'A rule for this domain already exists');
        throw error;
      }
    },

    async deleteInviteRule(organizationId: string, ruleId: string): Promise<void> {
      const deleted = await InviteRule.query(db).forOrg(organizationId).deleteById(ruleId);
      if (deleted === 0) throw new NotFoundError('Invite rule');
    },
  };
}

export type InviteService = ReturnType<typeof createInviteService>;
