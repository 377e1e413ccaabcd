import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import {
  decideAfterText,
  decideAfterTools,
  planStepTools,
  requiresApproval,
  toLettaMessages,
  type StopReason,
  type StoredMessage,
  type ToolRuleState,
} from '@engram/core';
import { Agent, Message, recompileSystemMessage, Run, Step, toStoredMessage, type Database } from '@engram/db';
import type { CallModelResult } from './call-model.js';
import { loadRunContext, type RunContext } from './context.js';
import { executeBaseTool, isBaseTool } from './base-tools.js';
import { appendRunFrames, type Frame } from './run-log.js';

export type ApplyTurnInput = {
  runId: string;
  organizationId: string;
  stepId: string;
  stepIndex: number;
  maxSteps: number;
  ruleState: ToolRuleState;
  turn: CallModelResult;
};

export type ApplyTurnOutcome =
  | { stop: false; ruleState: ToolRuleState }
  | { stop: true; stopReason: StopReason; ruleState: ToolRuleState };

type NewMessage = Omit<Partial<Message>, 'content'> & { id: string; role: Message['role']; content: StoredMessage['content'] };

const newMessageId = () => `message-${randomUUID()}`;

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

/** Stores a run's plain inputs with its first step, so a failed first model call leaves no trace. */
export async function storeInputs(trx: Knex.Transaction, context: RunContext, now: Date): Promise<Message[]> {
  if (context.pendingInputs.length === 0) return [];
  const rows = context.pendingInputs.map((input, index) => ({
    id: newMessageId(),
    organizationId: context.run.organizationId,
    agentId: context.run.agentId,
    runId: context.run.id,
    role: input.role,
    content:
      typeof input.content === 'string' ? [{ type: 'text', text: input.content }] : (input.content as StoredMessage['content']),
    name: input.name ?? null,
    otid: input.otid ?? null,
    senderId: input.sender_id ?? null,
    createdAt: new Date(now.getTime() + index),
  }));
  const inserted = await Message.query(trx).insert(rows as unknown as Message[]);
  await Run.query(trx)
    .forOrg(context.run.organizationId)
    .findById(context.run.id)
    .patch({ metadata: { ...context.run.metadata, inputs_stored: true } });
  return inserted;
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

/**
 * Applies one model answer: stores it, runs built-in tools, decides whether the loop goes on, and
 * appends the step's frames to the run log — all in one transaction, keyed by the step id so a
 * retried activity returns the first outcome instead of applying the step twice.
 */
export function createApplyModelTurn(deps: { db: Database }) {
  return async function applyModelTurn(input: ApplyTurnInput): Promise<ApplyTurnOutcome> {
    return deps.db.transaction(async (trx) => {
      const done = await Step.query(trx).forOrg(input.organizationId).findById(input.stepId);
      if (done?.outcome) return done.outcome as unknown as ApplyTurnOutcome;

      const context = await loadRunContext(trx, input.organizationId, input.runId);
      const { run, snapshot, request } = context;
      // Serializes context-window updates of this agent with API writes (reset, block edits).
      await Agent.query(trx).forOrg(input.organizationId).findById(run.agentId).forUpdate();
      const now = new Date();
      const stored: Message[] = [...(await storeInputs(trx, context, now))];
      const produced: Message[] = [];
      const at = (offset: number) => new Date(now.getTime() + 10 + offset);
      const base = { organizationId: run.organizationId, agentId: run.agentId, runId: run.id, stepId: input.stepId };
      const { turn } = input;

      const clientToolNames = new Set(request.clientTools.map((tool) => tool.name));
      const toolsByName = new Map(snapshot.tools.map((tool) => [tool.name, tool]));
      const needsApproval = turn.toolCalls.filter((call) => {
        if (clientToolNames.has(call.name)) return true;
        const tool = toolsByName.get(call.name);
        return tool ? requiresApproval(snapshot.toolRules, { name: tool.name, defaultRequiresApproval: tool.defaultRequiresApproval }) : false;
      });

      const assistantParts: StoredMessage['content'] = [];
      if (turn.reasoning) assistantParts.push({ type: 'reasoning', reasoning: turn.reasoning, is_native: true });
      if (turn.text) assistantParts.push({ type: 'text', text: turn.text });
      const awaitingApproval = needsApproval.length > 0;
      const assistantCalls = awaitingApproval ? [] : turn.toolCalls;
      if (assistantParts.length > 0 || assistantCalls.length > 0 || turn.toolCalls.length === 0) {
        const message: NewMessage = {
          ...base,
          // Token deltas of this step carry the same id, so clients can join them to the stored message.
          id: `message-${input.stepId.slice('step-'.length)}`,
          role: 'assistant',
          content: assistantParts,
          model: turn.model,
          toolCalls: assistantCalls.length
            ? assistantCalls.map((call) => ({ id: call.id, type: 'function' as const, function: { name: call.name, arguments: call.arguments } }))
            : null,
          createdAt: at(0),
        };
        produced.push(await Message.query(trx).insert(message as unknown as Message));
      }

      let outcome: ApplyTurnOutcome;
      let memoryChanged = false;
      const ruleState: ToolRuleState = { ...input.ruleState, calledTools: [...input.ruleState.calledTools] };

      if (awaitingApproval) {
        produced.push(
          await Message.query(trx).insert({
            ...base,
            id: newMessageId(),
            role: 'approval',
            content: [],
            model: turn.model,
            toolCalls: turn.toolCalls.map((call) => ({ id: call.id, type: 'function' as const, function: { name: call.name, arguments: call.arguments } })),
            createdAt: at(1),
          } as unknown as Message),
        );
        outcome = { stop: true, stopReason: 'requires_approval', ruleState };
      } else if (turn.toolCalls.length > 0) {
        const plan = planStepTools({ rules: snapshot.toolRules, availableToolNames: [...toolsByName.keys()], state: input.ruleState });
        const allowed = new Set(plan.allowedToolNames);
        let toolFailed = false;
        let heartbeatRequested = false;
        for (const [index, call] of turn.toolCalls.entries()) {
          const args = parseArguments(call.arguments);
          let status: 'success' | 'error' = 'error';
          let response: string;
          if (typeof args === 'string') {
            response = `Error executing function ${call.name}: ${args}`;
          } else if (!toolsByName.has(call.name)) {
            response = `Error: there is no tool named '${call.name}'. Available tools: ${[...toolsByName.keys()].join(', ')}`;
          } else if (!allowed.has(call.name)) {
            response = `Error: tool rules do not allow calling '${call.name}' now. Allowed tools: ${plan.allowedToolNames.join(', ')}`;
          } else if (!isBaseTool(call.name)) {
            response = `Error: the tool '${call.name}' cannot be executed by this server yet.`;
          } else {
            if (args.request_heartbeat === true) heartbeatRequested = true;
            const result = await executeBaseTool(trx, snapshot, call.name, args);
            status = result.status;
            response = result.funcResponse;
            memoryChanged ||= result.memoryChanged;
            ruleState.calledTools.push(call.name);
            ruleState.lastToolOutput = response;
          }
          if (status === 'error') toolFailed = true;
          const limit = toolsByName.get(call.name)?.returnCharLimit ?? 50_000;
          produced.push(
            await Message.query(trx).insert({
              ...base,
              id: newMessageId(),
              role: 'tool',
              content: [],
              name: call.name,
              toolCallId: call.id,
              toolReturns: [{ tool_call_id: call.id, status, func_response: truncate(response, limit), stdout: null, stderr: null }],
              createdAt: at(2 + index),
            } as unknown as Message),
          );
        }
        const decision = decideAfterTools({
          rules: snapshot.toolRules,
          calledThisStep: turn.toolCalls.map((call) => call.name),
          state: ruleState,
          stepIndex: input.stepIndex,
          maxSteps: input.maxSteps,
          agentType: snapshot.agentType,
          heartbeatRequested,
          toolFailed,
        });
        if (decision.continue && decision.reminder) {
          stored.push(
            await Message.query(trx).insert({
              ...base,
              id: newMessageId(),
              role: 'user',
              content: [{ type: 'text', text: decision.reminder }],
              createdAt: at(2 + turn.toolCalls.length),
            } as unknown as Message),
          );
        }
        outcome = decision.continue ? { stop: false, ruleState } : { stop: true, stopReason: decision.stopReason, ruleState };
      } else if (turn.finishReason === 'length') {
        outcome = { stop: true, stopReason: 'max_tokens_exceeded', ruleState };
      } else {
        const decision = decideAfterText({ rules: snapshot.toolRules, state: ruleState, agentType: snapshot.agentType });
        if (!decision.continue) {
          outcome = { stop: true, stopReason: decision.stopReason, ruleState };
        } else {
          stored.push(
            await Message.query(trx).insert({
              ...base,
              id: newMessageId(),
              role: 'user',
              content: [{ type: 'text', text: decision.reminder }],
              createdAt: at(1),
            } as unknown as Message),
          );
          outcome = { stop: false, ruleState };
        }
      }
      if (outcome.stop === false && input.stepIndex >= input.maxSteps - 1) {
        outcome = { stop: true, stopReason: 'max_steps', ruleState };
      }

      const agent = (await Agent.query(trx).forOrg(input.organizationId).findById(run.agentId)) as Agent;
      await Agent.query(trx)
        .forOrg(input.organizationId)
        .findById(run.agentId)
        .patch({ messageIds: [...agent.messageIds, ...[...stored, ...produced].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime()).map((m) => m.id)] });
      if (memoryChanged) await recompileSystemMessage(trx, input.organizationId, run.agentId, now);

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
        stopReason: outcome.stop ? outcome.stopReason : null,
        status: 'success',
        llmRequestNs: turn.llmRequestNs,
        outcome: outcome as unknown as Record<string, unknown>,
      } as unknown as Step);

      if (input.stepIndex === 0 && run.ttftNs === null) {
        await Run.query(trx)
          .forOrg(input.organizationId)
          .findById(run.id)
          .patch({ ttftNs: turn.llmRequestNs });
      }
      await appendRunFrames(trx, { runId: run.id, organizationId: input.organizationId }, framesFor(produced, context));
      return outcome;
    });
  };
}
