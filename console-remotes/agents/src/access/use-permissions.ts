import { useConsoleSettings } from '../queries.js';
import { allows, type Action } from './action-permissions.js';

/**
 * What the signed-in member may do in these screens, from the permissions the API grants them. Until they are
 * known every action counts as not allowed, so nothing offered is then refused; `known` tells a refusal apart
 * from not knowing yet (for the hints that say why something is missing).
 */
export function usePermissions() {
  const settings = useConsoleSettings();
  const granted = new Set<string>(settings.data?.member.permissions ?? []);
  return { known: settings.isSuccess, can: (action: Action) => allows(granted, action) };
}
