import type { Database, SecretBox } from '@engram/db';
import { createDevelopmentServerService } from '../tenancy/development-servers.js';
import { createEnvironmentVariableService } from '../tenancy/environment-variables.js';
import { createInviteService } from '../tenancy/invites.js';
import { createMemberService } from '../tenancy/members.js';
import { createProjectService } from '../tenancy/projects.js';
import { createTenantGuard } from '../tenancy/tenant-guard.js';
import type { TierLimitGuard } from '../tenancy/tier-limits.js';
import { createAccountService, type AccountServiceDeps } from './account-service.js';
import { createAdePreferenceService } from './ade-preferences.js';
import { createOutboxNotifier, type Notifier } from '@engram/integrations/notifications';
import { createOnboardingService } from './onboarding.js';
import { createPostgresRateLimiter, type RateLimiter } from './rate-limiter.js';
import { createSessionService } from './sessions.js';
import { createVerificationCodes } from './verification-codes.js';

export type AccountServiceOptions = {
  db: Database;
  secrets: SecretBox;
  /** Where codes and invitations go; the outbox table unless given. */
  notifier?: Notifier | undefined;
  /** Guessing budgets for login and password reset; counters in PostgreSQL, shared by every API process, unless given. */
  rateLimiter?: RateLimiter | undefined;
  supportChatSecret?: string | undefined;
  /** The tier limits (projects, members), enforced when billing is on. */
  limits: TierLimitGuard;
  /** Rewards a sign-up with a referral code. */
  referrals: AccountServiceDeps['referrals'];
};

/** The services behind the console: accounts and sessions, and the organization resources they manage. */
export function createAccountServices(options: AccountServiceOptions) {
  const { db, secrets } = options;
  const notifier = options.notifier ?? createOutboxNotifier({ db });
  const sessions = createSessionService({ db });
  const invites = createInviteService({ db, notifier, limits: options.limits });
  return {
    sessions,
    accounts: createAccountService({
      db,
      sessions,
      codes: createVerificationCodes({ db }),
      notifier,
      limiter: options.rateLimiter ?? createPostgresRateLimiter({ db }),
      invites,
      referrals: options.referrals,
      supportChatSecret: options.supportChatSecret,
    }),
    onboarding: createOnboardingService({ db }),
    adePreferences: createAdePreferenceService({ db }),
    members: createMemberService({ db }),
    invites,
    projects: createProjectService({ db, limits: options.limits }),
    environmentVariables: createEnvironmentVariableService({ db, secrets }),
    developmentServers: createDevelopmentServerService({ db, secrets }),
    tenantGuard: createTenantGuard({ db }),
  };
}
