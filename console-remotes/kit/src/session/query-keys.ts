/** Query keys shared by the shell and the remotes, so one can invalidate what the other shows. */
export const queryKeys = {
  self: ['console', 'self'] as const,
  organizations: ['console', 'organizations'] as const,
  projects: (search = '') => ['console', 'projects', search] as const,
  allProjects: ['console', 'projects'] as const,
  project: (slug: string) => ['console', 'project', slug] as const,
  apiKeys: ['console', 'api-keys'] as const,
  members: ['console', 'members'] as const,
  invitedMembers: ['console', 'invited-members'] as const,
  environmentVariables: ['console', 'environment-variables'] as const,
  developmentOutbox: ['console', 'development-outbox'] as const,
  /** The signed-in member's role and permissions there (and the console's settings). */
  consoleSettings: (organizationId: string) => ['console', 'console-settings', organizationId] as const,
  invite: (inviteCode: string) => ['console', 'invite', inviteCode] as const,
  /** Everything of the `/v1` API in one organization. */
  v1: (organizationId: string) => ['v1', organizationId] as const,
};
