import { queryKeys, type V1Client } from '@engram/console-kit';

/**
 * Query keys of the tool screens. Lists sit under the organization's `tools` key, the one the ADE's attach
 * picker reads, so a tool saved here shows up there too.
 */
export const toolKeys = {
  all: (v1: V1Client) => [...queryKeys.v1(v1.organizationId), 'tools'] as const,
  list: (v1: V1Client, filter: object, after: string | null) => [...toolKeys.all(v1), 'list', filter, after] as const,
  tool: (v1: V1Client, toolId: string) => [...toolKeys.all(v1), 'tool', toolId] as const,
  /** A schema derived from source: the same source always gives the same schema. */
  pythonSchema: (v1: V1Client, code: string) => [...queryKeys.v1(v1.organizationId), 'python-schema', code] as const,
};
