import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { trace } from '@opentelemetry/api';
import { log } from '@temporalio/activity';
import {
  decideAfterText,
  decideAfterTools,
  ENGRAM,
  GEN_AI,
  planStepTools,
  requiresApproval,
  runSpanAttributes,
  SPAN,
  toLettaMessages,
  type PromptToolCall,
  type ReasoningPart,
  type StopReason,
  type StoredMessage,
  type ToolRuleState,
} from '@engram/core';
import { contextMessageIds, meterStep, Message, recompileSystemMessage, Run, setContextMessageIds, Step, toStoredMessage, type Database } from '@engram/db';
import type { CallModelResult } from './call-model.js';
import { contextOwnerOf, loadRunContext, messageTagsOf, type RunContext } from './context.js';
import { executeBaseTool, isBaseTool } from './base-tools.js';
import { inSpan, markToolResult, tracingOf, type ActivityTracing } from './spans.js';
import { appendRunFrames, type Frame } from './run-log.js';
import { closeRun, type FinishRunInput, type FinishRunResult } from './finish-run.js';

export type ApplyTurnInput = {
  runId: string;
  organizationId: string;
  stepId: string;
  stepIndex: number;
  maxSteps: number;
  ruleState: ToolRuleState;
  turn: CallModelResult;
};

export type StepOutcome =
  | { stop: false; ruleState: ToolRuleState }
  | { stop: true; stopReason: StopReason; ruleState: ToolRuleState };

/** A step whose answer called tools that run in a sandbox: the workflow executes them, then completes the step. */
export type ApplyTurnOutcome = StepOutcome | { stop: false; ruleState: ToolRuleState; pendingToolCalls: PendingToolCall[] };

export type PendingToolCall = { id: string; name: string; arguments: Record<string, unknown> };

export type ToolResult = {
  toolCallId: string;
  status: 'success' | 'error';
  funcResponse: string;
  stdout: string[];
  stderr: string[];
};

export type CompleteToolStepInput = {
  runId: string;
  organizationId: string;
  stepId: string;
  stepIndex: number;
  maxSteps: number;
  results: ToolResult[];
};

/** What a step left for its completion when sandboxed tools had to run first. */
type AwaitingTools = {
  phase: 'awaiting_tools';
  ruleState: ToolRuleState;
  calledThisStep: string[];
  toolFailed: boolean;
  heartbeatRequested: boolean;
  nextMessageAt: number;
  pendingToolCalls: PendingToolCall[];
};

type StepRecord = { phase: 'done'; outcome: StepOutcome } | AwaitingTools;

const newMessageId = () => `message-${randomUUID()}`;

/** What applying a step's answer decided, kept on the step: undefined until the answer is applied. */
export function appliedOutcomeOf(step: Step): ApplyTurnOutcome | undefined {
  if (!step.outcome) return undefined;
  const record = step.outcome as unknown as StepRecord;
  return record.phase === 'done' ? record.outcome : { stop: false, ruleState: record.ruleState, pendingToolCalls: record.pendingToolCalls };
}

/** The frames a run's stream shows for messages it produced (inputs are not echoed). */
export function framesFor(messages: Message[], context: RunContext): Frame[] {
  return messages.flatMap((message) =>
    toLettaMessages(toStoredMessage(message), {
      agentType: context.snapshot.agentType,
      useAssistantMessage: context.request.useAssistantMessage,
      assistantMessageToolName: context.request.assistantMessageToolName,
      assistantMessageToolKwarg: context.request.assistantMessageToolKwarg,
    }) as unknown as Frame[],
  );
}

function parseArguments(raw: string): Record<string, unknown> | string {
  try {
    const parsed: unknown = JSON.parse(raw || '{}');
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : 'arguments must be a JSON object';
  } catch {
    return `arguments are not valid JSON: ${raw.slice(0, 200)}`;
  }
}

