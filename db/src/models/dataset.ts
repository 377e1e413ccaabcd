import { TenantModel } from './base-model.js';

export type DatasetMessage = { role: 'user' | 'system'; content: string };
export type DatasetScorer = 'exact' | 'contains' | 'llm';

export class Dataset extends TenantModel {
  static override tableName = 'datasets';
  declare id: string;
  declare projectId: string;
  declare name: string;
  declare description: string | null;
}

export class DatasetItem extends TenantModel {
  static override tableName = 'dataset_items';
  static override jsonAttributes = ['createMessage'];
  declare id: string;
  declare datasetId: string;
  declare createMessage: DatasetMessage;
  declare expectedAnswer: string | null;
  declare scorer: DatasetScorer | null;
  declare graderNote: string | null;
}

export type DatasetRunStatus = 'running' | 'completed' | 'failed';

export class DatasetRun extends TenantModel {
  static override tableName = 'dataset_runs';
  declare id: string;
  declare datasetId: string;
  declare templateId: string;
  declare templateVersionId: string;
  declare status: DatasetRunStatus;
  declare concurrency: number;
  declare itemCount: number;
  declare startedAt: Date;
  declare completedAt: Date | null;
}

/** pending (not dispatched), running, grading (waiting for the LLM grader), completed or failed. */
export type DatasetResultStatus = 'pending' | 'running' | 'grading' | 'completed' | 'failed';

/** One item of one run; written by the run's workflow as the item's agent run finishes. */
export class DatasetRunResult extends TenantModel {
  static override tableName = 'dataset_run_results';
  static override idColumn = ['datasetRunId', 'itemId'];
  declare datasetRunId: string;
  declare itemId: string;
  declare agentId: string | null;
  declare runId: string | null;
  declare status: DatasetResultStatus;
  declare answer: string | null;
  declare latencyMs: number | null;
  declare steps: number | null;
  declare promptTokens: number | null;
  declare completionTokens: number | null;
  declare totalTokens: number | null;
  declare cost: string | number | null;
  declare toolErrors: number | null;
  declare score: number | null;
  declare scoreReason: string | null;
  declare error: string | null;
  declare completedAt: Date | null;
}
