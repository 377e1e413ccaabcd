import { createHmac } from 'node:crypto';
import { Organization, OrganizationMember, OutboxMessage, User, newId, type Database } from '@engram/db';
import { UniqueViolationError } from 'objection';
import { ConsoleError, NotFoundError, badRequest } from '../../errors.js';
import type { ReferralService } from '../billing/referrals.js';
import type { InviteService } from '../tenancy/invites.js';
import { addOrganizationForUser } from '../tenancy/organizations.js';
import type { Notifier } from '@engram/integrations/notifications';
import { hashPassword, verifyPassword } from './passwords.js';
import type { RateLimit, RateLimiter } from './rate-limiter.js';
import type { IssuedSession, SessionService } from './sessions.js';
import type { VerificationCodes } from './verification-codes.js';

/** Guessing budgets for the endpoints that check secrets, per email and per client address. */
const ACCOUNT_RATE_LIMITS = {
  loginPerEmail: { limit: 10, windowMs: 15 * 60_000 },
  loginPerIp: { limit: 200, windowMs: 15 * 60_000 },
  resetStartPerEmail: { limit: 5, windowMs: 60 * 60_000 },
  resetStartPerIp: { limit: 50, windowMs: 60 * 60_000 },
  resetUpdatePerEmail: { limit: 10, windowMs: 15 * 60_000 },
  resetUpdatePerIp: { limit: 200, windowMs: 15 * 60_000 },
} satisfies Record<string, RateLimit>;

/** How long before a verification code can be sent again. */
const RESEND_INTERVAL_MS = 60_000;

/** E.164: a plus, a country code, up to fifteen digits in all. */
const PHONE_NUMBER = /^\+[1-9]\d{6,14}$/;

export type ClientInfo = { ip: string; userAgent?: string | undefined };

export type VerifiedContacts = { email: string | null; phone: string | null };

export type AccountServiceDeps = {
  db: Database;
  sessions: Pick<SessionService, 'create' | 'revoke' | 'revokeAllForUser'>;
  codes: VerificationCodes;
  notifier: Notifier;
  limiter: RateLimiter;
  invites: Pick<InviteService, 'accept' | 'applyInviteRules'>;
  referrals: Pick<ReferralService, 'applyReferral'>;
  /** Signs support-chat identities; without it the console gets no token. */
  supportChatSecret?: string | undefined;
};

const normalizeEmail = (email: string) => email.trim().toLowerCase();

