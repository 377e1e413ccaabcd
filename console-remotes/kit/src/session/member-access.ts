import { useQuery } from '@tanstack/react-query';
import { consoleApi } from '../api/console-api.js';
import type { Permission, Role } from '../api/roles.js';
import { queryKeys } from './query-keys.js';
import { useSession } from './session-context.js';

export type MemberAccess = {
  /** The member's role in the active organization; null until known (or without one). */
  role: Role | null;
  /** Whether the API would let the member do what needs `permission`; false until known. */
  can(permission: Permission): boolean;
  /** Whether the answer has arrived, so a refusal can be told apart from not knowing yet. */
  known: boolean;
};

/**
 * What the signed-in member may do in the active organization, as the API computes it
 * (`GET /api/console-settings`), so screens hide or disable what it would refuse. Nothing counts
 * as allowed before the answer arrives, so nothing offered is then refused.
 */
export function useMemberAccess(): MemberAccess {
  const { organization } = useSession();
  const settings = useQuery({
    queryKey: queryKeys.consoleSettings(organization?.id ?? ''),
    queryFn: () => consoleApi.consoleSettings(),
    enabled: organization !== null,
    // A role an admin changes shows within half a minute (and at once on the next focus).
    staleTime: 30_000,
  });
  const permissions = new Set<Permission>(settings.data?.member.permissions ?? []);
  return { role: settings.data?.member.role ?? null, can: (permission) => permissions.has(permission), known: settings.isSuccess };
}
