import { queryKeys, type V1Client } from '@engram/console-kit';

/** Query keys of the identity screens. */
export const identityKeys = {
  all: (v1: V1Client) => [...queryKeys.v1(v1.organizationId), 'identities'] as const,
  page: (v1: V1Client, projectId: string, after: string | null) => [...identityKeys.all(v1), projectId, after] as const,
  agents: (v1: V1Client, identityId: string) => [...identityKeys.all(v1), 'agents', identityId] as const,
};
