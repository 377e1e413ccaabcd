import type { Knex } from 'knex';
import { platformRunRequest, type AgentCallToolName } from '@engram/core';
import { Agent, AgentCall, Group, GroupAgent, insertQueuedRun, newId, Run, type Database, VISIBLE_AGENT } from '@engram/db';
import { spokenByRun } from '../groups/transcript.js';

export type AgentCallsDeps = { db: Database };

type CallRef = { organizationId: string; callerRunId: string; toolCallId: string };

export type CalleeRun = { agentId: string; runId: string; maxSteps: number; runType: string };

/** The calls' runs to queue, whether the caller waits for them, and an answer when the call went nowhere. */
export type PlannedAgentCalls = { runs: CalleeRun[]; waits: boolean };

export type AgentCallAnswer = { status: 'success' | 'error'; funcResponse: string; stdout: string[]; stderr: string[] };

const RUN_TYPE = 'agent_call';

const answer = (status: AgentCallAnswer['status'], funcResponse: string): AgentCallAnswer => ({ status, funcResponse, stdout: [], stderr: [] });

function textArgument(args: Record<string, unknown>, key: string): string | null {
  const value = args[key];
  return typeof value === 'string' && value.trim() !== '' ? value : null;
}

function tagsArgument(args: Record<string, unknown>, key: string): string[] {
  const value = args[key];
  return Array.isArray(value) ? value.filter((tag): tag is string => typeof tag === 'string') : [];
}

/** Whether `from` already waits, directly or through other agents, on a reply from `to`. */
async function waitsOn(trx: Knex, organizationId: string, from: string, to: string): Promise<boolean> {
  const found = await trx.raw(
    `with recursive reached(agent_id) as (
       select ?::text
       union
       select call.callee_agent_id from agent_calls as call join reached on call.caller_agent_id = reached.agent_id
        where call.organization_id = ? and call.status = 'waiting'
     )
     select 1 from reached where agent_id = ? limit 1`,
    [from, organizationId, to],
  );
  return (found as { rows: unknown[] }).rows.length > 0;
}

/** The agents a call addresses, or why it addresses none. */
async function calleesOf(
  trx: Knex,
  caller: { organizationId: string; agentId: string; groupId: string | null },
  toolName: AgentCallToolName,
  args: Record<string, unknown>,
): Promise<string[] | string> {
  if (toolName === 'send_message_to_agent_and_wait_for_reply' || toolName === 'send_message_to_agent_async') {
    const otherAgentId = textArgument(args, 'other_agent_id');
    if (!otherAgentId) return `Error executing function ${toolName}: missing or empty argument 'other_agent_id'`;
    const other = await Agent.query(trx).forOrg(caller.organizationId).findById(otherAgentId);
    return other ? [other.id] : `Error executing function ${toolName}: there is no agent with id '${otherAgentId}'`;
  }
  if (toolName === 'send_message_to_agents_matching_tags') {
    const matchAll = tagsArgument(args, 'match_all');
    const matchSome = tagsArgument(args, 'match_some');
    // Hidden agents (a shared chat's visitors' copies carry the shared agent's tags) are nobody's to message.
    const query = Agent.query(trx).forOrg(caller.organizationId).whereRaw(VISIBLE_AGENT).whereNot('id', caller.agentId).orderBy(['createdAt', 'id']);
    if (matchAll.length) query.whereRaw('agents.tags @> ?::text[]', [matchAll]);
    if (matchSome.length) query.whereRaw('agents.tags && ?::text[]', [matchSome]);
    return (await query.select('id')).map((agent) => agent.id);
  }
  // The group the caller supervises: the one whose turn this is, else the first it manages.
  const supervised = Group.query(trx).forOrg(caller.organizationId).where({ managerAgentId: caller.agentId, managerType: 'supervisor' });
  const group = caller.groupId ? ((await supervised.clone().findById(caller.groupId)) ?? (await supervised.orderBy('created_at').first())) : await supervised.orderBy('created_at').first();
  if (!group) return `Error executing function ${toolName}: you do not supervise a group`;
  const members = await GroupAgent.query(trx).forOrg(caller.organizationId).where({ groupId: group.id }).orderBy('position');
  return members.map((member) => member.agentId).filter((agentId) => agentId !== caller.agentId);
}

