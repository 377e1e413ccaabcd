import { describe, expect, it } from 'vitest';
import type { DatasetRunResult } from './dataset-types.js';
import { formatScore, resultMeans, runProgress, scoreChange } from './run-comparison.js';

function result(overrides: Partial<DatasetRunResult>): DatasetRunResult {
  return {
    itemId: 'dataset_item-1',
    status: 'completed',
    agentId: 'agent-1',
    runId: 'run-1',
    answer: '4',
    latencyMs: 100,
    steps: 1,
    promptTokens: 10,
    completionTokens: 2,
    totalTokens: 12,
    cost: 0.5,
    toolErrors: 0,
    score: 1,
    scoreReason: null,
    error: null,
    ...overrides,
  };
}

describe('runProgress', () => {
  it('counts completed and failed items as finished, of all the run holds', () => {
    expect(runProgress({ itemCount: 4, counts: { completed: 2, failed: 1, running: 1 } })).toEqual({ finished: 3, total: 4, percent: 75 });
    expect(runProgress({ itemCount: 3, counts: { pending: 3 } })).toEqual({ finished: 0, total: 3, percent: 0 });
  });
});

describe('scoreChange', () => {
  it("says how the other run's score compares with the base run's, and unscored when either has none", () => {
    expect(scoreChange({ score: 0 }, { score: 1 })).toBe('better');
    expect(scoreChange({ score: 1 }, { score: 0.5 })).toBe('worse');
    expect(scoreChange({ score: 1 }, { score: 1 })).toBe('same');
    expect(scoreChange({ score: null }, { score: 1 })).toBe('unscored');
    expect(scoreChange({ score: 1 }, null)).toBe('unscored');
  });
});

describe('resultMeans', () => {
  it('totals and averages the finished results over the items that have each measure', () => {
    const means = resultMeans([
      result({ latencyMs: 100, steps: 1, totalTokens: 12, cost: 0.5, score: 1 }),
      result({ latencyMs: 300, steps: 3, totalTokens: 20, cost: 1.5, score: 0, toolErrors: 2 }),
      result({ status: 'failed', answer: null, latencyMs: null, steps: null, totalTokens: null, cost: null, score: null, error: 'boom' }),
      result({ status: 'running', latencyMs: 9999, totalTokens: 999 }),
      null,
    ]);
    expect(means).toEqual({
      finished: 3,
      meanScore: 0.5,
      meanLatencyMs: 200,
      meanSteps: 2,
      meanTokens: 16,
      meanCost: 1,
      totalTokens: 32,
      totalCost: 2,
      toolErrors: 2,
      failed: 1,
    });
  });

  it('has no means before anything finished', () => {
    expect(resultMeans([result({ status: 'pending' })])).toMatchObject({ finished: 0, meanScore: null, meanLatencyMs: null, totalTokens: 0 });
  });
});

describe('formatScore', () => {
  it('reads a 0 to 1 score as a percentage, a dash without one', () => {
    expect(formatScore(1)).toBe('100%');
    expect(formatScore(0.333)).toBe('33%');
    expect(formatScore(null)).toBe('—');
  });
});
