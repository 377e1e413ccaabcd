import type {
  ApiKey,
  ConsoleSettings,
  CreatedApiKey,
  EmailDelivery,
  EnvironmentVariable,
  InvitedMember,
  InviteLookup,
  InviteOutcome,
  Member,
  Organization,
  OrganizationSummary,
  OutboxMessage,
  Page,
  PageParams,
  Project,
  PublicUser,
} from './console-types.js';
import { send, sendJson } from './http.js';

/** The console API base (spec 000 "api base"); same origin, so the session cookie just works. */
export const CONSOLE_API = '/api';

const path = (suffix: string) => `${CONSOLE_API}${suffix}`;

/** Thin functions over `/api`; each maps to one route of api/src/routes/console/. */
export const consoleApi = {
  signUp: (body: { name: string; email: string; password: string; referralCode?: string | undefined }) => send(path('/user/new'), { method: 'POST', json: body }),
  login: (body: { email: string; password: string }) => send(path('/user/login'), { method: 'POST', json: body }),
  logout: () => send(path('/user/logout'), { method: 'POST' }),
  startPasswordReset: (body: { email: string }) =>
    sendJson<{ success: boolean; emailDelivery: EmailDelivery }>(path('/user/forgot-password/start'), { method: 'POST', json: body }),
  finishPasswordReset: (body: { email: string; password: string; code: string }) =>
    send(path('/user/forgot-password/update'), { method: 'POST', json: body }),

  self: () => sendJson<PublicUser>(path('/user/self')),
  updateSelf: (body: { name?: string; theme?: string; locale?: string }) => sendJson<PublicUser>(path('/user/self'), { method: 'PUT', json: body }),
  /** Gives the active organization access to the platform with one of its access codes. */
  redeemCloudAccessCode: (code: string) => sendJson<{ hasCloudAccess: boolean }>(path('/cloud-access-code'), { method: 'POST', json: { code } }),
  organizations: () => sendJson<{ organizations: OrganizationSummary[] }>(path('/user/self/organizations')),
  setActiveOrganization: (activeOrganizationId: string) =>
    send(path('/user/self/active-organization'), { method: 'PUT', json: { activeOrganizationId } }),
  createOrganization: (body: { name: string }) => sendJson<OrganizationSummary>(path('/organizations'), { method: 'POST', json: body }),
  organization: () => sendJson<Organization>(path('/organizations/self')),
  consoleSettings: () => sendJson<ConsoleSettings>(path('/console-settings')),
  members: (params: PageParams = {}) => sendJson<Page<'members', Member>>(path('/organizations/self/members'), { query: params }),

  projects: (params: PageParams & { orderBy?: 'name' | 'createdAt' | 'updatedAt'; orderDirection?: 'asc' | 'desc' } = {}) =>
    sendJson<Page<'projects', Project>>(path('/projects'), { query: params }),
  project: (slug: string) => sendJson<Project>(path(`/projects/${encodeURIComponent(slug)}`), { query: { lookupBy: 'slug' } }),
  createProject: (body: { name: string }) => sendJson<Project>(path('/projects'), { method: 'POST', json: body }),
  favoriteProject: (projectId: string, isFavorited: boolean) =>
    sendJson<Project>(path(`/projects/${encodeURIComponent(projectId)}/favorite`), { method: 'POST', json: { isFavorited } }),
  deleteProject: (projectId: string) => send(path(`/projects/${encodeURIComponent(projectId)}`), { method: 'DELETE' }),

  signUpWithInvite: (body: { name: string; email: string; password: string; inviteCode: string }) =>
    send(path('/user/new-with-invite'), { method: 'POST', json: body }),
  startEmailVerification: () =>
    sendJson<{ success: boolean; nextResendTime: string; emailDelivery: EmailDelivery }>(path('/user/self/email-verification/start'), { method: 'POST' }),
  completeEmailVerification: (body: { verificationCode: string }) =>
    sendJson<{ success: boolean; allVerified: boolean }>(path('/user/self/email-verification/complete'), { method: 'POST', json: body }),
  /** Development servers only (404 elsewhere): the newest codes and invitations sent to the signed-in user. */
  developmentOutbox: (params: { limit?: number } = {}) =>
    sendJson<{ messages: OutboxMessage[] }>(path('/development/outbox'), { query: params }),

  claimOnboardingStep: (body: { onboardingStep: string; stepToClaim?: string }) =>
    send(path('/user/self/onboarding/claim'), { method: 'PUT', json: body }),
  pauseOnboarding: () => send(path('/user/self/onboarding/pause'), { method: 'POST' }),
  unpauseOnboarding: () => send(path('/user/self/onboarding/unpause'), { method: 'POST' }),
  finishOnboarding: (body: { reasons: string[]; useCases: string[]; emailConsent: boolean }) =>
    send(path('/user/self/onboarded'), { method: 'POST', json: body }),

  removeMember: (memberId: string) => send(path(`/organizations/self/members/${encodeURIComponent(memberId)}`), { method: 'DELETE' }),
  changeMemberRole: (memberId: string, body: { role: string; customPermissions?: string[] }) =>
    send(path(`/organizations/self/members/${encodeURIComponent(memberId)}/role`), { method: 'PATCH', json: body }),
  invitedMembers: (params: PageParams = {}) => sendJson<Page<'members', InvitedMember>>(path('/organizations/self/invited-members'), { query: params }),
  inviteMember: async (body: { email: string; role: string }): Promise<InviteOutcome> => {
    const response = await send(path('/organizations/self/invited-members'), { method: 'POST', json: body });
    const created = (await response.json()) as unknown;
    if (response.status !== 201) return { kind: 'added', user: created as { id: string; email: string; name: string } };
    const { emailDelivery, ...invite } = created as InvitedMember & { emailDelivery: EmailDelivery };
    return { kind: 'invited', invite, emailDelivery };
  },
  revokeInvite: (inviteId: string) => send(path(`/organizations/self/invited-members/${encodeURIComponent(inviteId)}`), { method: 'DELETE' }),
  regenerateInvite: (inviteId: string) =>
    sendJson<InvitedMember>(path(`/organizations/self/invited-members/${encodeURIComponent(inviteId)}/regenerate`), { method: 'POST' }),
  lookupInvite: (inviteCode: string) => sendJson<InviteLookup>(path(`/invites/${encodeURIComponent(inviteCode)}`)),

  environmentVariables: (params: PageParams = {}) =>
    sendJson<Page<'environmentVariables', EnvironmentVariable>>(path('/environment-variables'), { query: params }),
  /** A new key (`keyAlreadyExists` otherwise). */
  createEnvironmentVariable: (body: { key: string; value: string }) =>
    sendJson<EnvironmentVariable>(path('/environment-variables'), { method: 'POST', json: body }),
  /** Sets the value of a key. */
  setEnvironmentVariable: (body: { key: string; value: string }) =>
    sendJson<EnvironmentVariable>(path('/environment-variables'), { method: 'PUT', json: body }),
  deleteEnvironmentVariable: (environmentVariableId: string) =>
    send(path(`/environment-variables/${encodeURIComponent(environmentVariableId)}`), { method: 'DELETE' }),

  apiKeys: (params: PageParams = {}) => sendJson<Page<'apiKeys', ApiKey>>(path('/api-keys'), { query: params }),
  createApiKey: (body: { name: string }) => sendJson<CreatedApiKey>(path('/api-keys'), { method: 'POST', json: body }),
  deleteApiKey: (apiKeyId: string) => send(path(`/api-keys/${encodeURIComponent(apiKeyId)}`), { method: 'DELETE' }),
};
