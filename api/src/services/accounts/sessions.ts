import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { OrganizationMember, Session, User, type Database, type Role } from '@engram/db';

const SESSION_TTL_MS = 30 * 24 * 60 * 60_000;

export type IssuedSession = { id: string; token: string; expiresAt: Date };

export type Membership = { organizationId: string; role: Role; customPermissions: string[] };

/** A resolved console session: who is signed in and the organization they act in (if any). */
export type SignedIn = {
  sessionId: string;
  user: User;
  membership: Membership | null;
};

function hashSessionToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export function createSessionService(deps: { db: Database }) {
  const { db } = deps;

  /**
   * The organization a user acts in: the active one while they are still a member of it, else
   * their oldest membership (remembered as active), else none.
   */
  async function actingMembership(user: User): Promise<Membership | null> {
    if (user.activeOrganizationId) {
      const active = await OrganizationMember.query(db).forOrg(user.activeOrganizationId).findOne({ userId: user.id });
      if (active) return { organizationId: active.organizationId, role: active.role, customPermissions: active.customPermissions };
    }
    const oldest = await OrganizationMember.query(db).where({ userId: user.id }).orderBy('createdAt').first();
    const fallback = oldest?.organizationId ?? null;
    if (fallback !== user.activeOrganizationId) await User.query(db).findById(user.id).patch({ activeOrganizationId: fallback });
    return oldest ? { organizationId: oldest.organizationId, role: oldest.role, customPermissions: oldest.customPermissions } : null;
  }

  return {
    /** A new session; the token exists only in the return value (and then the cookie). */
    async create(input: { userId: string; userAgent?: string; ip?: string }, trx: Database = db): Promise<IssuedSession> {
      const token = randomBytes(32).toString('base64url');
      const id = randomUUID();
      const expiresAt = new Date(Date.now() + SESSION_TTL_MS);
      await Session.query(trx).insert({
        id,
        userId: input.userId,
        tokenHash: hashSessionToken(token),
        userAgent: input.userAgent?.slice(0, 512) ?? null,
        ip: input.ip ?? null,
        expiresAt,
      });
      return { id, token, expiresAt };
    },

    async authenticate(token: string): Promise<SignedIn | null> {
      const session = await Session.query(db).findOne({ tokenHash: hashSessionToken(token) }).whereNull('revokedAt');
      if (!session || session.expiresAt.getTime() <= Date.now()) return null;
      const user = await User.query(db).findById(session.userId);
      if (!user) return null;
      return { sessionId: session.id, user, membership: await actingMembership(user) };
    },

    async revoke(token: string): Promise<void> {
      await Session.query(db).patch({ revokedAt: new Date() }).where({ tokenHash: hashSessionToken(token) }).whereNull('revokedAt');
    },

    /** Signs the user out everywhere (after a password change, for instance). */
    async revokeAllForUser(userId: string, trx: Database = db): Promise<void> {
      await Session.query(trx).patch({ revokedAt: new Date() }).where({ userId }).whereNull('revokedAt');
    },
  };
}

export type SessionService = ReturnType<typeof createSessionService>;
