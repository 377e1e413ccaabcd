import type { Database, User } from '@engram/db';
import type { AgentRunClient } from '@engram/temporal/client';
import type { RateLimiter } from '../accounts/rate-limiter.js';
import { createAdminBillingService, type PaymentAccountSource } from './admin-billing.js';
import { createAdminGiftCodeService } from './admin-gift-codes.js';
import { createAdminOrganizationService } from './admin-organizations.js';
import { createAdminUserService } from './admin-users.js';
import { createCloudAccessService } from './cloud-access.js';
import { createContentViolationService } from './content-violations.js';
import { createModelRateLimitService } from './model-rate-limits.js';
import { createModelRegistryService } from './model-registry.js';
import { createUsageLeaderboardService } from './usage-leaderboard.js';
import { createWhitelistedEmailService } from './whitelisted-emails.js';

export type AdminServiceDeps = {
  db: Database;
  agentRuns: Pick<AgentRunClient, 'cancel'>;
  deleteAccount(userId: string): Promise<void>;
  /** ENGRAM_ADMIN_EMAILS: accounts with these emails are platform admins. */
  adminEmails: readonly string[];
  /** ENGRAM_CLOUD_ACCESS_CODES: with codes, an organization runs agents once a member entered one. */
  cloudAccessCodes: readonly string[];
  rateLimiter: RateLimiter;
  /** What the payment provider holds for a customer, once card payments are configured. */
  paymentAccounts?: PaymentAccountSource | undefined;
};

/** The platform admin area (spec 000 §7 Admin), and the standing of organizations and accounts the request principal checks. */
export function createAdminServices(deps: AdminServiceDeps) {
  const adminOrganizations = createAdminOrganizationService({ db: deps.db, agentRuns: deps.agentRuns });
  const adminUsers = createAdminUserService({ db: deps.db, deleteAccount: deps.deleteAccount, adminEmails: deps.adminEmails });
  const whitelistedEmails = createWhitelistedEmailService({ db: deps.db });
  return {
    adminOrganizations,
    adminUsers,
    modelRegistry: createModelRegistryService({ db: deps.db }),
    modelRateLimits: createModelRateLimitService({ db: deps.db }),
    contentViolations: createContentViolationService({ db: deps.db }),
    whitelistedEmails,
    cloudAccess: createCloudAccessService({
      db: deps.db,
      accessCodes: deps.cloudAccessCodes,
      rateLimiter: deps.rateLimiter,
      isWhitelisted: (email) => whitelistedEmails.isWhitelisted(email),
    }),
    adminBilling: createAdminBillingService({ db: deps.db, paymentAccounts: deps.paymentAccounts }),
    usageLeaderboard: createUsageLeaderboardService({ db: deps.db }),
    adminGiftCodes: createAdminGiftCodeService({ db: deps.db }),
    standing: {
      isBanned: (organizationId: string) => adminOrganizations.isBanned(organizationId),
      /** An ENGRAM_ADMIN_EMAILS account gets the stored permission the first time it is seen, so its API keys follow. */
      async isPlatformAdmin(user: Pick<User, 'id' | 'email' | 'permissions'>): Promise<boolean> {
        if (user.permissions.includes('platform_admin')) return true;
        if (!adminUsers.isConfiguredAdmin(user)) return false;
        await adminUsers.grantPlatformAdmin(user.id);
        return true;
      },
    },
  };
}

export type AdminServices = ReturnType<typeof createAdminServices>;
export type AccountStanding = AdminServices['standing'];
