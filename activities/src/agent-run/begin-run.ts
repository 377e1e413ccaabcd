import { randomUUID } from 'node:crypto';
import type { ApprovalDecision, RunInputApproval, StopReason, ToolRuleState } from '@engram/core';
import { contextMessageIds, Message, recompileSystemMessage, Run, setContextMessageIds, type Database } from '@engram/db';
import { contextOwnerOf, loadRunContext, messageTagsOf, type RunContext } from './context.js';
import { executeBaseTool, isBaseTool } from './base-tools.js';
import { appendRunFrames } from './run-log.js';
import { framesFor } from './apply-turn.js';
import { unfinishedPredecessor, type TurnNeighbour } from './turn-order.js';
import type { Knex } from 'knex';

export type BeginRunInput = { runId: string; organizationId: string; cancelled?: boolean };

export type BeginRunResult =
  | { proceed: true; ruleState: ToolRuleState }
  | { proceed: false; stopReason: StopReason; failure?: { errorType: string; message: string } }
  /** An earlier run of the conversation has not finished: this one waits for its turn (nothing was written). */
  | { proceed: false; waitingFor: TurnNeighbour };

const DENIED = 'The user denied this tool call.';

/** The approval request the agent is waiting on: the last message of its context, if it is one. */
async function pendingApprovalRequest(trx: Knex, context: RunContext): Promise<Message | undefined> {
  const lastId = (await contextMessageIds(trx, contextOwnerOf(context.run))).at(-1);
  if (!lastId) return undefined;
  const last = await Message.query(trx).forOrg(context.run.organizationId).findById(lastId);
  return last?.role === 'approval' && last.toolCalls?.length ? last : undefined;
}

async function applyApprovals(
  trx: Knex.Transaction,
  context: RunContext,
  request: Message,
  input: RunInputApproval,
  ruleState: ToolRuleState,
): Promise<void> {
  const now = new Date();
  const base = { organizationId: context.run.organizationId, agentId: context.run.agentId, runId: context.run.id, ...messageTagsOf(context.run) };
  const decisions = new Map<string, ApprovalDecision>(input.approvals.map((decision) => [decision.tool_call_id, decision]));
  const response = await Message.query(trx).insert({
    ...base,
    id: `message-${randomUUID()}`,
    role: 'approval',
    content: [],
    approvals: input.approvals,
    createdAt: now,
  } as unknown as Message);
  const produced: Message[] = [];
  let memoryChanged = false;
  for (const [index, call] of (request.toolCalls ?? []).entries()) {
    const decision: ApprovalDecision | undefined =
      decisions.get(call.id) ??
      (input.answerAll ? { type: 'approval', tool_call_id: call.id, approve: input.answerAll.approve, reason: input.answerAll.reason } : undefined);
    let status: 'success' | 'error' = 'error';
    let funcResponse = DENIED;
    if (decision?.type === 'tool') {
      status = decision.status;
      funcResponse = decision.tool_return;
    } else if (decision?.approve) {
      if (isBaseTool(call.function.name)) {
        let args: Record<string, unknown> = {};
        try {
          args = JSON.parse(call.function.arguments || '{}') as Record<string, unknown>;
        } catch {
          funcResponse = `Error executing function ${call.function.name}: arguments are not valid JSON`;
        }
        const result = await executeBaseTool(trx, context.snapshot, call.function.name, args);
        ({ status, funcResponse } = { status: result.status, funcResponse: result.funcResponse });
        memoryChanged ||= result.memoryChanged;
      } else {
        funcResponse = `Error: the tool '${call.function.name}' cannot be executed by this server yet.`;
      }
      ruleState.calledTools.push(call.function.name);
      ruleState.lastToolOutput = funcResponse;
    } else if (decision?.type === 'approval' && decision.reason) {
      funcResponse = `${DENIED} Reason: ${decision.reason}`;
    }
    produced.push(
      await Message.query(trx).insert({
        ...base,
        id: `message-${randomUUID()}`,
        role: 'tool',
        content: [],
        name: call.function.name,
        toolCallId: call.id,
        toolReturns: [{ tool_call_id: call.id, status, func_response: funcResponse }],
        createdAt: new Date(now.getTime() + 1 + index),
      } as unknown as Message),
    );
  }
  const owner = contextOwnerOf(context.run);
  const messageIds = await contextMessageIds(trx, owner, { lock: true });
  await setContextMessageIds(trx, owner, [...messageIds, response.id, ...produced.map((message) => message.id)]);
  if (memoryChanged) {
    await recompileSystemMessage(trx, context.run.organizationId, context.run.agentId, now);
  }
  await appendRunFrames(trx, { runId: context.run.id, organizationId: context.run.organizationId }, framesFor(produced, context));
}

