import {
  pickNamedSpeaker,
  runStatusFor,
  saysTerminationToken,
  speakerChoicePrompt,
  type RunInputMessage,
  type RunRequest,
  type StopReason,
} from '@engram/core';
import { Agent, Group, GroupAgent, GroupTurn, insertQueuedRun, Run, RUN_EVENTS_CHANNEL, type Database } from '@engram/db';
import type { Knex } from 'knex';
import { copyFor, spokenByRun, unseenBy } from './transcript.js';

export type GroupsDeps = { db: Database };

type TurnRef = { organizationId: string; turnId: string };

/** How a turn goes, read once at its start. */
export type GroupTurnPlan = {
  managerType: 'round_robin' | 'supervisor' | 'dynamic' | 'sleeptime';
  memberIds: string[];
  managerAgentId: string | null;
  maxTurns: number;
  terminationToken: string | null;
  maxSteps: number;
};

export type MemberRunOutcome = {
  status: 'completed' | 'failed' | 'cancelled';
  stopReason: string;
  failure: { errorType: string; message: string } | null;
  /** The reply said the group's termination token. */
  terminated: boolean;
  /** For a dynamic manager's choice: the member it named (the first candidate when it named none). */
  nextSpeakerId: string | null;
};

export type MemberRole = 'speak' | 'choose';

const RUN_TYPE = 'send_message_group';

/** Wakes readers following the turn (they listen on the run channel under the turn's id). */
async function notifyTurn(trx: Knex, turnId: string): Promise<void> {
  await trx.raw('select pg_notify(?, ?)', [RUN_EVENTS_CHANNEL, `${turnId}:0`]);
}

async function membersOf(trx: Knex, organizationId: string, groupId: string): Promise<string[]> {
  return (await GroupAgent.query(trx).forOrg(organizationId).where({ groupId }).orderBy('position')).map((member) => member.agentId);
}

async function candidateNames(trx: Knex, organizationId: string, agentIds: string[]) {
  const agents = await Agent.query(trx).forOrg(organizationId).whereIn('id', agentIds).select('id', 'name');
  return agentIds.flatMap((id) => {
    const agent = agents.find((candidate) => candidate.id === id);
    return agent ? [{ id, name: agent.name }] : [];
  });
}

