import { CONSOLE_API, send, sendJson } from '@engram/console-kit';
import type { Dataset, DatasetItem, DatasetItemFields, DatasetRun, DatasetRunResult, DatasetRunSummary } from './dataset-types.js';

export type * from './dataset-types.js';

/*
 * The console API of datasets (api/src/routes/console/datasets.ts): thin functions, one per route, with the
 * generated wire shapes of what those routes answer.
 */

export type DatasetRunDetails = { run: DatasetRun; summary: DatasetRunSummary; results: DatasetRunResult[] };

export type ComparedRuns = {
  base: { run: DatasetRun; summary: DatasetRunSummary };
  other: { run: DatasetRun; summary: DatasetRunSummary };
  rows: Array<{ item: DatasetItem; base: DatasetRunResult | null; other: DatasetRunResult | null }>;
};

const api = (suffix: string) => `${CONSOLE_API}${suffix}`;
const segment = encodeURIComponent;
const datasetPath = (datasetId: string, suffix = '') => api(`/datasets/${segment(datasetId)}${suffix}`);

/** Where the browser downloads a dataset's items as JSONL (the route answers with an attachment). */
export const exportUrl = (datasetId: string) => datasetPath(datasetId, '/items/export');

export const datasetsApi = {
  list: (query: { search?: string; projectId?: string; offset: number; limit: number }) =>
    sendJson<{ datasets: Dataset[]; hasNextPage: boolean }>(api('/datasets'), { query }),
  get: (datasetId: string) => sendJson<Dataset>(datasetPath(datasetId)),
  create: (body: { name: string; description: string | null; projectId: string }) => sendJson<Dataset>(api('/datasets'), { method: 'POST', json: body }),
  update: (datasetId: string, body: { name?: string; description?: string | null }) => sendJson<Dataset>(datasetPath(datasetId), { method: 'PATCH', json: body }),
  delete: (datasetId: string) => send(datasetPath(datasetId), { method: 'DELETE' }),

  items: (datasetId: string, page: { offset: number; limit: number }) =>
    sendJson<{ items: DatasetItem[]; hasNextPage: boolean; total: number }>(datasetPath(datasetId, '/items'), { query: page }),
  createItem: (datasetId: string, fields: DatasetItemFields) => sendJson<DatasetItem>(datasetPath(datasetId, '/items'), { method: 'POST', json: fields }),
  updateItem: (datasetId: string, itemId: string, fields: DatasetItemFields) =>
    sendJson<DatasetItem>(datasetPath(datasetId, `/items/${segment(itemId)}`), { method: 'PATCH', json: fields }),
  deleteItem: (datasetId: string, itemId: string) => send(datasetPath(datasetId, `/items/${segment(itemId)}`), { method: 'DELETE' }),
  importItems: (datasetId: string, jsonl: string) => sendJson<{ imported: number }>(datasetPath(datasetId, '/items/import'), { method: 'POST', json: { jsonl } }),

  runs: (datasetId: string) => sendJson<{ runs: DatasetRun[] }>(datasetPath(datasetId, '/runs')),
  startRun: (datasetId: string, body: { templateVersion: string; concurrency: number; memoryVariables: Record<string, string> }) =>
    sendJson<DatasetRun>(datasetPath(datasetId, '/runs'), { method: 'POST', json: body }),
  run: (runId: string) => sendJson<DatasetRunDetails>(api(`/dataset-runs/${segment(runId)}`)),
  compare: (baseRunId: string, otherRunId: string) => sendJson<ComparedRuns>(api('/dataset-runs/compare'), { query: { base: baseRunId, other: otherRunId } }),
};
