import { SpanKind } from '@opentelemetry/api';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import {
  buildStepRequest,
  GEN_AI,
  RETRYABLE_MODEL_ERRORS,
  runSpanAttributes,
  SPAN,
  type ModelDelta,
  type ModelErrorKind,
  type ModelTurn,
  type ToolRuleState,
} from '@engram/core';
import { modelCallRefusal, StepTrace, takeModelCall, type Database, type LlmConfig, type SecretBox } from '@engram/db';
import { classifyProviderError, createModelClient, ModelCallError, providerFor, type BaseProviderConfig } from '@engram/integrations/llm';
import type { EgressPolicy } from '@engram/integrations/egress';
import { loadRunContext, type RunContext } from './context.js';
import { publishDelta } from './run-log.js';
import { inSpan, tracingOf, type ActivityTracing } from './spans.js';

export type CallModelInput = {
  runId: string;
  organizationId: string;
  stepId: string;
  stepIndex: number;
  ruleState: ToolRuleState;
};

/** `contextWindow` lets the workflow decide on compaction without loading the agent. */
export type CallModelResult = ModelTurn & { llmRequestNs: number; contextWindow: number };

type Deps = { db: Database; baseProviders: BaseProviderConfig[]; secrets: SecretBox; egress: Pick<EgressPolicy, 'fetchFor'>; tracing?: ActivityTracing };

const HEARTBEAT_EVERY_MS = 2000;

/** What a step's stream has said about each of its tool calls so far (by the call's index in the answer). */
type ToolCallHeaders = Map<number, { tool_call_id?: string; name?: string }>;

/**
 * Frames for token deltas, shaped like the messages they preview (clients join them by id and otid). Every
 * tool-call delta repeats its call's id and tool name once known: providers send them only with a call's
 * first chunk, and clients (letta-code-sdk) refuse a later chunk that names no call.
 */
function deltaFrame(stepId: string, delta: ModelDelta, toolCalls: ToolCallHeaders): Record<string, unknown> & { message_type: string } {
  const id = `message-${stepId.slice('step-'.length)}`;
  if (delta.kind === 'text') return { message_type: 'assistant_message', id, otid: null, content: delta.text, step_id: stepId };
  if (delta.kind === 'reasoning') {
    return { message_type: 'reasoning_message', id, source: 'reasoner_model', reasoning: delta.text, step_id: stepId };
  }
  if (delta.kind === 'hidden_reasoning') {
    return { message_type: 'hidden_reasoning_message', id, state: 'redacted', hidden_reasoning: delta.data, step_id: stepId };
  }
  const header = toolCalls.get(delta.index) ?? {};
  if (delta.id) header.tool_call_id = delta.id;
  if (delta.name) header.name = delta.name;
  toolCalls.set(delta.index, header);
  const toolCall: Record<string, unknown> = { ...header };
  if (delta.argumentsFragment) toolCall.arguments = delta.argumentsFragment;
  return { message_type: 'tool_call_message', id, tool_call: toolCall, tool_calls: [toolCall], step_id: stepId };
}

/**
 * Counts this execution of the call against the organization's per-model rate limit (the send reserved the run's
 * first call). Over the limit, the call is retried once the window has room (`nextRetryDelay`), within the model
 * calls' retry policy; a run still refused after its last attempt stops with `llm_api_error` and the limit's message.
 */
async function admitModelCall(db: Database, input: CallModelInput, llmConfig: LlmConfig, attempt: number): Promise<void> {
  const decision = await takeModelCall(db, {
    organizationId: input.organizationId,
    llmConfig,
    runId: input.runId,
    callKey: `${input.stepId}:${attempt}`,
    refuseDisabled: false,
  });
  if (decision.admitted || decision.reason === 'disabled') return;
  throw ApplicationFailure.create({
    type: 'rate_limit' satisfies ModelErrorKind,
    message: modelCallRefusal(decision),
    nextRetryDelay: `${decision.retryAfterSeconds} seconds`,
  });
}

