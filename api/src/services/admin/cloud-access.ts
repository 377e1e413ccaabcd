import { createHash, timingSafeEqual } from 'node:crypto';
import { Organization, User, type Database } from '@engram/db';
import { badRequest, ForbiddenError, RateLimitedError } from '../../errors.js';
import type { RateLimiter } from '../accounts/rate-limiter.js';

/** Guessing codes is slow: ten tries per account per quarter hour, across every API process. */
const REDEEM_BUDGET = { limit: 10, windowMs: 15 * 60_000 };

export const NO_CLOUD_ACCESS_MESSAGE =
  'This organization has no access to the platform yet: enter an access code in the console (POST /api/cloud-access-code), or ask a platform administrator';

const digest = (code: string) => createHash('sha256').update(code.trim()).digest();

type Account = Pick<User, 'id' | 'email' | 'permissions'>;

/**
 * Cloud access (spec 000 §6): with ENGRAM_CLOUD_ACCESS_CODES set, an organization runs agents only once a member
 * entered one of the codes (`enabledCloudAt`); platform admins and whitelisted emails need none. Without codes the
 * platform is open, as a self-hosted install expects.
 */
export function createCloudAccessService(deps: {
  db: Database;
  accessCodes: readonly string[];
  rateLimiter: RateLimiter;
  isWhitelisted(email: string): Promise<boolean>;
}) {
  const { db } = deps;
  const codes = deps.accessCodes.map(digest);
  const required = codes.length > 0;

  async function accountHasAccess(user: Account, organizationId: string | null): Promise<boolean> {
    if (!required || user.permissions.includes('platform_admin')) return true;
    if (user.email && (await deps.isWhitelisted(user.email))) return true;
    if (!organizationId) return false;
    return Boolean((await Organization.query(db).findById(organizationId).select('enabledCloudAt'))?.enabledCloudAt);
  }

  return {
    hasAccess: accountHasAccess,

    /** Enables the organization when the code is one of the platform's; an open platform needs none and takes any. */
    async redeem(user: Account, organizationId: string | null, code: string): Promise<void> {
      if (!required) return;
      if (!organizationId) throw badRequest('noOrganization', 'Create or join an organization first: access is given to an organization');
      const attempt = await deps.rateLimiter.attempt(`cloud-access-code:user:${user.id}`, REDEEM_BUDGET);
      if (!attempt.allowed) {
        const seconds = Math.ceil(attempt.retryAfterMs / 1000);
        throw new RateLimitedError(`Too many access codes tried; try again in ${seconds} s`, seconds);
      }
      const entered = digest(code);
      if (!codes.some((candidate) => timingSafeEqual(candidate, entered))) throw badRequest('invalidCode', 'This access code is not valid');
      await Organization.query(db).findById(organizationId).whereNull('enabledCloudAt').patch({ enabledCloudAt: new Date() });
    },

    /** Refuses a new run of an organization without access (the run's user may still be let in by their own standing). */
    async assertMayRun(organizationId: string, userId: string): Promise<void> {
      if (!required) return;
      const user = await User.query(db).findById(userId).select('id', 'email', 'permissions');
      if (!user || !(await accountHasAccess(user, organizationId))) throw new ForbiddenError(NO_CLOUD_ACCESS_MESSAGE);
    },
  };
}

export type CloudAccessService = ReturnType<typeof createCloudAccessService>;
