import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, startWorkerProcess, type ManagedProcess, type TestStack, until } from '@engram/testing';

let stack: TestStack;
let worker: ManagedProcess | undefined;

beforeAll(async () => {
  stack = await startTestStack({ inProcessWorker: false });
});

afterAll(async () => {
  await worker?.kill();
  await stack?.stop();
});

const sandboxLines = (output: string) => output.split('\n').filter((line) => line.includes('Local tools'));

describe('the worker process at start', () => {
  it('says once, at the default log level, how local tools are sandboxed, and then takes work', async () => {
    worker = startWorkerProcess({ ...stack.workerEnv, LOG_LEVEL: 'info' });
    const checked = await stack.temporal.workflow.execute('healthCheckWorkflow', {
      taskQueue: stack.taskQueue,
      workflowId: `worker-start-${Date.now()}`,
      workflowExecutionTimeout: '120 seconds',
    });
    expect(checked).toMatchObject({ serverVersion: expect.any(String) });
    await until(() => sandboxLines(worker!.output()).length > 0, { what: 'the sandbox line' });
    expect(sandboxLines(worker.output())).toEqual([
      expect.stringMatching(/^\S+Z \[INFO\] Local tools run in the bubblewrap sandbox: own namespaces, as uid 65534, no network unless a sandbox config allows it, and then only through the egress policy$/),
    ]);
  }, 180_000);
});
