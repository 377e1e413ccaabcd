import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import {
  buildStepRequest,
  RETRYABLE_MODEL_ERRORS,
  type ModelDelta,
  type ModelSettings,
  type ModelTurn,
  type ToolRuleState,
} from '@engram/core';
import { Provider, StepTrace, type Database, type SecretBox } from '@engram/db';
import {
  classifyProviderError,
  createModelClient,
  ModelCallError,
  resolveProviderForModel,
  type BaseProviderConfig,
} from '../llm/index.js';
import { loadRunContext } from './context.js';
import { publishDelta } from './run-log.js';

export type CallModelInput = {
  runId: string;
  organizationId: string;
  stepId: string;
  stepIndex: number;
  ruleState: ToolRuleState;
};

export type CallModelResult = ModelTurn & { llmRequestNs: number };

type Deps = { db: Database; baseProviders: BaseProviderConfig[]; secrets: SecretBox };

const HEARTBEAT_EVERY_MS = 2000;

async function providerFor(deps: Deps, organizationId: string, settings: ModelSettings) {
  if (settings.provider_category === 'byok' && settings.provider_name) {
    const row = await Provider.query(deps.db).forOrg(organizationId).findOne({ name: settings.provider_name });
    if (!row) throw new ModelCallError('not_configured', `The provider '${settings.provider_name}' of this agent no longer exists.`);
    return {
      providerType: row.providerType,
      apiKey: row.apiKeyEnc ? deps.secrets.decrypt(row.apiKeyEnc) : null,
      baseUrl: row.baseUrl ?? settings.model_endpoint ?? '',
    };
  }
  return resolveProviderForModel(settings, deps.baseProviders);
}

/** Frames for token deltas, shaped like the messages they preview (clients join them by id and otid). */
function deltaFrame(stepId: string, delta: ModelDelta): Record<string, unknown> & { message_type: string } {
  const id = `message-${stepId.slice('step-'.length)}`;
  if (delta.kind === 'text') return { message_type: 'assistant_message', id, otid: null, content: delta.text, step_id: stepId };
  if (delta.kind === 'reasoning') {
    return { message_type: 'reasoning_message', id, source: 'non_reasoner_model', reasoning: delta.text, step_id: stepId };
  }
  const toolCall: Record<string, unknown> = {};
  if (delta.id) toolCall.tool_call_id = delta.id;
  if (delta.name) toolCall.name = delta.name;
  if (delta.argumentsFragment) toolCall.arguments = delta.argumentsFragment;
  return { message_type: 'tool_call_message', id, tool_call: toolCall, tool_calls: [toolCall], step_id: stepId };
}

export function createCallModel(deps: Deps) {
  return async function callModel(input: CallModelInput): Promise<CallModelResult> {
    const context = await loadRunContext(deps.db, input.organizationId, input.runId);
    const { request } = buildStepRequest({
      snapshot: context.snapshot,
      inContext: context.inContext,
      pendingInputs: context.pendingInputs,
      ruleState: input.ruleState,
      clientTools: context.request.clientTools,
      stream: context.request.streamTokens,
    });
    const activity = Context.current();
    const heartbeat = setInterval(() => activity.heartbeat(), HEARTBEAT_EVERY_MS);
    const started = process.hrtime.bigint();
    try {
      const provider = await providerFor(deps, input.organizationId, request.settings);
      const client = createModelClient(provider);
      const pendingDeltas: Array<Promise<void>> = [];
      const turn = await client.complete(request, {
        signal: activity.cancellationSignal,
        onDelta: context.request.streamTokens
          ? (delta) => void pendingDeltas.push(publishDelta(deps.db, input.runId, deltaFrame(input.stepId, delta)))
          : undefined,
      });
      await Promise.allSettled(pendingDeltas);
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
      return { ...turn, llmRequestNs };
    } catch (error) {
      if (activity.cancellationSignal.aborted) throw error;
      const classified = error instanceof ModelCallError ? error : classifyProviderError(error);
      throw ApplicationFailure.create({
        type: classified.kind,
        message: classified.message,
        nonRetryable: !RETRYABLE_MODEL_ERRORS.has(classified.kind),
      });
    } finally {
      clearInterval(heartbeat);
    }
  };
}