export function createAccountService(deps: AccountServiceDeps) {
  const { db, sessions, codes, notifier, limiter } = deps;

  async function spend(budgets: Array<[key: string, budget: RateLimit]>): Promise<void> {
    for (const [key, budget] of budgets) {
      const decision = await limiter.attempt(key, budget);
      if (!decision.allowed) {
        const retryAfterSeconds = Math.ceil(decision.retryAfterMs / 1000);
        throw new ConsoleError('rate_limited', 'tooManyRequests', 'Too many attempts, try again later', { retryAfterSeconds });
      }
    }
  }

  async function findUser(userId: string): Promise<User> {
    const user = await User.query(db).findById(userId);
    if (!user) throw new NotFoundError('User');
    return user;
  }

  async function insertUser(trx: Database, input: { email: string; name: string; passwordHash: string; emailVerified: boolean }) {
    try {
      return await User.query(trx)
        .insert({
          id: newId('user'),
          email: input.email,
          name: input.name,
          passwordHash: input.passwordHash,
          emailVerifiedAt: input.emailVerified ? new Date() : null,
        })
        .returning('*');
    } catch (error) {
      if (error instanceof UniqueViolationError) throw badRequest('emailAlreadyTaken', 'Email already taken');
      throw error;
    }
  }

  /**
   * On a fresh install, the admin `npm start` created (no email, no password) becomes this account,
   * keeping its organization, agents and API key. The conditional update is the race guard: a second
   * sign-up waits for the first's row lock, then finds the user no longer claimable.
   */
  async function claimFirstStartAdmin(trx: Database, input: { email: string; name: string; passwordHash: string }): Promise<User | undefined> {
    try {
      const [claimed] = await User.query(trx)
        .where({ claimableByFirstSignUp: true })
        .patch({ email: input.email, name: input.name, passwordHash: input.passwordHash, claimableByFirstSignUp: false })
        .returning('*');
      return claimed;
    } catch (error) {
      if (error instanceof UniqueViolationError) throw badRequest('emailAlreadyTaken', 'Email already taken');
      throw error;
    }
  }

  async function assertEmailFree(trx: Database, email: string): Promise<void> {
    // The spec's sign-up error says so in as many words; it is the one place an email's existence shows.
    if (await User.query(trx).findOne({ email })) throw badRequest('emailAlreadyTaken', 'Email already taken');
  }

  const nextResend = (issuedAt: Date | null) => new Date((issuedAt?.getTime() ?? 0) + RESEND_INTERVAL_MS);

  async function assertResendAllowed(userId: string, purpose: 'email_verification' | 'phone_verification'): Promise<void> {
    const nextResendTime = nextResend(await codes.lastIssuedAt(userId, purpose));
    const waitMs = nextResendTime.getTime() - Date.now();
    if (waitMs > 0) {
      const seconds = Math.ceil(waitMs / 1000);
      throw badRequest('tooEarly', `A code was sent a moment ago: you can ask for another in ${seconds} second${seconds === 1 ? '' : 's'}`, {
        nextResendTime: nextResendTime.toISOString(),
      });
    }
  }

  const allVerified = (user: User) => user.emailVerifiedAt !== null && user.phoneVerifiedAt !== null;

  return {
    /** Whether the codes this service sends go out by email or stay in the outbox. */
    emailDelivery: notifier.emailDelivery,

    /**
     * A new account, signed in at once. The first one on a fresh install takes over the first-start
     * admin and its organization; every other gets an organization of its own.
     */
    /** A new account with an organization of its own; a referral code rewards it and the referrer (or refuses the sign-up). */
    async signUp(input: { email: string; name: string; password: string; referralCode?: string | undefined }, client: ClientInfo): Promise<IssuedSession> {
      const email = normalizeEmail(input.email);
      const passwordHash = await hashPassword(input.password);
      return db.transaction(async (trx) => {
        await assertEmailFree(trx, email);
        const firstStartAdmin = await claimFirstStartAdmin(trx, { email, name: input.name, passwordHash });
        const user = firstStartAdmin ?? (await insertUser(trx, { email, name: input.name, passwordHash, emailVerified: false }));
        await deps.invites.applyInviteRules(trx, { email, userId: user.id });
        if (!firstStartAdmin) {
          const created = await addOrganizationForUser(trx, user.id, `${input.name}'s organization`);
          if (input.referralCode) await deps.referrals.applyReferral(created.organizationId, input.referralCode, trx);
        }
        return sessions.create({ userId: user.id, ...client }, trx);
      });
    },

    /** A new account joining the organization that invited its email (which the code proves it owns). */
    async signUpWithInvite(
      input: { email: string; name: string; password: string; inviteCode: string },
      client: ClientInfo,
    ): Promise<IssuedSession> {
      const email = normalizeEmail(input.email);
      const passwordHash = await hashPassword(input.password);
      return db.transaction(async (trx) => {
        await assertEmailFree(trx, email);
        const user = await insertUser(trx, { email, name: input.name, passwordHash, emailVerified: true });
        const organizationId = await deps.invites.accept(trx, { inviteCode: input.inviteCode, email, userId: user.id });
        if (!organizationId) throw badRequest('invalidInviteCode', 'Invalid invite code');
        await User.query(trx).findById(user.id).patch({ activeOrganizationId: organizationId });
        return sessions.create({ userId: user.id, ...client }, trx);
      });
    },

    /** A fresh session; the one the browser held before (if any) is revoked, so sessions rotate on login. */
    async login(input: { email: string; password: string }, client: ClientInfo, previousToken?: string): Promise<IssuedSession> {
      const email = normalizeEmail(input.email);
      await spend([
        [`login:email:${email}`, ACCOUNT_RATE_LIMITS.loginPerEmail],
        [`login:ip:${client.ip}`, ACCOUNT_RATE_LIMITS.loginPerIp],
      ]);
      const user = await User.query(db).findOne({ email });
      const passwordMatches = await verifyPassword(user?.passwordHash ?? null, input.password);
      if (!user || !passwordMatches) throw badRequest('invalidPassword', 'Invalid email or password');
      if (previousToken) await sessions.revoke(previousToken);
      return sessions.create({ userId: user.id, ...client });
    },

    async logout(token: string): Promise<void> {
      await sessions.revoke(token);
    },

    get: findUser,

    async update(userId: string, input: { name?: string | undefined; theme?: string | undefined; locale?: string | undefined }): Promise<User> {
      const user = await findUser(userId);
      return user.$query(db).patchAndFetch({
        ...(input.name !== undefined ? { name: input.name } : {}),
        ...(input.theme !== undefined ? { theme: input.theme } : {}),
        ...(input.locale !== undefined ? { locale: input.locale } : {}),
      });
    },

    /**
     * Deletes the account. Organizations it was alone in go with it; one it is the last admin of
     * (with other members) would be left unmanageable, so that refuses.
     */
    async delete(userId: string): Promise<void> {
      await db.transaction(async (trx) => {
        const memberships = await OrganizationMember.query(trx).where({ userId }).forUpdate();
        for (const membership of memberships) {
          const others = await OrganizationMember.query(trx).forOrg(membership.organizationId).whereNot({ userId });
          if (others.length === 0) {
            await Organization.query(trx).deleteById(membership.organizationId);
          } else if (membership.role === 'admin' && !others.some((other) => other.role === 'admin')) {
            throw badRequest('lastAdmin', 'Make another member an admin before deleting your account');
          }
        }
        await User.query(trx).deleteById(userId);
      });
    },

    async setActiveOrganization(userId: string, organizationId: string): Promise<void> {
      const member = await OrganizationMember.query(db).forOrg(organizationId).findOne({ userId });
      if (!member) throw new NotFoundError('Organization');
      await User.query(db).findById(userId).patch({ activeOrganizationId: organizationId });
    },

    /** Always succeeds, so the answer does not tell whether the email has an account. */
    async startPasswordReset(input: { email: string }, client: ClientInfo): Promise<void> {
      const email = normalizeEmail(input.email);
      await spend([
        [`reset-start:email:${email}`, ACCOUNT_RATE_LIMITS.resetStartPerEmail],
        [`reset-start:ip:${client.ip}`, ACCOUNT_RATE_LIMITS.resetStartPerIp],
      ]);
      const user = await User.query(db).findOne({ email });
      if (!user) return;
      const { code } = await codes.issue({ userId: user.id, purpose: 'password_reset', target: email });
      await notifier.send({
        channel: 'email',
        recipient: email,
        subject: 'Your password reset code',
        body: `Your password reset code is ${code}. It expires in 15 minutes and works once.`,
      });
    },

    /** With a right, live code: the new password, and every session signed out. */
    async finishPasswordReset(input: { email: string; password: string; code: string }, client: ClientInfo): Promise<void> {
      const email = normalizeEmail(input.email);
      await spend([
        [`reset-update:email:${email}`, ACCOUNT_RATE_LIMITS.resetUpdatePerEmail],
        [`reset-update:ip:${client.ip}`, ACCOUNT_RATE_LIMITS.resetUpdatePerIp],
      ]);
      const passwordHash = await hashPassword(input.password);
      const user = await User.query(db).findOne({ email });
      // An unknown email answers like a wrong code.
      if (!user) throw badRequest('invalidCode', 'Invalid code');
      // Committed even when the code is wrong, so wrong guesses keep counting against it.
      const outcome = await db.transaction(async (trx) => {
        const check = await codes.consume({ userId: user.id, purpose: 'password_reset', code: input.code }, trx);
        if (check === 'valid') {
          await User.query(trx).findById(user.id).patch({ passwordHash });
          await sessions.revokeAllForUser(user.id, trx);
        }
        return check;
      });
      if (outcome === 'invalid') throw badRequest('invalidCode', 'Invalid code');
      if (outcome === 'expired') throw badRequest('codeExpired', 'The code has expired');
    },

    async startEmailVerification(userId: string): Promise<{ nextResendTime: Date }> {
      const user = await findUser(userId);
      if (!user.email) throw badRequest('invalidEmail', 'The account has no email address');
      if (user.emailVerifiedAt) throw badRequest('emailAlreadyVerified', 'Email already verified');
      await assertResendAllowed(user.id, 'email_verification');
      const { code, issuedAt } = await codes.issue({ userId: user.id, purpose: 'email_verification', target: user.email });
      await notifier.send({
        channel: 'email',
        recipient: user.email,
        subject: 'Verify your email',
        body: `Your verification code is ${code}.`,
      });
      return { nextResendTime: nextResend(issuedAt) };
    },

    async completeEmailVerification(userId: string, verificationCode: string): Promise<{ allVerified: boolean }> {
      const user = await findUser(userId);
      if (user.emailVerifiedAt) throw badRequest('emailAlreadyVerified', 'Email already verified');
      const check = await db.transaction((trx) =>
        codes.consume({ userId, purpose: 'email_verification', code: verificationCode, target: user.email ?? '' }, trx),
      );
      if (check !== 'valid') throw badRequest('invalidVerificationCode', 'Invalid verification code');
      const verified = await user.$query(db).patchAndFetch({ emailVerifiedAt: new Date() });
      return { allVerified: allVerified(verified) };
    },

    async startPhoneVerification(userId: string, phoneNumber: string): Promise<{ nextResendTime: Date }> {
      const user = await findUser(userId);
      if (!PHONE_NUMBER.test(phoneNumber)) throw badRequest('invalidPhoneNumber', 'Give the number in international form, like +14155550123');
      if (user.phoneVerifiedAt && user.phoneNumber === phoneNumber) throw badRequest('phoneAlreadyVerified', 'Phone already verified');
      await assertResendAllowed(user.id, 'phone_verification');
      const { code, issuedAt } = await codes.issue({ userId: user.id, purpose: 'phone_verification', target: phoneNumber });
      await notifier.send({ channel: 'sms', recipient: phoneNumber, subject: 'Verification code', body: `Your verification code is ${code}.` });
      return { nextResendTime: nextResend(issuedAt) };
    },

    async completePhoneVerification(userId: string, input: { verificationCode: string; phoneNumber: string }): Promise<{ allVerified: boolean }> {
      const user = await findUser(userId);
      if (user.phoneVerifiedAt && user.phoneNumber === input.phoneNumber) throw badRequest('phoneAlreadyVerified', 'Phone already verified');
      const check = await db.transaction((trx) =>
        codes.consume({ userId, purpose: 'phone_verification', code: input.verificationCode, target: input.phoneNumber }, trx),
      );
      if (check !== 'valid') throw badRequest('invalidVerificationCode', 'Invalid verification code');
      const verified = await user.$query(db).patchAndFetch({ phoneNumber: input.phoneNumber, phoneVerifiedAt: new Date() });
      return { allVerified: allVerified(verified) };
    },

    async verifiedContacts(userId: string): Promise<VerifiedContacts> {
      const user = await findUser(userId);
      return {
        email: user.emailVerifiedAt ? user.email : null,
        phone: user.phoneVerifiedAt ? user.phoneNumber : null,
      };
    },

    /** The newest notifications addressed to the user's own email or phone number, newest first. */
    async recentNotifications(userId: string, limit: number): Promise<OutboxMessage[]> {
      const user = await findUser(userId);
      const addresses = [user.email, user.phoneNumber].filter((address): address is string => Boolean(address));
      return OutboxMessage.query(db).whereIn('recipient', addresses).orderBy('createdAt', 'desc').orderBy('id', 'desc').limit(limit);
    },

    /** An HMAC of the user id, so the support chat can trust who is writing. */
    supportChatToken(userId: string): string | null {
      if (!deps.supportChatSecret) return null;
      return createHmac('sha256', deps.supportChatSecret).update(userId).digest('hex');
    },

    async setMarketingConsent(userId: string, consent: boolean): Promise<void> {
      await (await findUser(userId)).$query(db).patch({ marketingConsent: consent });
    },
  };
}

export type AccountService = ReturnType<typeof createAccountService>;