export function createCallModel(deps: Deps) {
  const { tracer, recordContent } = tracingOf(deps);
  /** `loaded`: the run's context as the caller loaded it for this step, so it is read once per step. */
  return async function callModel(input: CallModelInput, loaded?: RunContext): Promise<CallModelResult> {
    const context = loaded ?? (await loadRunContext(deps.db, input.organizationId, input.runId));
    const { request } = buildStepRequest({
      snapshot: context.snapshot,
      inContext: context.inContext,
      pendingInputs: context.pendingInputs,
      ruleState: input.ruleState,
      clientTools: context.request.clientTools,
      stream: context.request.streamTokens,
    });
    const activity = Context.current();
    await admitModelCall(deps.db, input, context.snapshot.llmConfig, activity.info.attempt);
    const heartbeat = setInterval(() => activity.heartbeat(), HEARTBEAT_EVERY_MS);
    const started = process.hrtime.bigint();
    const { run } = context;
    const spanAttributes = {
      ...runSpanAttributes({ templateId: context.snapshot.templateId, templateFamily: context.snapshot.templateFamily, organizationId: input.organizationId, projectId: run.projectId, agentId: run.agentId, runId: run.id, stepId: input.stepId }),
      [GEN_AI.operationName]: SPAN.chat,
      [GEN_AI.requestModel]: request.settings.model,
      [GEN_AI.agentName]: context.snapshot.name,
      [GEN_AI.conversationId]: run.conversationId ?? run.agentId,
    };
    try {
      return await inSpan(tracer, `${SPAN.chat} ${request.settings.model}`, { kind: SpanKind.CLIENT, attributes: spanAttributes }, async (span) => {
        const provider = await providerFor(deps, input.organizationId, request.settings);
        span.setAttribute(GEN_AI.providerName, provider.providerType);
        if (recordContent) span.setAttribute(GEN_AI.inputMessages, JSON.stringify(request.messages));
        const client = createModelClient(provider);
        // Deltas are published one after another: separate pool connections could reorder them.
        let published: Promise<void> = Promise.resolve();
        const toolCallHeaders: ToolCallHeaders = new Map();
        const turn = await client.complete(request, {
          signal: activity.cancellationSignal,
          onDelta: context.request.streamTokens
            ? (delta) => {
                const frame = deltaFrame(input.stepId, delta, toolCallHeaders);
                published = published.then(() => publishDelta(deps.db, input.runId, activity.info.attempt, frame)).catch(() => undefined);
              }
            : undefined,
        });
        await published;
        const llmRequestNs = Number(process.hrtime.bigint() - started);
        await StepTrace.query(deps.db)
          .insert({
            stepId: input.stepId,
            organizationId: input.organizationId,
            runId: input.runId,
            requestJson: request as unknown as Record<string, unknown>,
            responseJson: turn as unknown as Record<string, unknown>,
          })
          .onConflict('step_id')
          .merge();
        span.setAttributes({
          [GEN_AI.responseModel]: turn.model,
          [GEN_AI.inputTokens]: turn.usage.prompt_tokens,
          [GEN_AI.outputTokens]: turn.usage.completion_tokens,
          [GEN_AI.finishReasons]: [turn.finishReason],
        });
        if (recordContent) span.setAttribute(GEN_AI.outputMessages, JSON.stringify({ text: turn.text, reasoning: turn.reasoning, tool_calls: turn.toolCalls }));
        return { ...turn, llmRequestNs, contextWindow: request.settings.context_window };
      });
    } catch (error) {
      if (activity.cancellationSignal.aborted) throw error;
      const classified = error instanceof ModelCallError ? error : classifyProviderError(error);
      throw ApplicationFailure.create({
        type: classified.kind,
        message: classified.message,
        nonRetryable: !RETRYABLE_MODEL_ERRORS.has(classified.kind),
        // The provider said when to come back (Retry-After, Gemini's RetryInfo): the next attempt waits that long.
        ...(classified.retryAfterMs !== undefined ? { nextRetryDelay: classified.retryAfterMs } : {}),
      });
    } finally {
      clearInterval(heartbeat);
    }
  };
}
