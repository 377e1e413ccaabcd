import { toLettaMessages, type AgentType, type LettaMessage } from '@engram/core';
import type { QueryBuilder } from 'objection';
import { Agent, Message, toStoredMessage, type Conversation, type Database } from '@engram/db';
import { NotFoundError } from '../../errors.js';
import type { RequestContext } from '../../http/request-context.js';
import type { PageRequest } from '../shared/paging.js';

export type ListMessagesQuery = {
  before?: string;
  after?: string;
  limit: number;
  order: 'asc' | 'desc';
  useAssistantMessage: boolean;
  assistantMessageToolName: string;
  assistantMessageToolKwarg: string;
  includeErr: boolean;
  /** Only the messages of this group's conversations. */
  groupId?: string | undefined;
};

export type ConversionOptions = Pick<ListMessagesQuery, 'useAssistantMessage' | 'assistantMessageToolName' | 'assistantMessageToolKwarg'>;

const DEFAULT_CONVERSION: ConversionOptions = { useAssistantMessage: true, assistantMessageToolName: 'send_message', assistantMessageToolKwarg: 'message' };

export function expandMessages(rows: Message[], agentType: AgentType, options: ConversionOptions): LettaMessage[] {
  return rows.flatMap((row) =>
    toLettaMessages(toStoredMessage(row), {
      agentType,
      useAssistantMessage: options.useAssistantMessage,
      assistantMessageToolName: options.assistantMessageToolName,
      assistantMessageToolKwarg: options.assistantMessageToolKwarg,
    }),
  );
}

export function createMessageService(deps: { db: Database }) {
  async function sequenceOf(ctx: RequestContext, messageId: string): Promise<string> {
    const found = await Message.query(deps.db).forOrg(ctx.organizationId).findById(messageId).select('sequence');
    if (!found) throw new NotFoundError('Message');
    return found.sequence;
  }

  async function listWhere(
    ctx: RequestContext,
    scope: { runId: string } | { stepId: string },
    agentType: AgentType,
    query: Omit<ListMessagesQuery, 'includeErr'>,
  ): Promise<LettaMessage[]> {
    const rows = Message.query(deps.db).forOrg(ctx.organizationId).where(scope);
    if (query.after) rows.where('sequence', '>', await sequenceOf(ctx, query.after));
    if (query.before) rows.where('sequence', '<', await sequenceOf(ctx, query.before));
    const page = await rows.orderBy('sequence', query.order).limit(query.limit);
    return expandMessages(page, agentType, query);
  }

  async function agentTypesOf(ctx: RequestContext, rows: Message[]): Promise<Map<string, AgentType>> {
    const agentIds = [...new Set(rows.map((row) => row.agentId))];
    if (agentIds.length === 0) return new Map();
    const agents = await Agent.query(deps.db).forOrg(ctx.organizationId).whereIn('id', agentIds).select('id', 'agentType');
    return new Map(agents.map((agent) => [agent.id, agent.agentType as AgentType]));
  }

  async function listHistory(
    ctx: RequestContext,
    agent: Agent,
    scope: (rows: QueryBuilder<Message, Message[]>) => QueryBuilder<Message, Message[]>,
    query: ListMessagesQuery,
  ): Promise<LettaMessage[]> {
    const rows = scope(Message.query(deps.db).forOrg(ctx.organizationId)).whereNot('role', 'system');
    if (query.groupId) rows.where({ groupId: query.groupId });
    if (!query.includeErr) {
      rows.where((builder) => {
        builder.whereNull('is_err').orWhere('is_err', false);
      });
    }
    if (query.after) rows.where('sequence', '>', await sequenceOf(ctx, query.after));
    if (query.before) rows.where('sequence', '<', await sequenceOf(ctx, query.before));
    const page = await rows.orderBy('sequence', query.order).limit(query.limit);
    const chronological = query.order === 'desc' ? page.reverse() : page;
    return expandMessages(chronological, agent.agentType as AgentType, query);
  }

  return {
    /**
     * An agent's stored history as LettaMessages. Pages are cut on stored messages, so the parts one
     * stored message expands into never straddle two pages; `desc` returns the latest page in
     * chronological order.
     */
    async listAgentMessages(ctx: RequestContext, agentId: string, query: ListMessagesQuery): Promise<LettaMessage[]> {
      const agent = await Agent.query(deps.db).forOrg(ctx.organizationId).findById(agentId);
      if (!agent) throw new NotFoundError('Agent');
      return listHistory(ctx, agent, (rows) => rows.where({ agentId }).whereNull('conversation_id'), query);
    },

    /** A conversation's history: its own messages and those it was forked from, paged as an agent's history is. */
    async listConversationMessages(ctx: RequestContext, agent: Agent, conversation: Conversation, query: ListMessagesQuery): Promise<LettaMessage[]> {
      return listHistory(
        ctx,
        agent,
        (rows) =>
          rows.where((scope) => {
            scope.where('conversation_id', conversation.id).orWhereIn('id', conversation.inheritedMessageIds);
          }),
        query,
      );
    },

    /** The organization's messages across its agents (or one conversation's), newest first unless `asc`. */
    async listMessages(ctx: RequestContext, query: PageRequest & { conversationId?: string | undefined }): Promise<LettaMessage[]> {
      const rows = Message.query(deps.db).forOrg(ctx.organizationId).whereNot('role', 'system');
      if (query.conversationId) rows.where('conversation_id', query.conversationId);
      if (query.after) rows.where('sequence', '>', await sequenceOf(ctx, query.after));
      if (query.before) rows.where('sequence', '<', await sequenceOf(ctx, query.before));
      const page = await rows.orderBy('sequence', query.order).limit(query.limit);
      const agentTypes = await agentTypesOf(ctx, page);
      return page.flatMap((row) => expandMessages([row], agentTypes.get(row.agentId) ?? 'letta_v1_agent', DEFAULT_CONVERSION));
    },

    /** One stored message as the LettaMessages it lists as (a tool-calling answer is several). */
    async retrieveMessage(ctx: RequestContext, messageId: string): Promise<LettaMessage[]> {
      const row = await Message.query(deps.db).forOrg(ctx.organizationId).findById(messageId);
      if (!row) throw new NotFoundError('Message');
      const agentTypes = await agentTypesOf(ctx, [row]);
      return expandMessages([row], agentTypes.get(row.agentId) ?? 'letta_v1_agent', DEFAULT_CONVERSION);
    },

    async listRunMessages(ctx: RequestContext, runId: string, agentType: AgentType, query: Omit<ListMessagesQuery, 'includeErr'>): Promise<LettaMessage[]> {
      return listWhere(ctx, { runId }, agentType, query);
    },

    /** The messages one step produced: its model answer, tool returns and loop reminders (inputs belong to no step). */
    async listStepMessages(ctx: RequestContext, stepId: string, agentType: AgentType, query: Omit<ListMessagesQuery, 'includeErr'>): Promise<LettaMessage[]> {
      return listWhere(ctx, { stepId }, agentType, query);
    },
  };
}

export type MessageService = ReturnType<typeof createMessageService>;
