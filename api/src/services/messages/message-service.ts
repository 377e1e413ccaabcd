import { toLettaMessages, type AgentType, type LettaMessage } from '@engram/core';
import { Agent, Message, toStoredMessage, type Database } from '@engram/db';
import { NotFoundError } from '../../errors.js';
import type { RequestContext } from '../../http/request-context.js';

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

  return {
    /**
     * An agent's stored history as LettaMessages. Pages are cut on stored messages, so the parts one
     * stored message expands into never straddle two pages; `desc` returns the latest page in
     * chronological order.
     */
    async listAgentMessages(ctx: RequestContext, agentId: string, query: ListMessagesQuery): Promise<LettaMessage[]> {
      const agent = await Agent.query(deps.db).forOrg(ctx.organizationId).findById(agentId);
      if (!agent) throw new NotFoundError('Agent');
      const rows = Message.query(deps.db).forOrg(ctx.organizationId).where({ agentId }).whereNot('role', 'system');
      if (query.groupId) rows.where({ groupId: query.groupId });
      if (!query.includeErr) rows.where((builder) => {
          builder.whereNull('is_err').orWhere('is_err', false);
        });
      if (query.after) rows.where('sequence', '>', await sequenceOf(ctx, query.after));
      if (query.before) rows.where('sequence', '<', await sequenceOf(ctx, query.before));
      const page = await rows.orderBy('sequence', query.order).limit(query.limit);
      const chronological = query.order === 'desc' ? page.reverse() : page;
      return expandMessages(chronological, agent.agentType as AgentType, query);
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
