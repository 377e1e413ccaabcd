import { queryKeys, type V1Client } from '@engram/console-kit';

/** Query keys of the group screens. */
export const groupKeys = {
  all: (v1: V1Client) => [...queryKeys.v1(v1.organizationId), 'groups'] as const,
  page: (v1: V1Client, projectId: string, after: string | null) => [...groupKeys.all(v1), 'page', projectId, after] as const,
  group: (v1: V1Client, groupId: string) => [...groupKeys.all(v1), 'group', groupId] as const,
  messages: (v1: V1Client, groupId: string) => [...groupKeys.all(v1), 'messages', groupId] as const,
};
