import { Context } from '@temporalio/activity';
import { compactionDue, type StopReason, type TokenUsage, type ToolRuleState } from '@engram/core';
import { Step, type Database, type SecretBox } from '@engram/db';
import type { BaseProviderConfig } from '@engram/integrations/llm';
import type { EgressPolicy } from '@engram/integrations/egress';
import { appliedOutcomeOf, createApplyTurn, type ApplyTurnOutcome } from './apply-turn.js';
import { createBeginRun, type BeginRunResult } from './begin-run.js';
import { createCallModel } from './call-model.js';
import { loadRunContext } from './context.js';
import { createFinishRun, type FinishRunInput, type FinishRunResult } from './finish-run.js';
import type { ActivityTracing } from './spans.js';

export type RunStepInput = {
  runId: string;
  organizationId: string;
  stepId: string;
  stepIndex: number;
  maxSteps: number;
  /**
   * Present for the run's first step: the run begins here (its turn checked, an approval answer applied).
   * `cancelled`: the run's workflow was cancelled while it waited for its turn.
   */
  begin?: { cancelled: boolean };
  /** The rule state after the previous step; absent for the first step, which starts from the one `begin` makes. */
  ruleState?: ToolRuleState;
  /** What the run's earlier steps used: the run's totals, should this step end it. */
  usageSoFar: TokenUsage & { step_count: number };
};

/**
 * `begun`: the first step did not run: the run waits for its turn, or ended before any model call (cancelled while
 * queued, or its input could not be applied). Otherwise the step ran: the model's usage and the context window (the
 * workflow decides on compaction), what applying the answer decided, and `finished` when the step ended the run
 * and this activity closed its record (it does unless the context is due for compaction first).
 */
export type RunStepResult =
  | { begun: Exclude<BeginRunResult, { proceed: true }> }
  | { usage: TokenUsage; contextWindow: number; applied: ApplyTurnOutcome; finished?: FinishRunResult & { stopReason: StopReason } };

type Deps = {
  db: Database;
  baseProviders: BaseProviderConfig[];
  secrets: SecretBox;
  egress: Pick<EgressPolicy, 'fetchFor'>;
  tracing?: ActivityTracing;
  requestTopUp?: (organizationId: string) => Promise<void>;
};

/**
 * One step of a run in one activity: begin the run (first step only), call the model, apply its answer, and close
 * the run when the answer ends it. A one-step send is then one workflow task and one activity, and its answer is
 * visible (the run closed, its frames logged) before the workflow task that follows. Each part is idempotent on its
 * own keys (run id, step id), and a retry after the answer was applied reuses it instead of calling the model again.
 */
export function createRunStep(deps: Deps) {
  const beginRun = createBeginRun(deps);
  const callModel = createCallModel(deps);
  const applyTurn = createApplyTurn(deps);
  const finishRun = createFinishRun(deps);

  return async function runStep(input: RunStepInput): Promise<RunStepResult> {
    let ruleState = input.ruleState;
    if (input.begin) {
      const begun = await beginRun({ runId: input.runId, organizationId: input.organizationId, ...(input.begin.cancelled ? { cancelled: true } : {}) });
      if (!begun.proceed) return { begun };
      ruleState = begun.ruleState;
    }
    if (!ruleState) throw new Error(`step ${input.stepId} of run ${input.runId} has no rule state: only a first step begins the run`);
    const call = { runId: input.runId, organizationId: input.organizationId, stepId: input.stepId, stepIndex: input.stepIndex };

    /** How the run is closed when this step ends it: with the totals of all its steps, unless the context is due for compaction first. */
    const closing = (usage: TokenUsage, contextWindow: number, stopReason: StopReason): FinishRunInput | undefined =>
      compactionDue(usage, contextWindow)
        ? undefined
        : {
            runId: input.runId,
            organizationId: input.organizationId,
            stopReason,
            usage: {
              prompt_tokens: input.usageSoFar.prompt_tokens + usage.prompt_tokens,
              completion_tokens: input.usageSoFar.completion_tokens + usage.completion_tokens,
              total_tokens: input.usageSoFar.total_tokens + usage.total_tokens,
              step_count: input.usageSoFar.step_count + 1,
              context_tokens: usage.prompt_tokens,
            },
            failure: null,
          };

    // Only a retry can find its step applied: the first attempt saves the lookup.
    const done = Context.current().info.attempt > 1 ? await Step.query(deps.db).forOrg(input.organizationId).findById(input.stepId) : undefined;
    const appliedBefore = done && appliedOutcomeOf(done);
    if (done && appliedBefore) {
      // A retry after this step's answer was applied: the step keeps its usage and outcome, and closing is idempotent.
      const usage = { prompt_tokens: done.promptTokens, completion_tokens: done.completionTokens, total_tokens: done.totalTokens };
      const contextWindow = done.contextWindowLimit ?? 0;
      const close = appliedBefore.stop ? closing(usage, contextWindow, appliedBefore.stopReason) : undefined;
      const finished = close ? await finishRun(close) : undefined;
      return { usage, contextWindow, applied: appliedBefore, ...(finished && close ? { finished: { ...finished, stopReason: close.stopReason } } : {}) };
    }
    const context = await loadRunContext(deps.db, input.organizationId, input.runId);
    const turn = await callModel({ ...call, ruleState }, context);
    // Applied and, when the answer ends the run, closed in one transaction.
    const { outcome, closed } = await applyTurn(
      { ...call, maxSteps: input.maxSteps, ruleState, turn },
      { closeWhenStopped: (stopped) => closing(turn.usage, turn.contextWindow, stopped.stopReason), context },
    );
    return {
      usage: turn.usage,
      contextWindow: turn.contextWindow,
      applied: outcome,
      ...(closed && outcome.stop ? { finished: { ...closed, stopReason: outcome.stopReason } } : {}),
    };
  };
}
