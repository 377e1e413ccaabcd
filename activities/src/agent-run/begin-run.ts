import { randomUUID } from 'node:crypto';
import type { ApprovalDecision, RunInputApproval, RunRequest, StopReason, ToolRuleState } from '@engram/core';
import { contextMessageIds, Message, recompileSystemMessage, Run, setContextMessageIds, type Database } from '@engram/db';
import { contextOwnerOf, loadRunContext, messageTagsOf, RunStateError, type RunContext } from './context.js';
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
 * queued behind a running turn reads after that turn's answer, as it is answered. The inputs of the runs queued
 * behind this one move with it, after it, so the history keeps listing what was sent in the order it was sent;
 * each moves again when its own turn begins. The inputs were stored when the run was accepted; only their place
 * (sequence) and date move.
 */
async function listInputsAtTurn(trx: Knex.Transaction, run: Run): Promise<void> {
  const queuedBehind = (await trx('runs')
    .select('pendingInputIds')
    .where({ organizationId: run.organizationId, agentId: run.agentId, status: 'created' })
    .whereRaw('conversation_id is not distinct from ?', [run.conversationId ?? null])
    .whereRaw('(created_at, id) > (select created_at, id from runs where id = ?)', [run.id])
    .orderBy([{ column: 'created_at' }, { column: 'id' }])) as Array<{ pendingInputIds: string[] }>;
  const at = Date.now();
  for (const [index, messageId] of [...run.pendingInputIds, ...queuedBehind.flatMap((queued) => queued.pendingInputIds)].entries()) {
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
      const run = await Run.query(trx).forOrg(input.organizationId).findById(input.runId);
      if (!run) throw new RunStateError(`run ${input.runId} does not exist`);
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

      const result = await decide(trx, run);
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

/**
 * What beginning a run needs of its context window, read without loading it: whether the agent has answered in it
 * (with autoclear it starts from its system message alone each time, so never), and the approval request it ends
 * with, if any.
 */
async function contextAtTurn(trx: Knex.Transaction, run: Run): Promise<{ hasHistory: boolean; pendingApprovalId: string | null }> {
  const result = await trx.raw<{ rows: Array<{ has_history: boolean; pending_approval_id: string | null }> }>(
    `with context as (
       select case when ?::text is null then a.message_ids else coalesce(c.message_ids, '{}') end as ids, a.message_buffer_autoclear as autoclear
         from agents a
         left join conversations c on c.organization_id = a.organization_id and c.id = ?::text
        where a.organization_id = ? and a.id = ?
     )
     select not context.autoclear and exists (
              select 1 from messages m where m.organization_id = ? and m.id = any(context.ids) and m.role = 'assistant'
            ) as has_history,
            (select m.id from messages m
              where m.organization_id = ? and m.id = context.ids[array_length(context.ids, 1)]
                and m.role = 'approval' and jsonb_array_length(coalesce(m.tool_calls, '[]'::jsonb)) > 0) as pending_approval_id
       from context`,
    [run.conversationId ?? null, run.conversationId ?? null, run.organizationId, run.agentId, run.organizationId, run.organizationId],
  );
  const row = result.rows[0];
  if (!row) throw new RunStateError(`agent ${run.agentId} of run ${run.id} no longer exists`);
  return { hasHistory: row.has_history, pendingApprovalId: row.pending_approval_id };
}

/**
 * Whether the run may call the model: an approval answer is applied first (which needs the whole context: it runs
 * the approved tools); a plain message is refused while an approval is pending.
 */
async function decide(trx: Knex.Transaction, run: Run): Promise<BeginRunResult> {
  const request = run.request as unknown as RunRequest;
  const approval = request.messages.find((message): message is RunInputApproval => message.type === 'approval');
  if (!approval) {
    const { hasHistory, pendingApprovalId } = await contextAtTurn(trx, run);
    if (pendingApprovalId) return refusedWhilePending(pendingApprovalId);
    return { proceed: true, ruleState: { calledTools: [], lastToolOutput: null, hasHistory } };
  }
  const context = await loadRunContext(trx, run.organizationId, run.id);
  const ruleState: ToolRuleState = { calledTools: [], lastToolOutput: null, hasHistory: context.inContext.some((message) => message.role === 'assistant') };
  const pending = await pendingApprovalRequest(trx, context);
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

function refusedWhilePending(pendingApprovalId: string): BeginRunResult {
  return {
    proceed: false,
    stopReason: 'error',
    failure: {
      errorType: 'PENDING_APPROVAL',
      message: `The agent is waiting for an approval of ${pendingApprovalId}; answer it before sending a new message.`,
    },
  };
}
