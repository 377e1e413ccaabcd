import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  getExternalWorkflowHandle,
  isCancellation,
  patched,
  proxyActivities,
  proxyLocalActivities,
  upsertSearchAttributes,
  uuid4,
} from '@temporalio/workflow';
import { compactionDue, ENGRAM, GEN_AI, isAgentCallTool, runSpanAttributes, SPAN, type StopReason, type TokenUsage, type ToolRuleState } from '@engram/core';
import type { AgentRunActivities, SleeptimeActivities, ToolActivities } from '@engram/activities';
import { RUN_STATUS } from '../search-attributes.js';
import { AGENT_CALLS_PATCH, callAgents } from './agent-calls.js';
import { awaitQueuedRuns, type RunAwaiter } from './await-runs.js';
import { enqueueAgentRun } from './enqueue-from-workflow.js';
import { runFinishedSignal } from './messages.js';
import { takeTurns, type Turns } from './turns.js';
import type { AgentRunInput, AgentRunResult, RunFailure } from './types.js';
import { startWorkflowSpan, type WorkflowSpan } from './tracing.js';

// Database bookkeeping is short and idempotent (keyed by run and step ids): local activities keep
// per-step overhead low, and retries are safe.
const bookkeeping = proxyLocalActivities<AgentRunActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '100 milliseconds', maximumInterval: '5 seconds', maximumAttempts: 10 },
});

// A model call may take minutes; heartbeats deliver cancellation and reveal a dead worker quickly.
// 429/5xx/timeouts retry with backoff; the activity marks 4xx and bad answers non-retryable.
const models = proxyActivities<AgentRunActivities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '15 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 5 },
});

// A step in one activity: the model call with what is around it (beginning the run, applying the answer, closing
// the run), so it runs under the model call's policy. Its parts are idempotent on the run and step ids.
const steps = proxyActivities<AgentRunActivities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '15 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 5 },
});

// A tool is not idempotent: it runs at most once. Only a task that never started (the worker died
// before picking it up) is dispatched again, which Temporal does without counting an attempt.
const sandbox = proxyActivities<ToolActivities>({
  // Above the sandbox's own timeout plus a first venv build; heartbeats reveal a dead worker sooner.
  startToCloseTimeout: '15 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { maximumAttempts: 1 },
});

// Recording the sleep-time span is one idempotent transaction keyed by the run.
const sleeptime = proxyLocalActivities<SleeptimeActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '200 milliseconds', maximumInterval: '5 seconds', maximumAttempts: 10 },
});

/** After a completed turn of an agent that manages a sleeptime group, its sleep-time agents may run. */
export const SLEEPTIME_AFTER_RUN_PATCH = 'sleeptime-after-run';

// Callbacks go to the user's server: a few spaced tries, then the failure is recorded on the run.
const callbacks = proxyActivities<AgentRunActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumAttempts: 3 },
});

/** A provider that still reports overflow after this many compactions fails the run. */
const MAX_OVERFLOW_COMPACTIONS = 3;

function isContextOverflow(error: unknown): boolean {
  return error instanceof ActivityFailure && error.cause instanceof ApplicationFailure && error.cause.type === 'context_overflow';
}

const STOP_REASON_BY_MODEL_ERROR: Record<string, StopReason> = {
  invalid_response: 'invalid_llm_response',
};

function failureOf(error: unknown): { stopReason: StopReason; failure: RunFailure } {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  if (cause instanceof ApplicationFailure) {
    const type = cause.type ?? 'error';
    const stopReason = STOP_REASON_BY_MODEL_ERROR[type] ?? (type.startsWith('internal') ? 'error' : 'llm_api_error');
    return { stopReason, failure: { errorType: type, message: cause.message } };
  }
  return { stopReason: 'error', failure: { errorType: 'internal_error', message: 'The run failed unexpectedly.' } };
}

type ToolResults = Parameters<AgentRunActivities['completeToolStep']>[0]['results'];
type PendingToolCalls = Extract<Awaited<ReturnType<AgentRunActivities['applyModelTurn']>>, { pendingToolCalls: unknown }>['pendingToolCalls'];

