import type { Client } from '@temporalio/client';
import type { Database } from '@engram/db';
import type { SyncSendResult } from '../http.js';

export type SegmentSamples = { label: string; samplesMs: number[] };

type ProtoTimestamp = { seconds?: { toNumber(): number } | number | null; nanos?: number | null } | null | undefined;

function timestampMs(timestamp: ProtoTimestamp): number {
  if (!timestamp) return Number.NaN;
  const seconds = typeof timestamp.seconds === 'number' ? timestamp.seconds : (timestamp.seconds?.toNumber() ?? 0);
  return seconds * 1000 + (timestamp.nanos ?? 0) / 1e6;
}

/** When the run's workflow started and when its one step activity (`runStep`) was scheduled and started. */
async function runWorkflowMoments(temporal: Client, runId: string) {
  const { events } = await temporal.workflow.getHandle(runId).fetchHistory();
  const at = (has: (event: NonNullable<typeof events>[number]) => unknown) => timestampMs(events?.find(has)?.eventTime);
  return {
    started: at((event) => event.workflowExecutionStartedEventAttributes),
    stepScheduled: at((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'runStep'),
    stepStarted: at((event) => event.activityTaskStartedEventAttributes),
  };
}

/**
 * Splits each one-step send into consecutive segments from the moments the platform records anyway: the run row
 * (created_at by PostgreSQL, started_at by beginRun, completed_at by finishRun), the run workflow's Temporal
 * history, and the step row (created_at: the start of the transaction that applies the answer, right after the model
 * call) with its model call time. The segments add up to the client's latency, so their means add up to the mean
 * latency. All clocks are this machine's.
 */
export async function breakDownSends(deps: { db: Database; temporal: Client }, sends: SyncSendResult[]): Promise<SegmentSamples[]> {
  const runIds = sends.map((send) => send.runId);
  const epochMs = (column: string) => deps.db.raw(`cast(extract(epoch from ${column}) * 1000 as float8) as ${column.replace('_at', '_ms')}`);
  const runs = (await deps.db('runs').select('id', epochMs('created_at'), epochMs('started_at'), epochMs('completed_at')).whereIn('id', runIds)) as Array<{
    id: string;
    createdMs: number;
    startedMs: number;
    completedMs: number;
  }>;
  const steps = (await deps.db('steps').select('run_id', 'llm_request_ns', epochMs('created_at')).whereIn('run_id', runIds)) as Array<{
    runId: string;
    llmRequestNs: string;
    createdMs: number;
  }>;
  const runsById = new Map(runs.map((run) => [run.id, run]));
  const stepsByRun = new Map(steps.map((step) => [step.runId, step]));

  const segments: SegmentSamples[] = [
    { label: 'API: auth, agent checks, run row insert', samplesMs: [] },
    { label: 'run workflow start (its id the run id)', samplesMs: [] },
    { label: 'first workflow task: schedules the step', samplesMs: [] },
    { label: 'runStep dispatch (scheduled -> started)', samplesMs: [] },
    { label: 'runStep: beginRun (turn check, input listed)', samplesMs: [] },
    { label: 'runStep: context load, step request built', samplesMs: [] },
    { label: 'runStep: provider client + model HTTP call', samplesMs: [] },
    { label: 'runStep: apply the answer, close the run', samplesMs: [] },
    { label: 'commit, NOTIFY, run log read, HTTP response', samplesMs: [] },
  ];
  for (const send of sends) {
    const run = runsById.get(send.runId);
    const step = stepsByRun.get(send.runId);
    if (!run || !step) throw new Error(`run ${send.runId} or its step is missing`);
    const moments = await runWorkflowMoments(deps.temporal, send.runId);
    const modelCallMs = Number(step.llmRequestNs) / 1e6;
    const boundaries = [
      send.sentAtMs,
      run.createdMs,
      moments.started,
      moments.stepScheduled,
      moments.stepStarted,
      run.startedMs,
      step.createdMs - modelCallMs,
      step.createdMs,
      run.completedMs,
      send.receivedAtMs,
    ];
    segments.forEach((segment, index) => segment.samplesMs.push((boundaries[index + 1] as number) - (boundaries[index] as number)));
  }
  return segments;
}
