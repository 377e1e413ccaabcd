import type { DatasetRun, DatasetRunResult } from './dataset-types.js';

/** How far a run has come: items finished (completed or failed) of all its items. */
export function runProgress(run: Pick<DatasetRun, 'itemCount' | 'counts'>): { finished: number; total: number; percent: number } {
  const finished = (run.counts.completed ?? 0) + (run.counts.failed ?? 0);
  const total = run.itemCount;
  return { finished, total, percent: total === 0 ? 100 : Math.round((finished / total) * 100) };
}

export type ScoreChange = 'better' | 'worse' | 'same' | 'unscored';

/** How the other run's score of an item compares with the base run's; unscored when either has no score. */
export function scoreChange(base: Pick<DatasetRunResult, 'score'> | null, other: Pick<DatasetRunResult, 'score'> | null): ScoreChange {
  if (base?.score == null || other?.score == null) return 'unscored';
  if (other.score > base.score) return 'better';
  if (other.score < base.score) return 'worse';
  return 'same';
}

export type ResultMeans = {
  /** Items whose run finished, completed or failed. */
  finished: number;
  meanScore: number | null;
  meanLatencyMs: number | null;
  meanSteps: number | null;
  meanTokens: number | null;
  meanCost: number | null;
  totalTokens: number;
  totalCost: number;
  toolErrors: number;
  failed: number;
};

function mean(values: Array<number | null>): number | null {
  const present = values.filter((value): value is number => value !== null);
  return present.length ? present.reduce((sum, value) => sum + value, 0) / present.length : null;
}

/** Totals and per-item means of one run's results, over the items that have each measure. */
export function resultMeans(results: ReadonlyArray<DatasetRunResult | null>): ResultMeans {
  const finished = results.filter((result): result is DatasetRunResult => result !== null && (result.status === 'completed' || result.status === 'failed'));
  return {
    finished: finished.length,
    meanScore: mean(finished.map((result) => result.score)),
    meanLatencyMs: mean(finished.map((result) => result.latencyMs)),
    meanSteps: mean(finished.map((result) => result.steps)),
    meanTokens: mean(finished.map((result) => result.totalTokens)),
    meanCost: mean(finished.map((result) => result.cost)),
    totalTokens: finished.reduce((sum, result) => sum + (result.totalTokens ?? 0), 0),
    totalCost: finished.reduce((sum, result) => sum + (result.cost ?? 0), 0),
    toolErrors: finished.reduce((sum, result) => sum + (result.toolErrors ?? 0), 0),
    failed: finished.filter((result) => result.status === 'failed').length,
  };
}

/** A score of 0 to 1 as the percentage people read; a dash without one. */
export const formatScore = (score: number | null | undefined) => (score == null ? '—' : `${Math.round(score * 100)}%`);
