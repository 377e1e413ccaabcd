import { createContext, useContext, useMemo, type ReactNode } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { consoleApi } from '../api/console-api.js';
import type { OrganizationSummary, PublicUser } from '../api/console-types.js';
import { ApiError } from '../api/errors.js';
import { createV1Client, type V1Client } from '../api/v1-api.js';
import { queryKeys } from './query-keys.js';

export type Session = {
  user: PublicUser;
  organizations: OrganizationSummary[];
  /** The organization the user acts in (null for an account without one). */
  organization: OrganizationSummary | null;
  /** The agent API for the active organization. */
  v1: V1Client | null;
  switchOrganization(organizationId: string): Promise<void>;
  logout(): Promise<void>;
  updateUser(changes: { name?: string; theme?: string; locale?: string }): Promise<void>;
};

export type SessionState =
  | { status: 'loading' }
  | { status: 'anonymous' }
  | { status: 'error'; error: Error }
  | { status: 'signed-in'; session: Session };

const SessionContext = createContext<SessionState>({ status: 'loading' });

/** The signed-in user (GET /api/user/self): a 401 means "show the login page", not an error. */
export function SessionProvider({ children }: { children: ReactNode }) {
  const queryClient = useQueryClient();
  const self = useQuery({
    queryKey: queryKeys.self,
    queryFn: async () => {
      try {
        return await consoleApi.self();
      } catch (error) {
        if (error instanceof ApiError && error.status === 401) return null;
        throw error;
      }
    },
    staleTime: 60_000,
    retry: (count, error) => !(error instanceof ApiError && error.status < 500) && count < 2,
  });
  const signedIn = Boolean(self.data);
  const organizations = useQuery({
    queryKey: queryKeys.organizations,
    queryFn: async () => (await consoleApi.organizations()).organizations,
    enabled: signedIn,
    staleTime: 60_000,
  });

  const activeOrganizationId = self.data?.activeOrganizationId ?? null;
  // One client per organization, so screens keyed on it do not restart when the user changes.
  const v1 = useMemo(() => (activeOrganizationId ? createV1Client(activeOrganizationId) : null), [activeOrganizationId]);

  const state = useMemo<SessionState>(() => {
    if (self.isPending) return { status: 'loading' };
    if (self.error) return { status: 'error', error: self.error };
    const user = self.data;
    if (!user) return { status: 'anonymous' };
    if (organizations.isPending) return { status: 'loading' };
    const list = organizations.data ?? [];
    const organization = list.find((candidate) => candidate.id === user.activeOrganizationId) ?? null;
    const session: Session = {
      user,
      organizations: list,
      organization,
      v1: organization ? v1 : null,
      async switchOrganization(organizationId) {
        await consoleApi.setActiveOrganization(organizationId);
        // Everything cached belongs to the old organization.
        queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== 'console' || query.queryKey[1] !== 'self' });
        await queryClient.invalidateQueries({ queryKey: queryKeys.self });
      },
      async logout() {
        await consoleApi.logout();
        // Signed out first, on the query the session watches (after clear() it would watch a removed one
        // and never see it), then nothing the account could read stays cached.
        queryClient.setQueryData(queryKeys.self, null);
        queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== 'console' || query.queryKey[1] !== 'self' });
      },
      async updateUser(changes) {
        const updated = await consoleApi.updateSelf(changes);
        queryClient.setQueryData(queryKeys.self, updated);
      },
    };
    return { status: 'signed-in', session };
  }, [self.isPending, self.error, self.data, organizations.isPending, organizations.data, queryClient, v1]);

  return <SessionContext.Provider value={state}>{children}</SessionContext.Provider>;
}

export function useSessionState(): SessionState {
  return useContext(SessionContext);
}

/** The session, inside screens only reachable signed in. */
export function useSession(): Session {
  const state = useContext(SessionContext);
  if (state.status !== 'signed-in') throw new Error('useSession() outside a signed-in screen');
  return state.session;
}

/** The `/v1` client of the active organization, inside screens that need one. */
export function useV1(): V1Client {
  const { v1 } = useSession();
  if (!v1) throw new Error('No active organization');
  return v1;
}