/** The group turn workflow's I/O: what the turn is, each member's run and what it said, and the turn's end. */
export function createGroupActivities(deps: GroupsDeps) {
  return {
    /** The turn's plan, or why its group cannot play (deleted, or left without members) since it was accepted. */
    async beginGroupTurn(input: TurnRef): Promise<GroupTurnPlan | { refused: string }> {
      const turn = await GroupTurn.query(deps.db).forOrg(input.organizationId).findById(input.turnId);
      if (!turn) return { refused: 'The group turn no longer exists.' };
      const group = await Group.query(deps.db).forOrg(input.organizationId).findById(turn.groupId);
      if (!group) return { refused: 'The group was deleted.' };
      if (group.managerType === 'voice_sleeptime' || group.managerType === 'swarm') return { refused: `A ${group.managerType} group cannot take messages.` };
      const memberIds = await membersOf(deps.db, input.organizationId, group.id);
      const needsManager = group.managerType !== 'round_robin';
      if (needsManager && !group.managerAgentId) return { refused: `The ${group.managerType} group has no manager agent.` };
      if ((group.managerType === 'round_robin' || group.managerType === 'dynamic') && memberIds.length === 0) {
        return { refused: 'The group has no members.' };
      }
      const request = turn.request as unknown as RunRequest;
      return {
        managerType: group.managerType,
        memberIds,
        managerAgentId: group.managerAgentId,
        maxTurns: group.maxTurns ?? memberIds.length,
        terminationToken: group.terminationToken,
        maxSteps: request.maxSteps,
      };
    },

    /**
     * Records the run of the turn's `position`-th speaker (once: a retry finds it by its key), with what the
     * speaker has not seen yet as its input: the user's message and the other speakers' replies, as copies. The
     * first run of a turn keeps the user's message itself. A manager choosing the next speaker is asked to.
     */
    async dispatchGroupRun(input: TurnRef & { position: number; agentId: string; role: MemberRole; candidates: string[] }): Promise<{ runId: string; runType: string } | { gone: string }> {
      return deps.db.transaction(async (trx) => {
        const turn = await GroupTurn.query(trx).forOrg(input.organizationId).findById(input.turnId).forUpdate();
        if (!turn) return { gone: 'The group turn no longer exists.' };
        const idempotencyKey = `group_turn:${turn.id}:${input.position}`;
        const existing = await Run.query(trx).forOrg(input.organizationId).findOne({ agentId: input.agentId, idempotencyKey });
        if (existing) return { runId: existing.id, runType: RUN_TYPE };

        const group = await Group.query(trx).forOrg(input.organizationId).findById(turn.groupId);
        if (!group) return { gone: 'The group was deleted during its turn.' };
        const request = turn.request as unknown as RunRequest;
        const unseen = await unseenBy(trx, group, input.agentId);
        const said = input.position === 0 ? request.messages.filter((message): message is RunInputMessage => message.type === 'message') : [];
        const messages: RunInputMessage[] = [...unseen.map(copyFor), ...said];
        const copiedFrom: Array<string | null> = [...unseen.map((entry) => entry.message.id), ...said.map(() => null)];
        if (input.role === 'choose') {
          messages.push({ type: 'message', role: 'system', content: speakerChoicePrompt(await candidateNames(trx, input.organizationId, input.candidates), group.terminationToken) });
          copiedFrom.push(null);
        }
        const run = await insertQueuedRun(trx as Knex.Transaction, {
          organizationId: input.organizationId,
          agentId: input.agentId,
          request: { ...request, messages },
          runType: RUN_TYPE,
          callbackUrl: null,
          metadata: { group_turn_id: turn.id },
          groupId: group.id,
          copiedFrom,
          idempotencyKey,
        });
        if (!run) return { gone: `Agent ${input.agentId} of the group was deleted during its turn.` };
        await turn.$query(trx).patch({ runIds: [...turn.runIds, run.id] });
        await notifyTurn(trx, turn.id);
        return { runId: run.id, runType: RUN_TYPE };
      });
    },

    /** How a member's run ended and what its reply means for the turn: the termination token, or the speaker named. */
    async readGroupRun(input: TurnRef & { runId: string; role: MemberRole; candidates: string[] }): Promise<MemberRunOutcome> {
      const run = await Run.query(deps.db).forOrg(input.organizationId).findById(input.runId);
      const turn = await GroupTurn.query(deps.db).forOrg(input.organizationId).findById(input.turnId);
      const group = turn ? await Group.query(deps.db).forOrg(input.organizationId).findById(turn.groupId) : undefined;
      const stopReason = (run?.stopReason ?? 'cancelled') as StopReason;
      const status = run ? (run.status === 'created' || run.status === 'running' ? 'failed' : run.status) : 'cancelled';
      const failure = (run?.metadata.error as MemberRunOutcome['failure'] | undefined) ?? null;
      const said = await spokenByRun(deps.db, input.organizationId, input.runId);
      const terminated = group?.managerType === 'dynamic' && saysTerminationToken(said, group.terminationToken);
      let nextSpeakerId: string | null = null;
      if (input.role === 'choose' && !terminated) {
        const candidates = await candidateNames(deps.db, input.organizationId, input.candidates);
        nextSpeakerId = pickNamedSpeaker(said, candidates) ?? candidates[0]?.id ?? null;
      }
      return { status, stopReason, failure, terminated, nextSpeakerId };
    },

    /** Closes the turn with its members' summed usage; a turn already closed is left as it is. */
    async finishGroupTurn(input: TurnRef & { stopReason: string; failure: { errorType: string; message: string } | null }): Promise<void> {
      await deps.db.transaction(async (trx) => {
        const turn = await GroupTurn.query(trx).forOrg(input.organizationId).findById(input.turnId).forUpdate();
        if (!turn || turn.status !== 'running') return;
        const runs = turn.runIds.length ? await Run.query(trx).forOrg(input.organizationId).whereIn('id', turn.runIds) : [];
        const usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, step_count: 0 };
        for (const run of runs) {
          usage.prompt_tokens += run.usage.prompt_tokens ?? 0;
          usage.completion_tokens += run.usage.completion_tokens ?? 0;
          usage.total_tokens += run.usage.total_tokens ?? 0;
          usage.step_count += run.usage.step_count ?? 0;
        }
        await turn.$query(trx).patch({
          status: runStatusFor(input.stopReason as StopReason),
          stopReason: input.stopReason,
          failure: input.failure,
          usage,
          completedAt: new Date(),
        });
        await notifyTurn(trx, turn.id);
      });
    },

    /** A member run the turn was waiting for when it was cancelled: if still queued, it never starts. */
    async flagRunCancelled(input: { organizationId: string; runId: string }): Promise<void> {
      await Run.query(deps.db).forOrg(input.organizationId).findById(input.runId).whereIn('status', ['created', 'running']).patch({ cancelRequested: true });
    },
  };
}

export type GroupActivities = ReturnType<typeof createGroupActivities>;
