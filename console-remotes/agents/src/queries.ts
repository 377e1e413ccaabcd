import { useQuery } from '@tanstack/react-query';
import { queryKeys, useV1, type V1Client } from '@engram/console-kit';
import { getConsoleSettings, getRun, getStepMetrics, getStepTrace, listRunSteps } from './ade-api.js';

/** Query keys of the agents remote, under the kit's per-organization `/v1` key. */
export const agentKeys = {
  all: (v1: V1Client) => [...queryKeys.v1(v1.organizationId), 'agents'] as const,
  list: (v1: V1Client, filter: object) => [...agentKeys.all(v1), 'list', filter] as const,
  count: (v1: V1Client, filter: object) => [...agentKeys.all(v1), 'count', filter] as const,
  agent: (v1: V1Client, agentId: string) => [...agentKeys.all(v1), 'agent', agentId] as const,
  /** Everything that changes when the agent runs: its blocks, context, runs and messages. */
  live: (v1: V1Client, agentId: string) => [...agentKeys.agent(v1, agentId), 'live'] as const,
  blocks: (v1: V1Client, agentId: string) => [...agentKeys.live(v1, agentId), 'blocks'] as const,
  context: (v1: V1Client, agentId: string) => [...agentKeys.live(v1, agentId), 'context'] as const,
  runs: (v1: V1Client, agentId: string) => [...agentKeys.live(v1, agentId), 'runs'] as const,
  tools: (v1: V1Client, agentId: string) => [...agentKeys.agent(v1, agentId), 'tools'] as const,
  /** Every page and search of archival memory (what an insert or delete makes stale). */
  passages: (v1: V1Client, agentId: string) => [...agentKeys.live(v1, agentId), 'passages'] as const,
  passagePage: (v1: V1Client, agentId: string, after: string | null) => [...agentKeys.passages(v1, agentId), 'page', after] as const,
  passageSearch: (v1: V1Client, agentId: string, search: object) => [...agentKeys.passages(v1, agentId), 'search', search] as const,
  /** The folders attached to the agent, every page (what attach and detach make stale). */
  folders: (v1: V1Client, agentId: string) => [...agentKeys.agent(v1, agentId), 'folders'] as const,
  folderPage: (v1: V1Client, agentId: string, after: string | null) => [...agentKeys.folders(v1, agentId), 'page', after] as const,
  /** The agent's view of its folders' files, every page: a run's file tools change it too, hence under `live`. */
  files: (v1: V1Client, agentId: string) => [...agentKeys.live(v1, agentId), 'files'] as const,
  filePage: (v1: V1Client, agentId: string, after: string | null) => [...agentKeys.files(v1, agentId), 'page', after] as const,
  /** The organization's folders (the attach picker) and, under each, its files. */
  orgFolders: (v1: V1Client) => [...queryKeys.v1(v1.organizationId), 'folders'] as const,
  orgFolderList: (v1: V1Client) => [...agentKeys.orgFolders(v1), 'list'] as const,
  folderFiles: (v1: V1Client, folderId: string) => [...agentKeys.orgFolders(v1), folderId, 'files'] as const,
  folderFilePage: (v1: V1Client, folderId: string, after: string | null) => [...agentKeys.folderFiles(v1, folderId), after] as const,
  models: (v1: V1Client) => [...queryKeys.v1(v1.organizationId), 'models'] as const,
  tags: (v1: V1Client) => [...queryKeys.v1(v1.organizationId), 'tags'] as const,
  orgTools: (v1: V1Client) => [...queryKeys.v1(v1.organizationId), 'tools'] as const,
  runUsage: (v1: V1Client, runId: string) => [...queryKeys.v1(v1.organizationId), 'run-usage', runId] as const,
  /** One run and what it is made of: its record, steps, and each step's timings and provider call. */
  run: (v1: V1Client, runId: string) => [...queryKeys.v1(v1.organizationId), 'run', runId] as const,
  runSteps: (v1: V1Client, runId: string) => [...agentKeys.run(v1, runId), 'steps'] as const,
  step: (v1: V1Client, stepId: string) => [...queryKeys.v1(v1.organizationId), 'step', stepId] as const,
  stepPart: (v1: V1Client, stepId: string, part: 'metrics' | 'trace') => [...agentKeys.step(v1, stepId), part] as const,
  consoleSettings: (v1: V1Client) => [...queryKeys.v1(v1.organizationId), 'console-settings'] as const,
};