/**
 * Lists the run's inputs where its turn begins: after everything earlier runs of the agent wrote, so a send
 * queued behind a running turn reads after that turn's answer, as it is answered. The inputs were stored
 * when the run was accepted; only their place (sequence) and date move.
 */
async function listInputsAtTurn(trx: Knex.Transaction, run: Run): Promise<void> {
  const at = Date.now();
  for (const [index, messageId] of run.pendingInputIds.entries()) {
    await trx('messages')
      .where({ organizationId: run.organizationId, id: messageId })
      .update({ sequence: trx.raw(`nextval(pg_get_serial_sequence('messages', 'sequence'))`), createdAt: new Date(at + index) });
  }
}

/**
 * Marks the run running and consumes an approval answer if that is its input, once it is the run's turn in its
 * conversation; before that it names the run it waits for. Idempotent: a retry after the approval was applied
 * finds the run already running and proceeds. `cancelled`: the run's workflow was cancelled while it waited.
 */
export function createBeginRun(deps: { db: Database }) {
  return async function beginRun(input: BeginRunInput): Promise<BeginRunResult> {
    return deps.db.transaction(async (trx) => {
      const context = await loadRunContext(trx, input.organizationId, input.runId);
      const { run } = context;
      if (run.status === 'created') {
        // Its turn comes once every earlier run of its conversation has ended, cancelled or not: a cancelled
        // run's input is listed where its turn came, as it would have been answered.
        const predecessor = await unfinishedPredecessor(trx, run);
        if (predecessor) return { proceed: false, waitingFor: predecessor };
      }
      if (run.cancelRequested || (input.cancelled && run.status === 'created')) {
        // Cancelled while queued: its input is listed where its turn came, with the cancellation.
        if (run.status === 'created') await listInputsAtTurn(trx, run);
        return { proceed: false, stopReason: 'cancelled' };
      }
      const decided = run.metadata.begin as BeginRunResult | undefined;
      if (decided) return decided;
      if (run.status !== 'created') return { proceed: false, stopReason: (run.stopReason as StopReason | null) ?? 'error' };

      const hasHistory = context.inContext.some((message) => message.role === 'assistant');
      const ruleState: ToolRuleState = { calledTools: [], lastToolOutput: null, hasHistory };
      const result = await decide(trx, context, ruleState);
      // After the approval answer the run applies, as it would have been had the answer been sent alone first.
      await listInputsAtTurn(trx, run);
      await Run.query(trx)
        .forOrg(input.organizationId)
        .findById(run.id)
        .patch({ status: 'running', startedAt: new Date(), metadata: { ...run.metadata, begin: result } });
      return result;
    });
  };
}

async function decide(trx: Knex.Transaction, context: RunContext, ruleState: ToolRuleState): Promise<BeginRunResult> {
  const pending = await pendingApprovalRequest(trx, context);
  const approval = context.request.messages.find((message): message is RunInputApproval => message.type === 'approval');
  if (approval) {
    if (!pending) {
      return {
        proceed: false,
        stopReason: 'error',
        failure: { errorType: 'invalid_request', message: 'No tool call is currently awaiting approval.' },
      };
    }
    await applyApprovals(trx, context, pending, approval, ruleState);
    return { proceed: true, ruleState };
  }
  if (pending) {
    return {
      proceed: false,
      stopReason: 'error',
      failure: {
        errorType: 'PENDING_APPROVAL',
        message: `The agent is waiting for an approval of ${pending.id}; answer it before sending a new message.`,
      },
    };
  }
  return { proceed: true, ruleState };
}
