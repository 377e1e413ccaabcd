import { runStatusFor, type StopReason } from '@engram/core';
import type { Knex } from 'knex';
import { ApplicationFailure } from '@temporalio/activity';
import { Agent, AgentCall, Group, Run, type Database, type RunStatus } from '@engram/db';
import { EgressRefusedError, type EgressPolicy } from '@engram/integrations/egress';
import { appendRunFrames, type Frame } from './run-log.js';
import { unfinishedSuccessor } from './turn-order.js';

export type FinishRunInput = {
  runId: string;
  organizationId: string;
  stopReason: StopReason;
  /** `context_tokens`: the prompt size of the run's last step (how full the context was); absent when no step ran. */
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number; step_count: number; context_tokens?: number };
  failure: { errorType: string; message: string } | null;
};

/**
 * `status` is the run's once closed: its record's, or the outcome given when the record was deleted meanwhile.
 * `sleeptime`: the run completed a turn of an agent that manages a sleeptime group (its sleep-time agents may be due).
 * `nextInTurn`: the earliest unfinished run of the same conversation created after this one, whose turn may now come.
 */
export type FinishRunResult = {
  callbackUrl: string | null;
  status: Exclude<RunStatus, 'created' | 'running'>;
  sleeptime?: boolean;
  nextInTurn?: string;
};

/**
 * Closes a run: appends the closing frames (error, stop_reason, usage_statistics) and records the
 * outcome on the run and the agent. A run that is already closed is left as it is.
 */
export function createFinishRun(deps: { db: Database }) {
  return async function finishRun(input: FinishRunInput): Promise<FinishRunResult> {
    return deps.db.transaction((trx) => closeRun(trx, input));
  };
}

/**
 * `finishRun` inside a transaction of the caller's (a step that ends the run closes it in the step's own). That
 * caller passes the run row it locked (`lockedRun`) and the step's frames (`framesBefore`), which go into the run
 * log ahead of the closing ones, in one append.
 */
export async function closeRun(
  trx: Knex.Transaction,
  input: FinishRunInput,
  step: { lockedRun?: Run; framesBefore?: Frame[] } = {},
): Promise<FinishRunResult> {
  const run = step.lockedRun ?? (await Run.query(trx).forOrg(input.organizationId).findById(input.runId).forUpdate());
  if (!run) return { callbackUrl: null, status: runStatusFor(input.stopReason) };
  if (run.status !== 'created' && run.status !== 'running') {
    // A retry after the close committed: the next run in turn is told again, in case the first answer was lost.
    const nextInTurn = await unfinishedSuccessor(trx, run);
    return { callbackUrl: null, status: run.status, ...(nextInTurn ? { nextInTurn } : {}) };
  }
  // A call this run still waits on ends with it (the run was cancelled, failed or abandoned mid-call): its
  // callee is told to stop, and the wait no longer counts when cycles are looked for.
  const waiting = await AgentCall.query(trx).forOrg(input.organizationId).where({ callerRunId: run.id, status: 'waiting' });
  if (waiting.length > 0) {
    await AgentCall.query(trx).forOrg(input.organizationId).whereIn('id', waiting.map((call) => call.id)).patch({ status: 'cancelled' });
    const calleeRunIds = waiting.flatMap((call) => (call.calleeRunId ? [call.calleeRunId] : []));
    await Run.query(trx).forOrg(input.organizationId).whereIn('id', calleeRunIds).whereIn('status', ['created', 'running']).patch({ cancelRequested: true });
  }
  const completedAt = new Date();
  const frames: Frame[] = [...(step.framesBefore ?? [])];
  if (input.failure) {
    frames.push({
      message_type: 'error_message',
      error_type: input.failure.errorType,
      message: input.failure.message,
      detail: null,
    });
  }
  frames.push({ message_type: 'stop_reason', stop_reason: input.stopReason });
  frames.push({ message_type: 'usage_statistics', ...input.usage, run_ids: [input.runId] });
  await appendRunFrames(trx, { runId: run.id, organizationId: input.organizationId }, frames);
  const durationMs = completedAt.getTime() - (run.startedAt ?? run.createdAt).getTime();
  const status = runStatusFor(input.stopReason);
  await Run.query(trx)
    .forOrg(input.organizationId)
    .findById(run.id)
    .patch({
      status,
      stopReason: input.stopReason,
      completedAt,
      totalDurationNs: durationMs * 1_000_000,
      usage: input.usage,
      metadata: { ...run.metadata, ...(input.failure ? { error: input.failure } : {}) },
    });
  await Agent.query(trx).forOrg(input.organizationId).findById(run.agentId).patch({
    lastRunCompletion: completedAt,
    lastRunDurationMs: durationMs,
    lastStopReason: input.stopReason,
  });
  const sleeptime =
    status === 'completed' &&
    (await Group.query(trx).forOrg(input.organizationId).where({ managerAgentId: run.agentId, managerType: 'sleeptime' }).resultSize()) > 0;
  const nextInTurn = await unfinishedSuccessor(trx, run);
  return { callbackUrl: run.callbackUrl, status, sleeptime, ...(nextInTurn ? { nextInTurn } : {}) };
}

