import { queryKeys, type V1Client } from '@engram/console-kit';

/** Query keys of the runs and batches screen. */
export const jobKeys = {
  all: (v1: V1Client) => [...queryKeys.v1(v1.organizationId), 'jobs'] as const,
  page: (v1: V1Client, after: string | null) => [...jobKeys.all(v1), 'page', after] as const,
  items: (v1: V1Client, batchId: string) => [...jobKeys.all(v1), 'items', batchId] as const,
};
