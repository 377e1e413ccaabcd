import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useOrganizationId } from '../templates/template-queries.js';
import { datasetsApi, type DatasetItem } from './datasets-api.js';

/** Query keys of datasets, per organization: a switch of organization never shows another one's datasets. */
export const datasetKeys = {
  all: (organizationId: string) => ['console', 'datasets', organizationId] as const,
  list: (organizationId: string, filter: object) => [...datasetKeys.all(organizationId), 'list', filter] as const,
  dataset: (organizationId: string, datasetId: string) => [...datasetKeys.all(organizationId), 'dataset', datasetId] as const,
  items: (organizationId: string, datasetId: string, page: object) => [...datasetKeys.dataset(organizationId, datasetId), 'items', page] as const,
  runs: (organizationId: string, datasetId: string) => [...datasetKeys.dataset(organizationId, datasetId), 'runs'] as const,
  run: (organizationId: string, runId: string) => [...datasetKeys.all(organizationId), 'run', runId] as const,
  comparison: (organizationId: string, baseRunId: string, otherRunId: string) => [...datasetKeys.all(organizationId), 'comparison', baseRunId, otherRunId] as const,
};

/** The most items the API answers in one page. */
const ITEM_PAGE_LIMIT = 100;

/** While a run is under way its numbers are read again every second, so its progress shows live. */
const LIVE_INTERVAL_MS = 1000;

export function useDataset(datasetId: string) {
  const organizationId = useOrganizationId();
  return useQuery({ queryKey: datasetKeys.dataset(organizationId, datasetId), queryFn: () => datasetsApi.get(datasetId) });
}

export function useDatasetItems(datasetId: string, page: { offset: number; limit: number }) {
  const organizationId = useOrganizationId();
  return useQuery({
    queryKey: datasetKeys.items(organizationId, datasetId, page),
    queryFn: () => datasetsApi.items(datasetId, page),
    placeholderData: keepPreviousData,
  });
}

/** The dataset's runs, newest first, refreshed while one of them runs. */
export function useDatasetRuns(datasetId: string) {
  const organizationId = useOrganizationId();
  return useQuery({
    queryKey: datasetKeys.runs(organizationId, datasetId),
    queryFn: async () => (await datasetsApi.runs(datasetId)).runs,
    refetchInterval: (query) => (query.state.data?.some((run) => run.status === 'running') ? LIVE_INTERVAL_MS : false),
  });
}

export function useDatasetRun(runId: string) {
  const organizationId = useOrganizationId();
  return useQuery({
    queryKey: datasetKeys.run(organizationId, runId),
    queryFn: () => datasetsApi.run(runId),
    refetchInterval: (query) => (query.state.data?.run.status === 'running' ? LIVE_INTERVAL_MS : false),
  });
}

export function useRunComparison(baseRunId: string, otherRunId: string) {
  const organizationId = useOrganizationId();
  return useQuery({
    queryKey: datasetKeys.comparison(organizationId, baseRunId, otherRunId),
    queryFn: () => datasetsApi.compare(baseRunId, otherRunId),
    refetchInterval: (query) =>
      query.state.data && (query.state.data.base.run.status === 'running' || query.state.data.other.run.status === 'running') ? LIVE_INTERVAL_MS : false,
  });
}

/** Every item of a dataset (at most 1000, read 100 at a time), for showing each result beside its message. */
export function useAllDatasetItems(datasetId: string) {
  const organizationId = useOrganizationId();
  return useQuery({
    queryKey: datasetKeys.items(organizationId, datasetId, { all: true }),
    queryFn: async () => {
      const items: DatasetItem[] = [];
      for (let offset = 0; ; offset += ITEM_PAGE_LIMIT) {
        const page = await datasetsApi.items(datasetId, { offset, limit: ITEM_PAGE_LIMIT });
        items.push(...page.items);
        if (!page.hasNextPage) return items;
      }
    },
  });
}
