/* Wire shapes of datasets that the pure helpers share with the API calls (generated from the API's route schemas). */
import type { Wire } from '@engram/console-kit/wire-types';

export type Dataset = Wire.Dataset;
export type DatasetItem = Wire.DatasetItem;
export type DatasetRun = Wire.DatasetRun;
export type DatasetRunResult = Wire.DatasetRunResult;
export type DatasetRunSummary = Wire.DatasetRunSummary;
export type DatasetScorer = NonNullable<DatasetItem['scorer']>;

/** What an item is made of: the JSONL line shape the API takes for a new item, an edit, or an import. */
export type DatasetItemFields = {
  createMessage: DatasetItem['createMessage'];
  expectedAnswer: string | null;
  scorer: DatasetScorer | null;
  graderNote: string | null;
};
