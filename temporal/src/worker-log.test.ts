import { ApplicationFailure } from '@temporalio/common';
import type { LogEntry } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { createStartupAnnouncer, createWorkerLogger, formatWorkerLogEntry, workerLogLevel } from './worker-log.js';

/** What the SDK logs when an activity throws and will be retried: its attributes, the error and the duration. */
function activityFailed(error: Error): LogEntry {
  return {
    level: 'WARN',
    message: 'Activity failed',
    timestampNanos: BigInt(Date.UTC(2025, 0, 2, 3, 4, 5, 678)) * 1_000_000n,
    meta: {
      isLocal: false,
      attempt: 2,
      namespace: 'default',
      taskToken: 'CiQ1ZjE3YjM3Ni1hNmIzLTQ2ZTEtYTk2Zi0wN2I0ZGJjZGVjYzQSF2FnZW50LXJ1bi1ydW4tMTIzNDU2Nzg5MA==',
      activityId: '3',
      activityType: 'callModel',
      taskQueue: 'engram-agent-runs-v1',
      workflowId: 'agent-run-run-1234',
      workflowRunId: '0198e8a4-51f0-7a0e-9d0d-2f4b1d2c3e4f',
      workflowType: 'agentRunWorkflow',
      sdkComponent: 'worker',
      error,
      durationMs: 1203,
    },
  };
}

const rateLimited = () => ApplicationFailure.create({ type: 'rate_limited', message: 'the provider answered 429 Too Many Requests', nonRetryable: false });

describe('the worker log', () => {
  it('prints an expected activity retry as one line: what failed, which attempt, and why, without the task token', () => {
    const line = formatWorkerLogEntry(activityFailed(rateLimited()), { stacks: false });
    expect(line).toBe(
      '2025-01-02T03:04:05.678Z [WARN] Activity failed attempt=2 activityType=callModel workflowId=agent-run-run-1234 ' +
        'workflowType=agentRunWorkflow error="rate_limited: the provider answered 429 Too Many Requests" durationMs=1203',
    );
  });

  it('follows an error to its causes on the same line', () => {
    const failure = ApplicationFailure.create({ type: 'provider_error', message: 'the model call failed', cause: new TypeError('fetch failed') });
    expect(formatWorkerLogEntry(activityFailed(failure), { stacks: false })).toContain('error="provider_error: the model call failed ← TypeError: fetch failed"');
  });

  it('adds the stack traces on the lines below only when asked to (LOG_LEVEL debug or trace)', () => {
    const lines = formatWorkerLogEntry(activityFailed(rateLimited()), { stacks: true }).split('\n');
    expect(lines.length).toBeGreaterThan(2);
    expect(lines[1]).toBe('ApplicationFailure: the provider answered 429 Too Many Requests');
    expect(lines.slice(2).every((line) => line.trimStart().startsWith('at '))).toBe(true);
  });

  it('quotes text with spaces and prints other values as JSON', () => {
    const line = formatWorkerLogEntry(
      { level: 'ERROR', message: 'Worker failed', timestampNanos: 0n, meta: { reason: 'lost the connection', state: { phase: 'draining' } } },
      { stacks: false },
    );
    expect(line).toBe('1970-01-01T00:00:00.000Z [ERROR] Worker failed reason="lost the connection" state={"phase":"draining"}');
  });

  it('keeps the SDK lifecycle chatter (INFO) out at the default LOG_LEVEL, and lowers the threshold for debug and trace', () => {
    expect(workerLogLevel(undefined)).toBe('WARN');
    expect(workerLogLevel('info')).toBe('WARN');
    expect(workerLogLevel('debug')).toBe('DEBUG');
    expect(workerLogLevel('trace')).toBe('TRACE');
    expect(workerLogLevel('fatal')).toBe('ERROR');
    expect(workerLogLevel('silent')).toBe('SILENT');
  });

  it('writes what passes the threshold, one entry per write, and nothing when silent', () => {
    const written: string[] = [];
    const logger = createWorkerLogger({ logLevel: 'info', write: (text) => written.push(text) });
    logger.info('Worker state changed', { state: 'RUNNING' });
    logger.warn('Activity failed', { attempt: 2, error: rateLimited() });
    expect(written).toHaveLength(1);
    expect(written[0]).toMatch(/\[WARN\] Activity failed attempt=2 error="rate_limited: the provider answered 429 Too Many Requests"\n$/);

    const silent: string[] = [];
    createWorkerLogger({ logLevel: 'silent', write: (text) => silent.push(text) }).error('Worker failed');
    expect(silent).toEqual([]);
  });

  it('says start-up facts at the default LOG_LEVEL, where INFO chatter is kept out, and nothing when silent', () => {
    const written: string[] = [];
    createStartupAnnouncer({ logLevel: 'info', write: (text) => written.push(text) })('INFO', 'Local tools run in the bubblewrap sandbox');
    expect(written).toEqual([expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d:.]+Z \[INFO\] Local tools run in the bubblewrap sandbox\n$/)]);

    const silent: string[] = [];
    createStartupAnnouncer({ logLevel: 'silent', write: (text) => silent.push(text) })('ERROR', 'Local tools are refused');
    expect(silent).toEqual([]);
  });
});
