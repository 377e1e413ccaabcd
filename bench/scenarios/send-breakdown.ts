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

/** When the run's workflow started and when its one model activity was scheduled, started and completed. */
async function runWorkflowMoments(temporal: Client, runId: string) {
  const { events } = await temporal.workflow.getHandle(runId).fetchHistory();
  const at = (has: (event: NonNullable<typeof events>[number]) => unknown) => timestampMs(events?.find(has)?.eventTime);
  return {
    started: at((event) => event.workflowExecutionStartedEventAttributes),
    modelScheduled: at((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel'),
    modelStarted: at((event) => event.activityTaskStartedEventAttributes),
    modelCompleted: at((event) => event.activityTaskCompletedEventAttributes),
  };
}

/**
 * Splits each one-step send into consecutive segments from the moments the platform records anyway:
 * the run row (created_at by PostgreSQL, completed_at by finishRun), the run workflow's Temporal
 * history and the step's model call time. The segments add up to the client's latency, so their
 * means add up to the mean latency. All clocks are this machine's.
 */
export async function breakDownSends(deps: { db: Database; temporal: Client }, sends: SyncSendResult[]): Promise<SegmentSamples[]> {
  const runIds = sends.map((send) => send.runId);
  const runs = (await deps.db('runs')
    .select(
      'id',
      deps.db.raw('cast(extract(epoch from created_at) * 1000 as float8) as created_ms'),
      deps.db.raw('cast(extract(epoch from completed_at) * 1000 as float8) as completed_ms'),
    )
    .whereIn('id', runIds)) as Array<{ id: string; createdMs: number; completedMs: number }>;
  const steps = (await deps.db('steps').select('run_id', 'llm_request_ns').whereIn('run_id', runIds)) as Array<{
    runId: string;
    llmRequestNs: string;
  }>;
  const runsById = new Map(runs.map((run) => [run.id, run]));
  const modelCallMsByRun = new Map(steps.map((step) => [step.runId, Number(step.llmRequestNs) / 1e6]));

  const segments: SegmentSamples[] = [
    { label: 'API: auth, agent checks, run row insert', samplesMs: [] },
    { label: 'run workflow start (its id the run id)', samplesMs: [] },
    { label: 'run workflow first task + beginRun, turn check (local activity)', samplesMs: [] },
    { label: 'callModel dispatch (scheduled -> started)', samplesMs: [] },
    { label: 'callModel: context load, step trace insert, report', samplesMs: [] },
    { label: 'callModel: provider client + model HTTP call', samplesMs: [] },
    { label: 'workflow task + applyModelTurn + finishRun', samplesMs: [] },
    { label: 'commit, NOTIFY, run log read, HTTP response', samplesMs: [] },
  ];
  for (const send of sends) {
    const run = runsById.get(send.runId);
    const modelCallMs = modelCallMsByRun.get(send.runId);
    if (!run || modelCallMs === undefined) throw new Error(`run ${send.runId} or its step is missing`);
    const moments = await runWorkflowMoments(deps.temporal, send.runId);
    const boundaries = [
      send.sentAtMs,
      run.createdMs,
      moments.started,
      moments.modelScheduled,
      moments.modelStarted,
      moments.modelCompleted - modelCallMs,
      moments.modelCompleted,
      run.completedMs,
      send.receivedAtMs,
    ];
    segments.forEach((segment, index) => segment.samplesMs.push((boundaries[index + 1] as number) - (boundaries[index] as number)));
  }
  return segments;
}
