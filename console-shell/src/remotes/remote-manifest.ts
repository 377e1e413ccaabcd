import { useQuery } from '@tanstack/react-query';
import { sendJson, useSession } from '@engram/console-kit';

/** One remote as the API's manifest (GET /console/remotes.json) lists it. */
export type RemoteInfo = {
  /** Module Federation name: the shell loads `<name>/app`. */
  name: string;
  title: string;
  /** Mounted under /projects/:projectSlug/<route>/*. */
  route: string;
  icon: string;
  order: number;
  /** URL of the remote's mf-manifest.json (same origin in production, a dev server in development). */
  entry: string;
};

export const REMOTES_MANIFEST = '/console/remotes.json';

/** The remotes listed for the signed-in user (platform admins get the admin remote too), so the key names the user. */
export function useRemotes() {
  const { user } = useSession();
  return useQuery({
    queryKey: ['console', 'remotes-manifest', user.id],
    queryFn: async () => {
      const manifest = await sendJson<{ remotes: RemoteInfo[] }>(REMOTES_MANIFEST);
      return [...manifest.remotes].sort((a, b) => a.order - b.order || a.title.localeCompare(b.title));
    },
    staleTime: Number.POSITIVE_INFINITY,
  });
}
