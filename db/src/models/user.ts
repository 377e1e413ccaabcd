import { BaseModel } from './base-model.js';

/** Platform-wide permissions of an account, independent of any organization. */
export type UserPermission = 'platform_admin';

export const ONBOARDING_STEPS = [
  'restarted',
  'mobile-skip',
  'about_credits',
  'create_template',
  'explore_ade',
  'save_version',
  'deploy_agent',
  'completed',
] as const;

export type OnboardingStep = (typeof ONBOARDING_STEPS)[number];

export type OnboardingStatus = {
  claimedSteps: OnboardingStep[];
  completedSteps: OnboardingStep[];
  currentStep: OnboardingStep | null;
  pausedAt: string | null;
};

/** A person's account. Users are global; they join organizations through `OrganizationMember`. */
export class User extends BaseModel {
  static override tableName = 'users';
  static override jsonAttributes = ['onboardingStatus', 'onboardingAnswers'];
  declare id: string;
  declare name: string;
  /** Lower-cased; null for accounts created without one (the first-start admin). */
  declare email: string | null;
  /** argon2id; null for accounts that cannot sign in with a password. */
  declare passwordHash: string | null;
  declare imageUrl: string;
  declare theme: string;
  declare locale: string;
  declare permissions: UserPermission[];
  declare activeOrganizationId: string | null;
  declare emailVerifiedAt: Date | null;
  declare phoneNumber: string | null;
  declare phoneVerifiedAt: Date | null;
  declare hasOnboarded: boolean;
  declare onboardingStatus: OnboardingStatus | null;
  declare onboardingAnswers: { reasons: string[]; useCases: string[] } | null;
  declare marketingConsent: boolean;
  /** The first-start admin until the first account to sign up takes it over (at most one user). */
  declare claimableByFirstSignUp: boolean;
}