/** Runs the tool calls of a step that the sandbox or other agents answer, one after another, in the order the model made them. */
async function executeToolCalls(input: AgentRunInput, step: WorkflowSpan, deps: LoopDeps, pendingToolCalls: PendingToolCalls): Promise<ToolResults> {
  const { calledRuns, hasPatch } = deps;
  const results: ToolResults = [];
  for (const toolCall of pendingToolCalls) {
    if (isAgentCallTool(toolCall.name) && hasPatch(AGENT_CALLS_PATCH)) {
      const answered = await step.within(() =>
        callAgents({ organizationId: input.organizationId, runId: input.runId, toolCall }, calledRuns),
      );
      results.push({ toolCallId: toolCall.id, ...answered });
      continue;
    }
    try {
      const result = await step.within(() =>
        sandbox.executeTool({
          organizationId: input.organizationId,
          agentId: input.agentId,
          runId: input.runId,
          toolCallId: toolCall.id,
          toolName: toolCall.name,
          arguments: toolCall.arguments,
        }),
      );
      results.push({ toolCallId: toolCall.id, ...result });
    } catch (error) {
      if (isCancellation(error)) throw error;
      // The tool may or may not have run (its worker died mid-call); the model is told, not retried.
      const reason = error instanceof ActivityFailure ? (error.cause?.message ?? error.message) : String(error);
      results.push({
        toolCallId: toolCall.id,
        status: 'error' as const,
        funcResponse: `Error executing function ${toolCall.name}: the execution was interrupted (${reason}).`,
        stdout: [],
        stderr: [],
      });
    }
  }
  return results;
}

/** A run's token totals so far, and `context_tokens`: the prompt size of its latest step. */
type RunTokenUsage = TokenUsage & { context_tokens?: number };

/** How a run's loop ended; `finished` when its last step closed the run's record itself. */
type LoopOutcome = {
  stopReason: StopReason;
  failure?: RunFailure;
  usage: RunTokenUsage;
  stepCount: number;
  finished?: Awaited<ReturnType<AgentRunActivities['finishRun']>>;
};

/**
 * `hasPatch`: whether a change versioned with `patched()` applies to this run: `patched` itself in `agentRunWorkflow`,
 * whose histories predate some of them; always in `agentRunWorkflowV2`, which began with every one of them.
 */
type LoopDeps = {
  runSpan: WorkflowSpan;
  turns: Turns;
  calledRuns: RunAwaiter;
  runIds: ReturnType<typeof runSpanAttributes>;
  hasPatch: (patchId: string) => boolean;
};

/**
 * The loop of `agentRunWorkflow`, as the runs of the release before `agentRunWorkflowV2` run it: `beginRun`, then per
 * step the model call and applying its answer, each an activity of its own.
 */
async function loopInSeparateActivities(input: AgentRunInput, deps: LoopDeps): Promise<LoopOutcome> {
  const { runSpan, turns, runIds } = deps;
  let openStep: WorkflowSpan | undefined;
  const begun = await runSpan.within(() =>
    turns.begin(
      (cancelled) => CancellationScope.nonCancellable(() => bookkeeping.beginRun({ runId: input.runId, organizationId: input.organizationId, ...(cancelled ? { cancelled } : {}) })),
      (result) => ('waitingFor' in result ? result.waitingFor : undefined),
    ),
  );
  const usage: RunTokenUsage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
  let stepCount = 0;
  let stopReason: StopReason = 'end_turn';
  let failure: RunFailure | undefined;

  if ('waitingFor' in begun) throw new Error('unreachable: begin returns once the run is no longer waiting');
  if (!begun.proceed) {
    stopReason = begun.stopReason;
    failure = begun.failure;
  } else {
    let ruleState = begun.ruleState;
    try {
      await CancellationScope.cancellable(async () => {
        for (let stepIndex = 0; ; stepIndex++) {
          const stepId = `step-${uuid4()}`;
          const call = { runId: input.runId, organizationId: input.organizationId, stepId, stepIndex, ruleState };
          const step = startWorkflowSpan(SPAN.agentStep, { ...runIds, [ENGRAM.stepId]: stepId, [ENGRAM.stepIndex]: stepIndex }, runSpan);
          openStep = step;
          let turn;
          for (let compactions = 0; ; compactions++) {
            try {
              turn = await step.within(() => models.callModel(call));
              break;
            } catch (error) {
              if (!isContextOverflow(error) || compactions >= MAX_OVERFLOW_COMPACTIONS) throw error;
              const compacted = await step.within(() => models.compactContext({ organizationId: input.organizationId, agentId: input.agentId, conversationId: input.conversationId }));
              if (!compacted.compacted) throw error;
            }
          }
          usage.prompt_tokens += turn.usage.prompt_tokens;
          usage.completion_tokens += turn.usage.completion_tokens;
          usage.total_tokens += turn.usage.total_tokens;
          usage.context_tokens = turn.usage.prompt_tokens;
          stepCount += 1;
          let applied = await step.within(() => bookkeeping.applyModelTurn({ ...call, maxSteps: input.maxSteps, turn }));
          if ('pendingToolCalls' in applied) {
            const results = await executeToolCalls(input, step, deps, applied.pendingToolCalls);
            applied = await step.within(() => bookkeeping.completeToolStep({ ...call, maxSteps: input.maxSteps, results }));
          }
          ruleState = applied.ruleState;
          if (compactionDue(turn.usage, turn.contextWindow)) {
            await step.within(() =>
              models.compactContext({
                organizationId: input.organizationId,
                agentId: input.agentId,
                conversationId: input.conversationId,
                observedPromptTokens: turn.usage.prompt_tokens + turn.usage.completion_tokens,
              }),
            );
          }
          step.end();
          openStep = undefined;
          if (applied.stop) {
            stopReason = applied.stopReason;
            return;
          }
        }
      });
    } catch (error) {
      openStep?.end(error);
      if (isCancellation(error)) stopReason = 'cancelled';
      else ({ stopReason, failure } = failureOf(error));
    }
  }
  return { stopReason, ...(failure ? { failure } : {}), usage, stepCount };
}

