import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureTraceRetentionSchedule } from '@engram/temporal/client';
import { startTestStack, type TestStack } from '@engram/testing';

let stack: TestStack;

async function seedTrace(endedDaysAgo: number): Promise<string> {
  const traceId = randomBytes(16).toString('hex');
  const endedAt = new Date(Date.now() - endedDaysAgo * 86_400_000);
  await stack.db('traces').insert({ traceId, organizationId: stack.tenant.organizationId, startedAt: endedAt, endedAt, runId: 'run-x' });
  await stack.db('trace_spans').insert({
    traceId,
    spanId: randomBytes(8).toString('hex'),
    name: 'invoke_agent',
    kind: 'internal',
    serviceName: 'engram-test',
    startedAt: endedAt,
    startUnixNano: String(BigInt(endedAt.getTime()) * 1_000_000n),
    durationNs: '1000',
    statusCode: 'ok',
  });
  return traceId;
}

beforeAll(async () => {
  stack = await startTestStack();
}, 60_000);

afterAll(async () => {
  await stack?.stop();
});

describe('trace retention', () => {
  it('deletes the traces, and their spans, that ended before the retention period', async () => {
    const expired = [await seedTrace(45), await seedTrace(31)];
    const kept = [await seedTrace(29), await seedTrace(0)];
    const result = await stack.temporal.workflow.execute('traceRetentionWorkflow', {
      taskQueue: stack.taskQueue,
      workflowId: `trace-retention-${randomBytes(4).toString('hex')}`,
      args: [{ retentionDays: 30 }],
    });
    expect((result as { deleted: number }).deleted).toBeGreaterThanOrEqual(2);
    const remaining = await stack.db('traces').whereIn('traceId', [...expired, ...kept]).select('traceId');
    expect(remaining.map((row: { traceId: string }) => row.traceId).sort()).toEqual([...kept].sort());
    expect(await stack.db('trace_spans').whereIn('traceId', expired).count({ count: '*' }).first()).toEqual({ count: '0' });
  });

  it('runs on an hourly schedule carrying the configured retention, updated when it changes', async () => {
    const scheduleId = `trace-retention-${randomBytes(4).toString('hex')}`;
    await ensureTraceRetentionSchedule({ client: stack.temporal, taskQueue: stack.taskQueue, retentionDays: 30, scheduleId });
    await ensureTraceRetentionSchedule({ client: stack.temporal, taskQueue: stack.taskQueue, retentionDays: 7, scheduleId });
    const handle = stack.temporal.schedule.getHandle(scheduleId);
    try {
      const schedule = await handle.describe();
      expect(schedule.spec.intervals?.[0]?.every).toBe(3_600_000);
      expect(schedule.action).toMatchObject({ workflowType: 'traceRetentionWorkflow', taskQueue: stack.taskQueue, args: [{ retentionDays: 7 }] });
    } finally {
      await handle.delete();
    }
  });
});
