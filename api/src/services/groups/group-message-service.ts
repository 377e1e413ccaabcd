import { toLettaMessages, type AgentType, type LettaMessage, type RunRequest } from '@engram/core';
import { Agent, Group, GroupAgent, GroupTurn, Message, newId, recompileSystemMessage, Run, toStoredMessage, type Database } from '@engram/db';
import type { GroupTurnClient } from '@engram/temporal/client';
import type { Knex } from 'knex';
import { ConflictError, NotFoundError, ServiceUnavailableError, UnprocessableError } from '../../errors.js';
import type { RequestContext } from '../../http/request-context.js';
import { editedMessage, type MessageEdit } from '../messages/message-edits.js';
import type { ConversionOptions } from '../messages/message-service.js';
import { findGroup } from './group-service.js';

const ACTIVE_RUN_STATUSES = ['created', 'running'];

export type GroupMessagesQuery = ConversionOptions & { before?: string | undefined; after?: string | undefined; limit: number; order: 'asc' | 'desc' };

/** Everyone whose history holds the group's messages: its members and its manager. */
async function participantsOf(db: Knex, organizationId: string, group: Group): Promise<string[]> {
  const members = (await GroupAgent.query(db).forOrg(organizationId).where({ groupId: group.id }).orderBy('position')).map((member) => member.agentId);
  return [...new Set([...members, ...(group.managerAgentId ? [group.managerAgentId] : [])])];
}

/**
 * Messages sent to a group: a turn is a workflow that has the members answer in the manager type's order
 * (see workflows/src/group-turn). The group's transcript is each thing said once, with who said it; the
 * members' copies of what others said stay in their own histories.
 */