/**
 * The loop with one activity per step (`runStep`): the first one begins the run, and the last one closes it unless
 * the context is due for compaction first. A one-step send is one workflow task and one activity, and the answer is
 * visible before the workflow task that follows it.
 */
async function loopInStepActivities(input: AgentRunInput, deps: LoopDeps): Promise<LoopOutcome> {
  const { runSpan, turns, runIds } = deps;
  const usage: RunTokenUsage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
  let stepCount = 0;
  let ruleState: ToolRuleState | undefined;
  let openStep: WorkflowSpan | undefined;
  try {
    return await CancellationScope.cancellable(async (): Promise<LoopOutcome> => {
      for (let stepIndex = 0; ; stepIndex++) {
        const stepId = `step-${uuid4()}`;
        const call = { runId: input.runId, organizationId: input.organizationId, stepId, stepIndex, maxSteps: input.maxSteps, usageSoFar: { ...usage, step_count: stepCount } };
        const step = startWorkflowSpan(SPAN.agentStep, { ...runIds, [ENGRAM.stepId]: stepId, [ENGRAM.stepIndex]: stepIndex }, runSpan);
        openStep = step;
        let ran;
        for (let compactions = 0; ; compactions++) {
          try {
            ran = stepIndex === 0
              ? await step.within(() =>
                  turns.begin(
                    (cancelled) => steps.runStep({ ...call, begin: { cancelled } }),
                    (result) => ('begun' in result && 'waitingFor' in result.begun ? result.begun.waitingFor : undefined),
                  ),
                )
              : await step.within(() => steps.runStep({ ...call, ...(ruleState ? { ruleState } : {}) }));
            break;
          } catch (error) {
            if (!isContextOverflow(error) || compactions >= MAX_OVERFLOW_COMPACTIONS) throw error;
            const compacted = await step.within(() => models.compactContext({ organizationId: input.organizationId, agentId: input.agentId, conversationId: input.conversationId }));
            if (!compacted.compacted) throw error;
          }
        }
        if ('begun' in ran) {
          // The run ended before its first model call: cancelled while queued, or its input could not be applied.
          step.end();
          if ('waitingFor' in ran.begun) throw new Error('unreachable: begin returns once the run is no longer waiting');
          return { stopReason: ran.begun.stopReason, ...(ran.begun.failure ? { failure: ran.begun.failure } : {}), usage, stepCount };
        }
        usage.prompt_tokens += ran.usage.prompt_tokens;
        usage.completion_tokens += ran.usage.completion_tokens;
        usage.total_tokens += ran.usage.total_tokens;
        usage.context_tokens = ran.usage.prompt_tokens;
        stepCount += 1;
        let applied = ran.applied;
        if ('pendingToolCalls' in applied) {
          const results = await executeToolCalls(input, step, deps, applied.pendingToolCalls);
          applied = await step.within(() => bookkeeping.completeToolStep({ runId: input.runId, organizationId: input.organizationId, stepId, stepIndex, maxSteps: input.maxSteps, results }));
        }
        ruleState = applied.ruleState;
        if (compactionDue(ran.usage, ran.contextWindow)) {
          const observed = ran.usage.prompt_tokens + ran.usage.completion_tokens;
          await step.within(() =>
            models.compactContext({ organizationId: input.organizationId, agentId: input.agentId, conversationId: input.conversationId, observedPromptTokens: observed }),
          );
        }
        step.end();
        openStep = undefined;
        if (applied.stop) return { stopReason: applied.stopReason, usage, stepCount, ...(ran.finished ? { finished: ran.finished } : {}) };
      }
    });
  } catch (error) {
    openStep?.end(error);
    if (isCancellation(error)) return { stopReason: 'cancelled', usage, stepCount };
    return { ...failureOf(error), usage, stepCount };
  }
}

