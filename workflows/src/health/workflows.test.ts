import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Worker } from '@temporalio/worker';
import { inject } from 'vitest';
import { readFileSync } from 'node:fs';
import { startTestStack, type TestStack } from '@engram/testing';

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack();
});

afterAll(async () => {
  await stack?.stop();
});

describe('healthCheckWorkflow on a real worker and dev server', () => {
  it('runs its activity against PostgreSQL and replays deterministically from history', async () => {
    const workflowId = `health-test-${Date.now()}`;
    const result = await stack.temporal.workflow.execute('healthCheckWorkflow', {
      taskQueue: stack.taskQueue,
      workflowId,
    });
    expect(result).toEqual({ database: 'ok', serverVersion: expect.stringMatching(/^\d+/) });

    const history = await stack.temporal.workflow.getHandle(workflowId).fetchHistory();
    await expect(
      Worker.runReplayHistory({ workflowBundle: { code: readFileSync(inject('workflowBundlePath'), 'utf8') } }, history, workflowId),
    ).resolves.toBeUndefined();
  });
});
