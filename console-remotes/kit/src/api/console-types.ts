/** Wire shapes of the console API (`/api`), as its routes in api/src/routes/console/ declare them. */

import type { Permission, Role } from './roles.js';

export type OnboardingStatus = {
  claimedSteps: string[];
  completedSteps: string[];
  currentStep: string | null;
  pausedAt: string | null;
};

/** What the active organization has done of the tour, read from its data (an agent, a message sent to one, an API key). */
export type OnboardingProgress = {
  doneSteps: string[];
  /** Where its agents are made: the newest agent's project, else the default project. */
  projectSlug: string | null;
  /** Its newest agent (in a project). */
  agentId: string | null;
};

/** How an email went out: to a mail server, or nowhere (no mail server configured), waiting in the server's outbox. */
export type EmailDelivery = 'smtp' | 'outbox';

/** `GET /api/console-settings`: where runs are inspected, and the signed-in member's role and permissions. */
export type ConsoleSettings = {
  temporalUi: { url: string; namespace: string } | null;
  member: { role: Role; permissions: Permission[] };
  /** Whether tier limits and credits refuse anything here (ENGRAM_BILLING), and whether cards can pay (Stripe configured). */
  billing: { enforced: boolean; cardPayments: boolean };
  /** The web_search tool's provider, or null when the operator configured none. */
  webSearch: { provider: 'exa' | 'tavily' | 'brave' | 'searxng' | null };
};

export type PublicUser = {
  id: string;
  name: string;
  email: string | null;
  imageUrl: string;
  permissions: string[];
  /** `light`, `dark` or `auto`. */
  theme: string;
  locale: string;
  activeOrganizationId: string | null;
  isVerified: boolean;
  hasOnboarded: boolean;
  createdAt: string;
  hasCloudAccess: boolean;
  onboardingStatus: OnboardingStatus | null;
  /** Null without an active organization. */
  onboardingProgress: OnboardingProgress | null;
};

export type OrganizationSummary = { id: string; name: string };

export type Organization = OrganizationSummary & { isAdmin: boolean; createdAt: string; updatedAt: string };

export type Project = { id: string; name: string; slug: string; updatedAt: string; isFavorited: boolean };

export type ApiKey = { id: string; name: string; keyPrefix: string; createdAt: string; updatedAt: string };

export type CreatedApiKey = ApiKey & { apiKey: string };

export type Member = {
  id: string;
  name: string;
  email: string | null;
  role: string;
  customPermissions: string[];
  createdAt: string;
  updatedAt: string;
};

export type Page<K extends string, T> = { [key in K]: T[] } & { hasNextPage: boolean };

export type PageParams = { offset?: number; limit?: number; search?: string };

/** An invitation waiting for its invitee to sign up; the code is what they sign up with. */
export type InvitedMember = {
  id: string;
  email: string;
  role: string;
  inviteCode: string;
  createdAt: string;
  expiresAt: string;
};

/** Inviting an email that already has an account adds it at once (200) instead of inviting it (201). */
export type InviteOutcome =
  | { kind: 'invited'; invite: InvitedMember; emailDelivery: EmailDelivery }
  | { kind: 'added'; user: { id: string; email: string; name: string } };

/** What an invite code is for, as anyone holding it may see. */
export type InviteLookup = { organizationName: string; email: string };

/** Values are write-only: the console never reads one back. */
export type EnvironmentVariable = { id: string; key: string; updatedAt: string };

/** A notification the development outbox shows its recipient. */
export type OutboxMessage = { id: string; channel: 'email' | 'sms'; recipient: string; subject: string; body: string; createdAt: string };