export function createGroupMessageService(deps: { db: Database; groupTurns: GroupTurnClient }) {
  const { db } = deps;

  async function groupMessage(ctx: RequestContext, groupId: string, messageId: string): Promise<Message> {
    const message = await Message.query(db).forOrg(ctx.organizationId).findOne({ id: messageId, groupId });
    if (!message) throw new NotFoundError('Message');
    return message;
  }

  return {
    /** Records the turn and starts its workflow; the answer is read from the members' runs as they go. */
    async send(ctx: RequestContext, groupId: string, request: RunRequest): Promise<GroupTurn> {
      const group = await findGroup(db, ctx.organizationId, groupId);
      if (group.managerType === 'voice_sleeptime' || group.managerType === 'swarm') {
        throw new UnprocessableError(['path', 'group_id'], `A ${group.managerType} group cannot take messages here`);
      }
      const members = await GroupAgent.query(db).forOrg(ctx.organizationId).where({ groupId }).resultSize();
      if ((group.managerType === 'round_robin' || group.managerType === 'dynamic') && members === 0) {
        throw new UnprocessableError(['path', 'group_id'], `The ${group.managerType} group has no members to answer`);
      }
      if (request.messages.some((message) => message.type !== 'message')) {
        throw new UnprocessableError(['body', 'messages'], 'A group takes messages only; answer an approval on the agent that asked for it');
      }
      const turn = await GroupTurn.query(db).insertAndFetch({
        id: newId('groupTurn'),
        organizationId: ctx.organizationId,
        groupId,
        userId: ctx.userId,
        status: 'running',
        request: request as unknown as Record<string, unknown>,
        runIds: [],
        usage: {},
      } as Partial<GroupTurn>);
      try {
        await deps.groupTurns.start({ turnId: turn.id, organizationId: ctx.organizationId });
      } catch (error) {
        await turn.$query(db).patch({ status: 'failed', stopReason: 'error', completedAt: new Date(), failure: { errorType: 'internal_error', message: 'Temporal is unreachable' } });
        throw new ServiceUnavailableError(`The group turn could not be started: ${(error as Error).message}`);
      }
      return turn;
    },

    /**
     * The group's transcript as LettaMessages: what the user said to the group and what its members said,
     * each once, marked with the speaker (`name`, `sender_id`). Pages are cut on stored messages; `desc`
     * returns the latest page in chronological order.
     */
    async list(ctx: RequestContext, groupId: string, query: GroupMessagesQuery): Promise<LettaMessage[]> {
      await findGroup(db, ctx.organizationId, groupId);
      const sequenceOf = async (messageId: string) => {
        const found = await Message.query(db).forOrg(ctx.organizationId).findOne({ id: messageId, groupId }).select('sequence');
        if (!found) throw new NotFoundError('Message');
        return found.sequence;
      };
      const rows = Message.query(db)
        .forOrg(ctx.organizationId)
        .where({ groupId })
        .whereNull('copiedFromMessageId')
        .whereNot('role', 'system');
      if (query.after) rows.where('sequence', '>', await sequenceOf(query.after));
      if (query.before) rows.where('sequence', '<', await sequenceOf(query.before));
      const page = await rows.orderBy('sequence', query.order).limit(query.limit);
      const chronological = query.order === 'desc' ? page.reverse() : page;
      const agents = await Agent.query(db).forOrg(ctx.organizationId).whereIn('id', [...new Set(chronological.map((row) => row.agentId))]).select('id', 'name', 'agentType');
      const byId = new Map(agents.map((agent) => [agent.id, agent]));
      return chronological.flatMap((row) => {
        const agent = byId.get(row.agentId);
        const listed = toLettaMessages(toStoredMessage(row), { agentType: (agent?.agentType ?? 'letta_v1_agent') as AgentType, ...query });
        // The user's words keep their own sender; everything else was said by the agent whose history holds it.
        return row.role === 'user' ? listed : listed.map((message) => ({ ...message, name: agent?.name ?? null, sender_id: row.agentId }));
      });
    },

    /** Rewrites a message of the group's transcript, in the history of the agent that holds it. */
    async update(ctx: RequestContext, groupId: string, messageId: string, edit: MessageEdit): Promise<LettaMessage> {
      await findGroup(db, ctx.organizationId, groupId);
      const message = await groupMessage(ctx, groupId, messageId);
      const agent = await Agent.query(db).forOrg(ctx.organizationId).findById(message.agentId);
      const agentType = (agent?.agentType ?? 'letta_v1_agent') as AgentType;
      const updated = await message.$query(db).patchAndFetch(editedMessage(message, agentType, edit));
      const listed = toLettaMessages(toStoredMessage(updated), { agentType }).find((part) => part.message_type === edit.message_type);
      if (!listed) throw new Error(`message ${messageId} lost its ${edit.message_type} part in an edit`);
      return listed;
    },

    /**
     * Deletes the group's messages from every participant's history and context window. Refused while a
     * participant has a run queued or running, whose steps would append to a context it no longer matches.
     */
    async reset(ctx: RequestContext, groupId: string): Promise<void> {
      await db.transaction(async (trx) => {
        const group = await findGroup(trx, ctx.organizationId, groupId);
        const participants = await participantsOf(trx, ctx.organizationId, group);
        const agents = await Agent.query(trx).forOrg(ctx.organizationId).whereIn('id', participants).orderBy('id').forUpdate();
        const active = await Run.query(trx).forOrg(ctx.organizationId).whereIn('agentId', participants).whereIn('status', ACTIVE_RUN_STATUSES).first();
        if (active) throw new ConflictError(`Agent ${active.agentId} of the group has an active run (${active.id}); wait for it to end or cancel it before resetting the group's messages`);
        const removed = new Set(
          (await Message.query(trx).forOrg(ctx.organizationId).where({ groupId }).delete().returning('id')).map((row) => (row as unknown as { id: string }).id),
        );
        const now = new Date();
        for (const agent of agents) {
          const kept = agent.messageIds.filter((id) => !removed.has(id));
          if (kept.length === agent.messageIds.length) continue;
          await Agent.query(trx).forOrg(ctx.organizationId).findById(agent.id).patch({ messageIds: kept, lastUpdatedById: ctx.userId });
          await recompileSystemMessage(trx, ctx.organizationId, agent.id, now);
        }
        await Group.query(trx).forOrg(ctx.organizationId).findById(groupId).patch({ lastProcessedMessageId: null, turnsCounter: 0 });
      });
    },
  };
}

export type GroupMessageService = ReturnType<typeof createGroupMessageService>;