type Loop = (input: AgentRunInput, deps: LoopDeps) => Promise<LoopOutcome>;

/**
 * One run of the agent loop as the runs queued by the release before took it (`agentQueueWorkflow` started them as
 * children): kept registered, and taking turns and handing them on like `agentRunWorkflowV2`, until those have ended.
 */
export async function agentRunWorkflow(input: AgentRunInput): Promise<AgentRunResult> {
  return runAgent(input, loopInSeparateActivities, patched);
}

/**
 * One run of the agent loop: model call, then apply (tools, memory, persistence), until a stop reason, one activity
 * per step. Its workflow id is the run id. The API starts it directly; it begins when its turn in its conversation
 * comes. A new type rather than a patch of `agentRunWorkflow`: a patch marker would add a command and a search
 * attribute update (TemporalChangeVersion) to every run.
 */
export async function agentRunWorkflowV2(input: AgentRunInput): Promise<AgentRunResult> {
  return runAgent(input, loopInStepActivities, () => true);
}

async function runAgent(input: AgentRunInput, loop: Loop, hasPatch: LoopDeps['hasPatch']): Promise<AgentRunResult> {
  const runIds = runSpanAttributes({ organizationId: input.organizationId, agentId: input.agentId, runId: input.runId });
  const calledRuns = awaitQueuedRuns();
  const turns = takeTurns(input);
  const runSpan = startWorkflowSpan(SPAN.invokeAgent, { ...runIds, [GEN_AI.operationName]: SPAN.invokeAgent, [GEN_AI.conversationId]: input.conversationId ?? input.agentId });
  const { stopReason, failure, usage, stepCount, finished: closedByStep } = await loop(input, { runSpan, turns, calledRuns, runIds, hasPatch });

  const finished =
    closedByStep ??
    (await CancellationScope.nonCancellable(() =>
      runSpan.within(() => bookkeeping.finishRun({
        runId: input.runId,
        organizationId: input.organizationId,
        stopReason,
        usage: { ...usage, step_count: stepCount },
        failure: failure ?? null,
      })),
    ));
  await turns.handOver(finished.nextInTurn);
  if (input.notify) {
    // The waiting workflow may have ended meanwhile (cancelled, or it gave up): nobody is left to tell.
    const notify = input.notify;
    await CancellationScope.nonCancellable(() => getExternalWorkflowHandle(notify).signal(runFinishedSignal, { runId: input.runId })).catch(() => undefined);
  }
  // The workflow completes normally whatever the run's outcome (its record holds it, and the next run of the
  // conversation takes its turn); operators find failed and cancelled runs in the Temporal UI by this attribute.
  upsertSearchAttributes([{ key: RUN_STATUS, value: finished.status }]);
  if (finished.sleeptime && hasPatch(SLEEPTIME_AFTER_RUN_PATCH)) {
    // The sleep-time runs are queued behind their agents' other runs and outlive this one; nothing they do
    // (or failing to queue them) changes this run's outcome.
    await CancellationScope.nonCancellable(async () => {
      const planned = await sleeptime.dispatchSleeptimeRuns({ runId: input.runId, organizationId: input.organizationId });
      for (const run of planned) {
        await enqueueAgentRun({ agentId: run.agentId, organizationId: input.organizationId }, { runId: run.runId, maxSteps: run.maxSteps, runType: run.runType });
      }
    }).catch(() => undefined);
  }
  if (finished.callbackUrl) {
    await CancellationScope.nonCancellable(() =>
      runSpan.within(() => callbacks.sendRunCallback({ runId: input.runId, organizationId: input.organizationId })),
    ).catch(() => undefined);
  }
  runSpan.setAttributes({ [ENGRAM.stopReason]: stopReason, [ENGRAM.stepCount]: stepCount });
  runSpan.end(failure?.message);
  return { stopReason, usage: { ...usage, step_count: stepCount } };
}
