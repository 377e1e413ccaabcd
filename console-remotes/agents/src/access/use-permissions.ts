import { useQuery } from '@tanstack/react-query';
import { consoleApi, queryKeys, useSession } from '@engram/console-kit';
import { allows, memberPermissions, type Action } from './role-permissions.js';

/**
 * What the signed-in member may do in the active organization, from their membership (role and granted
 * permissions). Until it is known every action counts as not allowed, so nothing offered is then refused.
 */
export function usePermissions() {
  const { user, organization } = useSession();
  const membership = useQuery({
    // Under the members key, so changing a role on the members screen refreshes this too.
    queryKey: [...queryKeys.members, 'self', organization?.id ?? null, user.id],
    queryFn: async () => {
      const page = await consoleApi.members({ search: user.email ?? user.name, limit: 100 });
      return page.members.find((member) => member.id === user.id) ?? null;
    },
    enabled: organization !== null,
    staleTime: 60_000,
  });
  const permissions = membership.data ? memberPermissions(membership.data.role, membership.data.customPermissions) : new Set<string>();
  return { role: membership.data?.role ?? null, can: (action: Action) => allows(permissions, action) };
}

export type Permissions = ReturnType<typeof usePermissions>;