export function useAgent(agentId: string) {
  const v1 = useV1();
  return useQuery({ queryKey: agentKeys.agent(v1, agentId), queryFn: () => v1.getAgent(agentId) });
}

export function useModels() {
  const v1 = useV1();
  return useQuery({ queryKey: agentKeys.models(v1), queryFn: () => v1.listModels(), staleTime: 5 * 60_000 });
}

export function useTags() {
  const v1 = useV1();
  return useQuery({ queryKey: agentKeys.tags(v1), queryFn: () => v1.listTags({ limit: 100 }), staleTime: 60_000 });
}

export function useBlocks(agentId: string) {
  const v1 = useV1();
  return useQuery({ queryKey: agentKeys.blocks(v1, agentId), queryFn: () => v1.listBlocks(agentId) });
}

export function useContextWindow(agentId: string) {
  const v1 = useV1();
  return useQuery({ queryKey: agentKeys.context(v1, agentId), queryFn: () => v1.context(agentId) });
}

export function useAgentTools(agentId: string) {
  const v1 = useV1();
  return useQuery({ queryKey: agentKeys.tools(v1, agentId), queryFn: () => v1.listAgentTools(agentId) });
}

export function useOrganizationTools(enabled: boolean) {
  const v1 = useV1();
  return useQuery({ queryKey: agentKeys.orgTools(v1), queryFn: () => v1.listTools({ limit: 100 }), enabled, staleTime: 60_000 });
}

export function useRunUsage(runId: string, enabled: boolean) {
  const v1 = useV1();
  return useQuery({ queryKey: agentKeys.runUsage(v1, runId), queryFn: () => v1.runUsage(runId), enabled, staleTime: Number.POSITIVE_INFINITY });
}

/** A run finishes on its own, so its record is read again while it is still going. */
const whileActive = (status: string | undefined) => (status === 'created' || status === 'running' ? 2000 : false);

export function useRun(runId: string) {
  const v1 = useV1();
  return useQuery({ queryKey: agentKeys.run(v1, runId), queryFn: () => getRun(runId), refetchInterval: (query) => whileActive(query.state.data?.status) });
}

export function useRunSteps(runId: string, runStatus: string | undefined) {
  const v1 = useV1();
  return useQuery({ queryKey: agentKeys.runSteps(v1, runId), queryFn: () => listRunSteps(runId), refetchInterval: whileActive(runStatus) });
}

/** A step's timings and provider call, read when the step is opened; a finished step never changes. */
export function useStepDetail(stepId: string, enabled: boolean) {
  const v1 = useV1();
  const options = { enabled, staleTime: Number.POSITIVE_INFINITY };
  return {
    metrics: useQuery({ queryKey: agentKeys.stepPart(v1, stepId, 'metrics'), queryFn: () => getStepMetrics(stepId), ...options }),
    trace: useQuery({ queryKey: agentKeys.stepPart(v1, stepId, 'trace'), queryFn: () => getStepTrace(stepId), ...options }),
  };
}

/** Where runs are inspected in the Temporal Web UI, and what the signed-in member may do. */
export function useConsoleSettings() {
  const v1 = useV1();
  return useQuery({ queryKey: agentKeys.consoleSettings(v1), queryFn: getConsoleSettings, staleTime: 60_000 });
}

/**
 * What the signed-in member may do, as the API's permission names (`update_agents`, `create_data_sources`…) that
 * the routes behind an action need (api/src/http/permissions.ts). Until they are known nothing counts as allowed,
 * so no action is offered that the API would then refuse.
 */
export function useMemberPermissions() {
  const granted = new Set(useConsoleSettings().data?.member.permissions ?? []);
  return { can: (...needed: string[]) => needed.every((permission) => granted.has(permission)) };
}