/** Of these runs, the ones that have ended (a run deleted meanwhile counts as ended). */
export function createFinishedRuns(deps: { db: Database }) {
  return async function finishedRuns(input: { organizationId: string; runIds: string[] }): Promise<string[]> {
    if (input.runIds.length === 0) return [];
    const active = await Run.query(deps.db).forOrg(input.organizationId).whereIn('id', input.runIds).whereIn('status', ['created', 'running']).select('id');
    const stillActive = new Set(active.map((run) => run.id));
    return input.runIds.filter((runId) => !stillActive.has(runId));
  };
}

export function createMarkRunAbandoned(deps: { db: Database }) {
  const finishRun = createFinishRun(deps);
  /**
   * For a run whose workflow ended without closing it (terminated by an operator, timed out) or never started.
   * `nextInTurn`: the run of the conversation whose turn it held up.
   */
  return async function markRunAbandoned(input: { runId: string; organizationId: string; reason: string }): Promise<{ nextInTurn?: string }> {
    const { nextInTurn } = await finishRun({
      runId: input.runId,
      organizationId: input.organizationId,
      stopReason: 'error',
      usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, step_count: 0 },
      failure: { errorType: 'internal_error', message: `The run's workflow ended without finishing: ${input.reason}` },
    });
    return nextInTurn ? { nextInTurn } : {};
  };
}

/** A failed callback is retried with backoff, but one the egress policy refused would be refused again. */
export function callbackFailure(message: string, refused: boolean): Error {
  return refused ? ApplicationFailure.nonRetryable(message, 'EgressRefused') : new Error(message);
}

export function createSendRunCallback(deps: { db: Database; egress: Pick<EgressPolicy, 'fetchFor'> }) {
  /**
   * POSTs `{job_id, status, completed_at, metadata}` to the run's callback_url, through the egress policy, and records
   * the answer. A destination the policy refuses is recorded and not tried again.
   */
  return async function sendRunCallback(input: { runId: string; organizationId: string }): Promise<void> {
    const run = await Run.query(deps.db).forOrg(input.organizationId).findById(input.runId);
    if (!run?.callbackUrl || run.callbackSentAt) return;
    let statusCode: number | null = null;
    let error: string | null = null;
    let refused = false;
    try {
      const response = await deps.egress.fetchFor({ organizationId: input.organizationId })(run.callbackUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          job_id: run.id,
          status: run.status,
          completed_at: run.completedAt?.toISOString() ?? null,
          metadata: run.metadata,
        }),
        signal: AbortSignal.timeout(10_000),
      });
      statusCode = response.status;
      if (!response.ok) error = `callback answered ${response.status}`;
    } catch (cause) {
      error = (cause as Error).message;
      refused = cause instanceof EgressRefusedError;
    }
    await Run.query(deps.db)
      .forOrg(input.organizationId)
      .findById(run.id)
      .patch({ callbackSentAt: new Date(), callbackStatusCode: statusCode, callbackError: error });
    if (error) throw callbackFailure(error, refused);
  };
}
