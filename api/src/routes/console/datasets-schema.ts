import { z } from 'zod';
import type { Dataset, DatasetItem, DatasetRunResult } from '@engram/db';
import { DatasetItemLine, MAX_RUN_CONCURRENCY, DEFAULT_RUN_CONCURRENCY, type DatasetRunSummary, type DatasetRunView } from '../../services/datasets/dataset-service.js';
import { iso, PageQuery } from './schemas.js';

const NAME_REQUIRED = 'Name is required';

/** Spec 000 §3: id, name, description, organizationId, projectId, timestamps. */
export const DatasetSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  organizationId: z.string(),
  projectId: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
}).meta({ id: 'Dataset' });

const CreateMessageSchema = z.object({ role: z.enum(['user', 'system']), content: z.string() });
const ScorerSchema = z.enum(['exact', 'contains', 'llm']);

/** Spec 000 §3: id, datasetId, createMessage; with what the answer is scored against. */
export const DatasetItemSchema = z.object({
  id: z.string(),
  datasetId: z.string(),
  createMessage: CreateMessageSchema,
  expectedAnswer: z.string().nullable(),
  scorer: ScorerSchema.nullable(),
  graderNote: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
}).meta({ id: 'DatasetItem' });

/** Spec 000 §5: a dataset's name is required. */
export const CreateDatasetBody = z.object({
  name: z.string({ error: NAME_REQUIRED }).trim().min(1, NAME_REQUIRED),
  description: z.string().nullish(),
  projectId: z.string().optional(),
});

export const UpdateDatasetBody = z.object({
  name: z.string({ error: NAME_REQUIRED }).trim().min(1, NAME_REQUIRED).optional(),
  description: z.string().nullish(),
});

export const DatasetListQuery = PageQuery.extend({ projectId: z.string().optional() });
export const DatasetParams = z.object({ datasetId: z.string() });
export const DatasetItemParams = z.object({ datasetId: z.string(), datasetItemId: z.string() });
export const DatasetRunParams = z.object({ datasetRunId: z.string() });

export const CreateDatasetItemBody = DatasetItemLine;
export const UpdateDatasetItemBody = DatasetItemLine.partial();
export const ImportDatasetItemsBody = z.object({ jsonl: z.string() });

export const StartDatasetRunBody = z.object({
  /** `name:version` (or `name:latest`) of a saved template version. */
  templateVersion: z.string().min(1, 'A template version is required'),
  concurrency: z.number().int().min(1).max(MAX_RUN_CONCURRENCY).default(DEFAULT_RUN_CONCURRENCY),
  memoryVariables: z.record(z.string(), z.string()).default({}),
});

export const CompareRunsQuery = z.object({ base: z.string(), other: z.string() });

const RunStatusSchema = z.enum(['running', 'completed', 'failed']);

export const DatasetRunSchema = z.object({
  id: z.string(),
  datasetId: z.string(),
  templateId: z.string(),
  templateVersionId: z.string(),
  /** `name:version`. */
  templateVersion: z.string(),
  status: RunStatusSchema,
  concurrency: z.number(),
  itemCount: z.number(),
  /** Results by status: pending, running, grading, completed, failed. */
  counts: z.record(z.string(), z.number()),
  startedAt: z.string(),
  completedAt: z.string().nullable(),
}).meta({ id: 'DatasetRun' });

export const DatasetRunSummarySchema = z.object({
  items: z.number(),
  completed: z.number(),
  failed: z.number(),
  running: z.number(),
  scored: z.number(),
  meanScore: z.number().nullable(),
  medianLatencyMs: z.number().nullable(),
  totalTokens: z.number(),
  totalCost: z.number(),
  toolErrors: z.number(),
}).meta({ id: 'DatasetRunSummary' });

export const DatasetRunResultSchema = z.object({
  itemId: z.string(),
  status: z.enum(['pending', 'running', 'grading', 'completed', 'failed']),
  agentId: z.string().nullable(),
  runId: z.string().nullable(),
  answer: z.string().nullable(),
  latencyMs: z.number().nullable(),
  steps: z.number().nullable(),
  promptTokens: z.number().nullable(),
  completionTokens: z.number().nullable(),
  totalTokens: z.number().nullable(),
  /** Credits charged for the item's steps. */
  cost: z.number().nullable(),
  toolErrors: z.number().nullable(),
  /** 0 to 1; null when the item expects nothing (or its run failed). */
  score: z.number().nullable(),
  scoreReason: z.string().nullable(),
  error: z.string().nullable(),
}).meta({ id: 'DatasetRunResult' });

export function datasetToWire(dataset: Dataset): z.infer<typeof DatasetSchema> {
  return {
    id: dataset.id,
    name: dataset.name,
    description: dataset.description,
    organizationId: dataset.organizationId,
    projectId: dataset.projectId,
    createdAt: iso(dataset.createdAt),
    updatedAt: iso(dataset.updatedAt),
  };
}

export function datasetItemToWire(item: DatasetItem): z.infer<typeof DatasetItemSchema> {
  return {
    id: item.id,
    datasetId: item.datasetId,
    createMessage: { role: item.createMessage.role, content: item.createMessage.content },
    expectedAnswer: item.expectedAnswer,
    scorer: item.scorer,
    graderNote: item.graderNote,
    createdAt: iso(item.createdAt),
    updatedAt: iso(item.updatedAt),
  };
}

export function datasetRunToWire(view: DatasetRunView): z.infer<typeof DatasetRunSchema> {
  const { run } = view;
  return {
    id: run.id,
    datasetId: run.datasetId,
    templateId: run.templateId,
    templateVersionId: run.templateVersionId,
    templateVersion: `${view.templateName}:${view.version}`,
    status: run.status,
    concurrency: run.concurrency,
    itemCount: run.itemCount,
    counts: view.counts,
    startedAt: iso(run.startedAt),
    completedAt: run.completedAt ? iso(run.completedAt) : null,
  };
}

export function datasetResultToWire(result: DatasetRunResult): z.infer<typeof DatasetRunResultSchema> {
  return {
    itemId: result.itemId,
    status: result.status,
    agentId: result.agentId,
    runId: result.runId,
    answer: result.answer,
    latencyMs: result.latencyMs,
    steps: result.steps,
    promptTokens: result.promptTokens,
    completionTokens: result.completionTokens,
    totalTokens: result.totalTokens,
    cost: result.cost === null ? null : Number(result.cost),
    toolErrors: result.toolErrors,
    score: result.score,
    scoreReason: result.scoreReason,
    error: result.error,
  };
}

export const summaryToWire = (summary: DatasetRunSummary): z.infer<typeof DatasetRunSummarySchema> => ({ ...summary });