function truncate(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}... [truncated: ${text.length - limit} more characters]`;
}

/** Writes one step's messages: a sequence of rows whose creation times keep their order. */
class StepWriter {
  readonly stored: Message[] = [];
  readonly produced: Message[] = [];
  constructor(
    private readonly trx: Knex.Transaction,
    private readonly base: { organizationId: string; agentId: string; runId: string; stepId: string; groupId: string | null; batchItemId: string | null; conversationId: string | null },
    private nextAt: number,
  ) {}

  get nextMessageAt(): number {
    return this.nextAt;
  }

  async write(fields: Record<string, unknown>, kind: 'produced' | 'stored' = 'produced'): Promise<Message> {
    const row = await Message.query(this.trx).insert({
      id: newMessageId(),
      content: [],
      ...this.base,
      ...fields,
      createdAt: new Date(this.nextAt++),
    } as unknown as Message);
    (kind === 'produced' ? this.produced : this.stored).push(row);
    return row;
  }

  async toolReturn(call: { id: string; name: string }, status: 'success' | 'error', response: string, limit: number, output?: { stdout: string[]; stderr: string[] }) {
    return this.write({
      role: 'tool',
      name: call.name,
      toolCallId: call.id,
      toolReturns: [
        {
          tool_call_id: call.id,
          status,
          func_response: truncate(response, limit),
          stdout: output?.stdout.length ? output.stdout : null,
          stderr: output?.stderr.length ? output.stderr : null,
        },
      ],
    });
  }
}

/**
 * Appends a step's messages to the agent's context window and records the step. The run's first step puts
 * its inputs there first: a run that fails or is cancelled before any step leaves them in history only, as
 * the reference does, so the agent's next turn does not read a message it never answered. `lockedIds`: the
 * context window as the step's transaction locked it. Returns the step's frames for the run log; the caller
 * appends them, together with the closing frames when the step ends the run.
 */
async function closeStep(
  trx: Knex.Transaction,
  context: RunContext,
  input: { organizationId: string; stepId: string },
  step: { writer: StepWriter; record: StepRecord; memoryChanged: boolean; lockedIds: string[] },
  now: Date,
): Promise<Frame[]> {
  const { run } = context;
  const { writer, record } = step;
  const newIds = [...writer.stored, ...writer.produced]
    .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
    .map((message) => message.id);
  await setContextMessageIds(trx, contextOwnerOf(run), [...step.lockedIds, ...run.pendingInputIds, ...newIds]);
  if (run.pendingInputIds.length > 0) await Run.query(trx).forOrg(input.organizationId).findById(run.id).patch({ pendingInputIds: [] });
  if (step.memoryChanged) await recompileSystemMessage(trx, input.organizationId, run.agentId, now);
  const stopReason = record.phase === 'done' && record.outcome.stop ? record.outcome.stopReason : null;
  await Step.query(trx).forOrg(input.organizationId).findById(input.stepId).patch({
    stopReason,
    outcome: record as unknown as Record<string, unknown>,
  });
  return framesFor(writer.produced, context);
}

function decideAfterCalls(
  context: RunContext,
  state: { ruleState: ToolRuleState; calledThisStep: string[]; toolFailed: boolean; heartbeatRequested: boolean },
  input: { stepIndex: number; maxSteps: number },
): { outcome: StepOutcome; reminder: string | null } {
  const decision = decideAfterTools({
    rules: context.snapshot.toolRules,
    calledThisStep: state.calledThisStep,
    state: state.ruleState,
    stepIndex: input.stepIndex,
    maxSteps: input.maxSteps,
    agentType: context.snapshot.agentType,
    heartbeatRequested: state.heartbeatRequested,
    toolFailed: state.toolFailed,
  });
  if (!decision.continue) return { outcome: { stop: true, stopReason: decision.stopReason, ruleState: state.ruleState }, reminder: null };
  return { outcome: limitSteps({ stop: false, ruleState: state.ruleState }, input), reminder: decision.reminder ?? null };
}

function limitSteps(outcome: StepOutcome, input: { stepIndex: number; maxSteps: number }): StepOutcome {
  return !outcome.stop && input.stepIndex >= input.maxSteps - 1 ? { stop: true, stopReason: 'max_steps', ruleState: outcome.ruleState } : outcome;
}

/**
 * Applies one model answer: stores it, runs built-in tools, decides whether the loop goes on, and
 * appends the step's frames to the run log — all in one transaction, keyed by the step id so a
 * retried activity returns the first outcome instead of applying the step twice. Calls of sandboxed
 * tools are handed back to the workflow, which runs them and then calls `completeToolStep`.
 */
/**
 * `closeWhenStopped`: given the outcome of a step that ends the run, what to close the run with (nothing: leave it
 * open); the run is then closed in the step's own transaction. `closed` is that close's result.
 */
export type ApplyTurnOptions = {
  closeWhenStopped?: (outcome: Extract<StepOutcome, { stop: true }>) => FinishRunInput | undefined;
  /**
   * The run's context as loaded for this step's model call, so the step reads it once: the answer is applied to the
   * agent the model saw. The run row and the context window are still read again, under the step's locks.
   */
  context?: RunContext;
};
export type AppliedTurn = { outcome: ApplyTurnOutcome; closed?: FinishRunResult };

/** The provider's reasoning as stored with the step, with what its protocol needs to take it back on the next step. */
function storedReasoning(parts: ReasoningPart[]): StoredMessage['content'] {
  return parts.map((part) =>
    part.type === 'reasoning'
      ? { type: 'reasoning', reasoning: part.text, is_native: true, signature: part.signature ?? null, protocol: part.protocol, item_id: part.itemId ?? null }
      : { type: 'redacted_reasoning', data: part.data, protocol: part.protocol, item_id: part.itemId ?? null },
  );
}

export function createApplyModelTurn(deps: { db: Database; tracing?: ActivityTracing; requestTopUp?: (organizationId: string) => Promise<void> }) {
  const applyTurn = createApplyTurn(deps);
  return async function applyModelTurn(input: ApplyTurnInput): Promise<ApplyTurnOutcome> {
    return (await applyTurn(input)).outcome;
  };
}

/** Applies a step's answer (`applyModelTurn`), and closes the run with it when the caller asks. */
export function createApplyTurn(deps: { db: Database; tracing?: ActivityTracing; requestTopUp?: (organizationId: string) => Promise<void> }) {
  const { tracer, recordContent } = tracingOf(deps);
  return async function applyTurn(input: ApplyTurnInput, options: ApplyTurnOptions = {}): Promise<AppliedTurn> {
    let crossedTopUpThreshold = false;
    let closed: FinishRunResult | undefined;
    const outcome = await deps.db.transaction(async (trx): Promise<ApplyTurnOutcome> => {
      const done = await Step.query(trx).forOrg(input.organizationId).findById(input.stepId);
      const applied = done && appliedOutcomeOf(done);
      if (applied) return applied;
      // A run closed meanwhile (cancelled while its model answered, its workflow gone on to close it) takes no more
      // answers; the lock orders this with the close, which takes it too.
      const locked = await Run.query(trx).forOrg(input.organizationId).findById(input.runId).forUpdate();
      if (locked?.status !== 'running') {
        return { stop: true, stopReason: (locked?.stopReason as StopReason | null | undefined) ?? 'cancelled', ruleState: input.ruleState };
      }

      const context = options.context ? { ...options.context, run: locked } : await loadRunContext(trx, input.organizationId, input.runId);
      const { run, snapshot, request } = context;
      // Serializes updates of this context window (the agent's, or its conversation's) with API writes (reset,
      // compaction); other conversations of the agent step meanwhile.
      const lockedIds = await contextMessageIds(trx, contextOwnerOf(run), { lock: true });
      const now = new Date();
      const { turn } = input;
      await Step.query(trx).insert({
        id: input.stepId,
        organizationId: input.organizationId,
        projectId: run.projectId,
        runId: run.id,
        agentId: run.agentId,
        stepIndex: input.stepIndex,
        origin: 'engram',
        providerName: snapshot.llmConfig.provider_name ?? null,
        providerCategory: snapshot.llmConfig.provider_category ?? null,
        model: turn.model,
        modelHandle: snapshot.llmConfig.handle ?? null,
        modelEndpoint: snapshot.llmConfig.model_endpoint ?? null,
        contextWindowLimit: snapshot.llmConfig.context_window,
        completionTokens: turn.usage.completion_tokens,
        promptTokens: turn.usage.prompt_tokens,
        totalTokens: turn.usage.total_tokens,
        status: 'success',
        llmRequestNs: turn.llmRequestNs,
        traceId: trace.getActiveSpan()?.spanContext().traceId ?? null,
      } as unknown as Step);
      const charge = await meterStep(trx, {
        organizationId: input.organizationId,
        stepId: input.stepId,
        agentId: run.agentId,
        runId: run.id,
        model: turn.model,
        modelHandle: snapshot.llmConfig.handle ?? null,
        contextWindow: snapshot.llmConfig.context_window,
        promptTokens: turn.usage.prompt_tokens,
        completionTokens: turn.usage.completion_tokens,
      });
      crossedTopUpThreshold = charge?.crossedTopUpThreshold ?? false;
      if (input.stepIndex === 0 && run.ttftNs === null) {
        await Run.query(trx).forOrg(input.organizationId).findById(run.id).patch({ ttftNs: turn.llmRequestNs });
      }

      const writer = new StepWriter(trx, { organizationId: run.organizationId, agentId: run.agentId, runId: run.id, stepId: input.stepId, ...messageTagsOf(run) }, now.getTime());

      const clientToolNames = new Set(request.clientTools.map((tool) => tool.name));
      const toolsByName = new Map(snapshot.tools.map((tool) => [tool.name, tool]));
      const needsApproval = turn.toolCalls.some((call) => {
        if (clientToolNames.has(call.name)) return true;
        const tool = toolsByName.get(call.name);
        return tool ? requiresApproval(snapshot.toolRules, { name: tool.name, defaultRequiresApproval: tool.defaultRequiresApproval }) : false;
      });
      const asStoredCall = (call: PromptToolCall) => ({ id: call.id, type: 'function' as const, function: { name: call.name, arguments: call.arguments } });

      const assistantParts: StoredMessage['content'] = [];
      if (turn.reasoningParts?.length) assistantParts.push(...storedReasoning(turn.reasoningParts));
      else if (turn.reasoning) assistantParts.push({ type: 'reasoning', reasoning: turn.reasoning, is_native: true });
      if (turn.text) assistantParts.push({ type: 'text', text: turn.text });
      const assistantCalls = needsApproval ? [] : turn.toolCalls;
      if (assistantParts.length > 0 || assistantCalls.length > 0 || turn.toolCalls.length === 0) {
        await writer.write({
          // Token deltas of this step carry the same id, so clients can join them to the stored message.
          id: `message-${input.stepId.slice('step-'.length)}`,
          role: 'assistant',
          content: assistantParts,
          model: turn.model,
          toolCalls: assistantCalls.length ? assistantCalls.map(asStoredCall) : null,
        });
      }

      const ruleState: ToolRuleState = { ...input.ruleState, calledTools: [...input.ruleState.calledTools] };
      let record: StepRecord;
      let memoryChanged = false;

      if (needsApproval) {
        await writer.write({ role: 'approval', model: turn.model, toolCalls: turn.toolCalls.map(asStoredCall) });
        record = { phase: 'done', outcome: { stop: true, stopReason: 'requires_approval', ruleState } };
      } else if (turn.toolCalls.length > 0) {
        const plan = planStepTools({ rules: snapshot.toolRules, availableToolNames: [...toolsByName.keys()], state: input.ruleState });
        const allowed = new Set(plan.allowedToolNames);
        const state = { ruleState, calledThisStep: turn.toolCalls.map((call) => call.name), toolFailed: false, heartbeatRequested: false };
        const pendingToolCalls: PendingToolCall[] = [];
        for (const call of turn.toolCalls) {
          const args = parseArguments(call.arguments);
          const limit = toolsByName.get(call.name)?.returnCharLimit ?? 50_000;
          let refusal: string | null = null;
          if (typeof args === 'string') refusal = `Error executing function ${call.name}: ${args}`;
          else if (!toolsByName.has(call.name)) {
            refusal = `Error: there is no tool named '${call.name}'. Available tools: ${[...toolsByName.keys()].join(', ')}`;
          } else if (!allowed.has(call.name)) {
            refusal = `Error: tool rules do not allow calling '${call.name}' now. Allowed tools: ${plan.allowedToolNames.join(', ')}`;
          }
          if (refusal !== null || typeof args === 'string') {
            state.toolFailed = true;
            await writer.toolReturn(call, 'error', refusal ?? '', limit);
            continue;
          }
          if (args.request_heartbeat === true) state.heartbeatRequested = true;
          const { request_heartbeat: _heartbeat, ...toolArgs } = args;
          ruleState.calledTools.push(call.name);
          if (!isBaseTool(call.name)) {
            pendingToolCalls.push({ id: call.id, name: call.name, arguments: toolArgs });
            continue;
          }
          const toolSpan = {
            attributes: {
              ...runSpanAttributes({ templateId: context.snapshot.templateId, templateFamily: context.snapshot.templateFamily, organizationId: input.organizationId, projectId: run.projectId, agentId: run.agentId, runId: run.id, stepId: input.stepId }),
              [GEN_AI.operationName]: SPAN.executeTool,
              [GEN_AI.toolName]: call.name,
              [GEN_AI.toolCallId]: call.id,
              [GEN_AI.toolType]: 'function',
              ...(recordContent ? { [GEN_AI.toolCallArguments]: JSON.stringify(toolArgs) } : {}),
            },
          };
          const result = await inSpan(tracer, `${SPAN.executeTool} ${call.name}`, toolSpan, async (span) => {
            const executed = await executeBaseTool(trx, snapshot, call.name, toolArgs);
            span.setAttribute(ENGRAM.memoryEdit, executed.memoryChanged);
            markToolResult(span, executed.status, executed.funcResponse, recordContent);
            return executed;
          });
          if (result.status === 'error') state.toolFailed = true;
          memoryChanged ||= result.memoryChanged;
          ruleState.lastToolOutput = result.funcResponse;
          await writer.toolReturn(call, result.status, result.funcResponse, limit);
        }
        if (pendingToolCalls.length > 0) {
          record = { phase: 'awaiting_tools', ...state, nextMessageAt: writer.nextMessageAt, pendingToolCalls };
        } else {
          const { outcome, reminder } = decideAfterCalls(context, state, input);
          if (reminder) await writer.write({ role: 'user', content: [{ type: 'text', text: reminder }] }, 'stored');
          record = { phase: 'done', outcome };
        }
      } else if (turn.finishReason === 'length') {
        record = { phase: 'done', outcome: { stop: true, stopReason: 'max_tokens_exceeded', ruleState } };
      } else {
        const decision = decideAfterText({ rules: snapshot.toolRules, state: ruleState, agentType: snapshot.agentType });
        if (decision.continue) await writer.write({ role: 'user', content: [{ type: 'text', text: decision.reminder }] }, 'stored');
        record = {
          phase: 'done',
          outcome: decision.continue ? limitSteps({ stop: false, ruleState }, input) : { stop: true, stopReason: decision.stopReason, ruleState },
        };
      }

      const frames = await closeStep(trx, context, input, { writer, record, memoryChanged, lockedIds }, now);
      const closing = record.phase === 'done' && record.outcome.stop ? options.closeWhenStopped?.(record.outcome) : undefined;
      if (closing) closed = await closeRun(trx, closing, { lockedRun: run, framesBefore: frames });
      else await appendRunFrames(trx, { runId: run.id, organizationId: input.organizationId }, frames);
      return record.phase === 'done' ? record.outcome : { stop: false, ruleState: record.ruleState, pendingToolCalls: record.pendingToolCalls };
    });
    // After the commit, so the top-up reads the charged balance. The step stands whether or not the signal gets
    // through: a lost one waits for the next crossing, or for auto top-up to be saved again.
    if (crossedTopUpThreshold && deps.requestTopUp) {
      await deps.requestTopUp(input.organizationId).catch((error: unknown) => {
        log.warn('auto top-up could not be requested', { organizationId: input.organizationId, error: String(error) });
      });
    }
    return { outcome, ...(closed ? { closed } : {}) };
  };
}

/** Records the results of a step's sandboxed tool calls and decides whether the loop goes on. */
export function createCompleteToolStep(deps: { db: Database }) {
  return async function completeToolStep(input: CompleteToolStepInput): Promise<StepOutcome> {
    return deps.db.transaction(async (trx) => {
      const step = await Step.query(trx).forOrg(input.organizationId).findById(input.stepId).forUpdate();
      const record = step?.outcome as unknown as StepRecord | undefined;
      if (!record) throw new Error(`step ${input.stepId} was not applied`);
      if (record.phase === 'done') return record.outcome;

      const context = await loadRunContext(trx, input.organizationId, input.runId);
      const { run, snapshot } = context;
      const lockedIds = await contextMessageIds(trx, contextOwnerOf(run), { lock: true });
      const writer = new StepWriter(trx, { organizationId: run.organizationId, agentId: run.agentId, runId: run.id, stepId: input.stepId, ...messageTagsOf(run) }, record.nextMessageAt);
      const state = { ...record, ruleState: { ...record.ruleState } };
      const results = new Map(input.results.map((result) => [result.toolCallId, result]));
      for (const call of record.pendingToolCalls) {
        const result = results.get(call.id) ?? { toolCallId: call.id, status: 'error' as const, funcResponse: 'Error: the tool did not run.', stdout: [], stderr: [] };
        if (result.status === 'error') state.toolFailed = true;
        state.ruleState.lastToolOutput = result.funcResponse;
        const limit = snapshot.tools.find((tool) => tool.name === call.name)?.returnCharLimit ?? 50_000;
        await writer.toolReturn(call, result.status, result.funcResponse, limit, result);
      }
      const { outcome, reminder } = decideAfterCalls(context, state, input);
      if (reminder) await writer.write({ role: 'user', content: [{ type: 'text', text: reminder }] }, 'stored');
      const now = new Date();
      const frames = await closeStep(trx, context, input, { writer, record: { phase: 'done', outcome }, memoryChanged: false, lockedIds }, now);
      await appendRunFrames(trx, { runId: run.id, organizationId: input.organizationId }, frames);
      return outcome;
    });
  };
}