/** The multi-agent tools' I/O: each callee's run (a child of the caller's), refusals of cycles, and the answers. */
export function createAgentCallActivities(deps: AgentCallsDeps) {
  return {
    /**
     * Records one run per callee (once per tool call: a retry finds them), its input the message from the caller.
     * A callee the caller may not wait for is refused instead: itself, or an agent already waiting on the caller,
     * directly or through others, which would wait for ever. Calls are recorded under an organization-wide lock,
     * so two agents calling each other at the same moment cannot both pass the check.
     */
    async beginAgentCalls(input: CallRef & { toolName: AgentCallToolName; arguments: Record<string, unknown> }): Promise<PlannedAgentCalls & { refused?: string }> {
      return deps.db.transaction(async (trx) => {
        const waits = input.toolName !== 'send_message_to_agent_async';
        const recorded = await AgentCall.query(trx).forOrg(input.organizationId).where({ callerRunId: input.callerRunId, toolCallId: input.toolCallId }).orderBy('position');
        if (recorded.length > 0) return { runs: await calleeRuns(trx, input.organizationId, recorded), waits };

        const callerRun = await Run.query(trx).forOrg(input.organizationId).findById(input.callerRunId);
        if (!callerRun) return { runs: [], waits, refused: 'Error: the calling run no longer exists.' };
        const caller = await Agent.query(trx).forOrg(input.organizationId).findById(callerRun.agentId);
        if (!caller) return { runs: [], waits, refused: 'Error: the calling agent no longer exists.' };
        const message = textArgument(input.arguments, 'message');
        if (!message) return { runs: [], waits, refused: `Error executing function ${input.toolName}: missing or empty argument 'message'` };
        const groupId = typeof callerRun.metadata.group_id === 'string' ? callerRun.metadata.group_id : null;
        const callees = await calleesOf(trx, { organizationId: input.organizationId, agentId: caller.id, groupId }, input.toolName, input.arguments);
        if (typeof callees === 'string') return { runs: [], waits, refused: callees };

        await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [`agent-calls:${input.organizationId}`]);
        const incoming =
          `[Incoming message from agent with ID '${caller.id}' (${caller.name})` +
          `${waits ? ' - your response will be delivered to the sender' : ''}] ${message}`;
        const rows: Array<Partial<AgentCall>> = [];
        for (const [position, calleeId] of callees.entries()) {
          const base = { id: newId('agentCall'), organizationId: input.organizationId, callerRunId: callerRun.id, callerAgentId: caller.id, toolCallId: input.toolCallId, position, calleeAgentId: calleeId, waits };
          if (waits && (calleeId === caller.id || (await waitsOn(trx, input.organizationId, calleeId, caller.id)))) {
            rows.push({
              ...base,
              status: 'refused',
              refusal:
                calleeId === caller.id
                  ? 'Refused: an agent cannot wait for a reply from itself.'
                  : `Refused: agent ${calleeId} is already waiting, directly or through other agents, for a reply from you; waiting for it would deadlock.`,
            });
            continue;
          }
          const run = await insertQueuedRun(trx as Knex.Transaction, {
            organizationId: input.organizationId,
            agentId: calleeId,
            request: platformRunRequest([{ type: 'message', role: 'user', content: incoming, name: caller.name, sender_id: caller.id }]),
            runType: RUN_TYPE,
            callbackUrl: null,
            metadata: { parent_run_id: callerRun.id, caller_agent_id: caller.id },
            idempotencyKey: `agent_call:${callerRun.id}:${input.toolCallId}:${position}`,
          });
          rows.push({ ...base, calleeRunId: run?.id ?? null, status: run ? (waits ? 'waiting' : 'sent') : 'refused', refusal: run ? null : 'Refused: the agent no longer exists.' });
        }
        if (rows.length > 0) await AgentCall.query(trx).insert(rows);
        const inserted = await AgentCall.query(trx).forOrg(input.organizationId).where({ callerRunId: callerRun.id, toolCallId: input.toolCallId }).orderBy('position');
        return { runs: await calleeRuns(trx, input.organizationId, inserted), waits };
      });
    },

    /** The caller was cancelled while waiting: its callees' runs are flagged (a queued one never starts); returns those still active. */
    async cancelAgentCalls(input: CallRef): Promise<string[]> {
      return deps.db.transaction(async (trx) => {
        const waiting = await AgentCall.query(trx).forOrg(input.organizationId).where({ callerRunId: input.callerRunId, toolCallId: input.toolCallId, status: 'waiting' });
        if (waiting.length === 0) return [];
        await AgentCall.query(trx).forOrg(input.organizationId).whereIn('id', waiting.map((call) => call.id)).patch({ status: 'cancelled' });
        const runIds = waiting.flatMap((call) => (call.calleeRunId ? [call.calleeRunId] : []));
        const active = await Run.query(trx).forOrg(input.organizationId).whereIn('id', runIds).whereIn('status', ['created', 'running']);
        await Run.query(trx).forOrg(input.organizationId).whereIn('id', active.map((run) => run.id)).patch({ cancelRequested: true });
        return active.map((run) => run.id);
      });
    },

    /**
     * The tool's result: for each callee what it replied (or why it was refused, or how its run failed). Waiting
     * ends here, so the calls no longer count as edges of the wait-for graph.
     */
    async finishAgentCalls(input: CallRef & { toolName: AgentCallToolName; refused?: string }): Promise<AgentCallAnswer> {
      if (input.refused) return answer('error', input.refused);
      return deps.db.transaction(async (trx) => {
        const calls = await AgentCall.query(trx).forOrg(input.organizationId).where({ callerRunId: input.callerRunId, toolCallId: input.toolCallId }).orderBy('position');
        await AgentCall.query(trx).forOrg(input.organizationId).whereIn('id', calls.filter((call) => call.status === 'waiting').map((call) => call.id)).patch({ status: 'answered' });
        if (input.toolName === 'send_message_to_agent_async') {
          const [call] = calls;
          if (!call || call.status === 'refused') return answer('error', call?.refusal ?? 'Error: the message was not sent.');
          return answer('success', `Sent the message to agent ${call.calleeAgentId} (run ${call.calleeRunId}); its reply will not be returned to you.`);
        }
        const replies = [];
        for (const call of calls) {
          if (call.status === 'refused') {
            replies.push({ agent_id: call.calleeAgentId, error: call.refusal });
            continue;
          }
          const run = call.calleeRunId ? await Run.query(trx).forOrg(input.organizationId).findById(call.calleeRunId) : undefined;
          if (!run || run.status !== 'completed') {
            const failure = (run?.metadata.error as { message?: string } | undefined)?.message;
            replies.push({ agent_id: call.calleeAgentId, error: `Its run ended ${run?.stopReason ?? 'without an answer'}${failure ? `: ${failure}` : ''}.` });
            continue;
          }
          const said = await spokenByRun(trx, input.organizationId, run.id);
          replies.push({ agent_id: call.calleeAgentId, response: said ? [said] : [] });
        }
        if (input.toolName === 'send_message_to_agent_and_wait_for_reply') {
          const [only] = replies;
          if (!only) return answer('error', 'Error: the message was not sent.');
          return 'error' in only ? answer('error', only.error ?? 'Error: no reply.') : answer('success', JSON.stringify(only));
        }
        return answer('success', JSON.stringify(replies));
      });
    },
  };
}

async function calleeRuns(trx: Knex, organizationId: string, calls: AgentCall[]): Promise<CalleeRun[]> {
  const runIds = calls.flatMap((call) => (call.calleeRunId && call.status !== 'refused' ? [call.calleeRunId] : []));
  const runs = new Map((runIds.length ? await Run.query(trx).forOrg(organizationId).whereIn('id', runIds) : []).map((run) => [run.id, run]));
  return runIds.flatMap((runId) => {
    const run = runs.get(runId);
    return run ? [{ agentId: run.agentId, runId: run.id, maxSteps: (run.request as { maxSteps: number }).maxSteps, runType: RUN_TYPE }] : [];
  });
}

export type AgentCallActivities = ReturnType<typeof createAgentCallActivities>;
