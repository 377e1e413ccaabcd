import { contextMessageIds, Conversation, copyIsolatedBlocks, Message, newId, recompileSystemMessage, Run, type Agent, type Database, type LlmConfig, ofVisibleAgent } from '@engram/db';
import { classifyProviderError, ModelCallError } from '@engram/integrations/llm';
import type { LettaMessage } from '@engram/core';
import { BadRequestError, NotFoundError, UnprocessableError, UpstreamError } from '../../errors.js';
import type { RequestContext } from '../../http/request-context.js';
import { withModelSettings, type ModelSettingsInput } from '../agents/agent-service.js';
import type { ListMessagesQuery, MessageService } from '../messages/message-service.js';
import type { CompactContext } from '../messages/message-history-service.js';
import type { ModelService } from '../models/model-service.js';
import type { RunService } from '../runs/run-service.js';
import { keysetPage } from '../shared/paging.js';

/** The name of an agent's own history among its conversations, with the agent named beside it. */
export const DEFAULT_CONVERSATION = 'default';

/**
 * How a call names a conversation: its id, or `default` with `agentId` for the agent's own history (an agent id
 * in place of the conversation id, deprecated by the client, names it too). `agentIdLoc` says where a missing
 * agent id was expected, for the 422.
 */
export type ConversationAddress = { conversationId: string; agentId?: string | null | undefined; agentIdLoc: Array<string | number> };

/** A conversation resolved: its agent, and its row (null for the agent's default conversation). */
export type ResolvedConversation = { agent: Agent; conversation: Conversation | null };

export type ConversationFields = {
  summary?: string | null | undefined;
  description?: string | null | undefined;
  model?: string | null | undefined;
  modelSettings?: Record<string, unknown> | null | undefined;
  contextWindowLimit?: number | null | undefined;
};

export type ConversationUpdate = ConversationFields & { archived?: boolean | null | undefined; lastMessageAt?: Date | null | undefined };

export type ConversationListQuery = {
  agentId?: string | undefined;
  archiveStatus: 'unarchived' | 'archived' | 'all';
  after?: string | undefined;
  limit: number;
  order: 'asc' | 'desc';
  orderBy: 'created_at' | 'last_run_completion' | 'last_message_at';
  summarySearch?: string | undefined;
};

const ACTIVE_RUN_STATUSES = ['created', 'running'];

export type ConversationServiceDeps = {
  db: Database;
  runs: Pick<RunService, 'requireAgent' | 'cancelAgentRuns' | 'cancelRun'>;
  messages: Pick<MessageService, 'listAgentMessages' | 'listConversationMessages'>;
  compactContext: CompactContext;
  models: Pick<ModelService, 'resolveLlmConfig'>;
};

/**
 * Conversations: threads of one agent, each with its own context window, compaction and run queue, sharing the
 * agent's memory blocks (except those it isolates: its own copies), tools, archival memory and files.
 */
export function createConversationService(deps: ConversationServiceDeps) {
  const { db } = deps;

  async function requireConversation(ctx: RequestContext, conversationId: string): Promise<Conversation> {
    const conversation = await Conversation.query(db).forOrg(ctx.organizationId).findById(conversationId).whereNull('deletedAt');
    if (!conversation) throw new NotFoundError('Conversation');
    return conversation;
  }

  async function resolve(ctx: RequestContext, address: ConversationAddress): Promise<ResolvedConversation> {
    if (address.conversationId === DEFAULT_CONVERSATION) {
      if (!address.agentId) throw new UnprocessableError(address.agentIdLoc, 'The default conversation needs `agent_id`');
      return { agent: await deps.runs.requireAgent(ctx, address.agentId), conversation: null };
    }
    if (address.conversationId.startsWith('agent-')) {
      if (address.agentId && address.agentId !== address.conversationId) throw new NotFoundError('Conversation');
      return { agent: await deps.runs.requireAgent(ctx, address.conversationId), conversation: null };
    }
    const conversation = await requireConversation(ctx, address.conversationId);
    // Named beside an agent, the conversation must be that agent's.
    if (address.agentId && address.agentId !== conversation.agentId) throw new NotFoundError('Conversation');
    return { agent: await deps.runs.requireAgent(ctx, conversation.agentId), conversation };
  }

  /**
   * A new conversation row whose context starts with its own system message, compiled now from the agent's
   * memory, followed by `startingWith` (a fork's copied messages). `isolation`: the labels of the blocks it gets its
   * own copy of, copied from the agent's blocks or, for a fork, from the source conversation's view of them.
   */
  async function insertConversation(
    ctx: RequestContext,
    agent: Agent,
    fields: ConversationFields & { hidden?: boolean | undefined },
    startingWith: string[] = [],
    isolation: { labels: string[]; from: string | null } = { labels: [], from: null },
  ): Promise<Conversation> {
    return db.transaction(async (trx) => {
      const now = new Date();
      const id = newId('conversation');
      const systemMessageId = newId('message');
      const conversation = await Conversation.query(trx).insertAndFetch({
        id,
        organizationId: ctx.organizationId,
        agentId: agent.id,
        messageIds: [systemMessageId, ...startingWith],
        inheritedMessageIds: startingWith,
        summary: fields.summary ?? null,
        description: fields.description ?? null,
        hidden: fields.hidden ?? false,
        model: fields.model ?? null,
        modelSettings: fields.modelSettings ?? null,
        contextWindowLimit: fields.contextWindowLimit ?? null,
        isolatedBlockLabels: isolation.labels,
        createdById: ctx.userId,
        lastUpdatedById: ctx.userId,
      } as Partial<Conversation>);
      await copyIsolatedBlocks(trx, conversation, isolation);
      const compiled = (await recompileSystemMessage(trx, ctx.organizationId, agent.id, now, { dryRun: true, conversationId: id })) ?? agent.system;
      await Message.query(trx).insert({
        id: systemMessageId,
        organizationId: ctx.organizationId,
        agentId: agent.id,
        conversationId: id,
        role: 'system',
        content: [{ type: 'text', text: compiled }],
        createdAt: now,
      } as unknown as Message);
      return conversation;
    });
  }

  /** A model override names a configured provider (checked when set, as an agent's model is). */
  async function assertModelResolves(ctx: RequestContext, model: string | null | undefined): Promise<void> {
    if (model) await deps.models.resolveLlmConfig(ctx, model);
  }

  /**
   * The model configuration a run in this conversation calls: the agent's, with the conversation's overrides
   * (a model handle resolved afresh, then its model settings and context window); null when it overrides nothing.
   */
  async function llmConfigFor(ctx: RequestContext, agent: Agent, conversation: Conversation | null): Promise<LlmConfig | null> {
    if (!conversation || (!conversation.model && !conversation.modelSettings && conversation.contextWindowLimit === null)) return null;
    const base = conversation.model ? await deps.models.resolveLlmConfig(ctx, conversation.model) : agent.llmConfig;
    const withSettings = withModelSettings(base, (conversation.modelSettings ?? {}) as ModelSettingsInput);
    return conversation.contextWindowLimit === null ? withSettings : { ...withSettings, context_window: conversation.contextWindowLimit };
  }

  return {
    resolve,
    llmConfigFor,

    /** `isolatedBlockLabels`: the agent's blocks this conversation gets its own copy of (the others stay shared). */
    async create(
      ctx: RequestContext,
      agentId: string,
      fields: ConversationFields & { hidden?: boolean | undefined; isolatedBlockLabels?: string[] | null | undefined },
    ): Promise<Conversation> {
      const agent = await deps.runs.requireAgent(ctx, agentId);
      await assertModelResolves(ctx, fields.model);
      return insertConversation(ctx, agent, fields, [], { labels: [...new Set(fields.isolatedBlockLabels ?? [])], from: null });
    },

    retrieve: requireConversation,

    async update(ctx: RequestContext, conversationId: string, update: ConversationUpdate): Promise<Conversation> {
      const conversation = await requireConversation(ctx, conversationId);
      await assertModelResolves(ctx, update.model);
      const patch: Partial<Conversation> = { lastUpdatedById: ctx.userId };
      if (update.summary !== undefined) patch.summary = update.summary;
      if (update.description !== undefined) patch.description = update.description;
      if (update.model !== undefined) patch.model = update.model;
      if (update.modelSettings !== undefined) patch.modelSettings = update.modelSettings;
      if (update.contextWindowLimit !== undefined) patch.contextWindowLimit = update.contextWindowLimit;
      if (update.lastMessageAt !== undefined) patch.lastMessageAt = update.lastMessageAt;
      if (update.archived !== undefined && update.archived !== null && update.archived !== conversation.archived) {
        patch.archived = update.archived;
        patch.archivedAt = update.archived ? new Date() : null;
      }
      return conversation.$query(db).patchAndFetch(patch);
    },

    /** Conversations of one agent (or of the organization), hidden and deleted ones left out. */
    async list(ctx: RequestContext, query: ConversationListQuery): Promise<Conversation[]> {
      if (query.agentId) await deps.runs.requireAgent(ctx, query.agentId);
      const rows = Conversation.query(db).forOrg(ctx.organizationId).whereNull('deletedAt').where('hidden', false);
      // A hidden agent's conversations (its template editor's, an evaluation's, a visitor's) are listed only by their agent.
      if (query.agentId) rows.where('agent_id', query.agentId);
      else rows.whereRaw(ofVisibleAgent('conversations'));
      if (query.archiveStatus !== 'all') rows.where('archived', query.archiveStatus === 'archived');
      if (query.summarySearch) rows.whereRaw(`summary ilike ?`, [`%${query.summarySearch.replaceAll('%', '\\%')}%`]);
      // Never-messaged conversations sort as their creation; the last run's completion is when its answer came.
      const sortKey =
        query.orderBy === 'created_at'
          ? (alias: string) => `${alias}.created_at`
          : query.orderBy === 'last_message_at'
            ? (alias: string) => `coalesce(${alias}.last_message_at, ${alias}.created_at)`
            : (alias: string) =>
                `coalesce((select max(r.completed_at) from runs r where r.conversation_id = ${alias}.id), ${alias}.created_at)`;
      return keysetPage(rows, { after: query.after, limit: query.limit, order: query.order }, { table: 'conversations', sortKey });
    },

    /** Cancels the conversation's active runs, then removes it from every listing and lookup; its messages stay stored. */
    async delete(ctx: RequestContext, conversationId: string): Promise<void> {
      const conversation = await requireConversation(ctx, conversationId);
      const active = await Run.query(db).forOrg(ctx.organizationId).where('conversation_id', conversation.id).whereIn('status', ACTIVE_RUN_STATUSES);
      for (const run of active) await deps.runs.cancelRun(ctx, run);
      await conversation.$query(db).patch({ deletedAt: new Date(), lastUpdatedById: ctx.userId });
    },

    async cancel(ctx: RequestContext, address: ConversationAddress): Promise<Record<string, 'cancelled'>> {
      const { agent, conversation } = await resolve(ctx, address);
      return deps.runs.cancelAgentRuns(ctx, agent.id, undefined, { conversationId: conversation?.id ?? null });
    },

    /**
     * A new conversation of the same agent starting from the source's context window (up to and including
     * `messageId`), with its own system message compiled from the memory as it is now.
     */
    async fork(ctx: RequestContext, address: ConversationAddress, options: { messageId?: string | undefined; hidden?: boolean | undefined }): Promise<Conversation> {
      const { agent, conversation } = await resolve(ctx, address);
      const window = (await contextMessageIds(db, { organizationId: ctx.organizationId, agentId: agent.id, conversationId: conversation?.id ?? null })).slice(1);
      let copied = window;
      if (options.messageId) {
        const at = window.indexOf(options.messageId);
        if (at < 0) throw new NotFoundError('Message');
        copied = window.slice(0, at + 1);
      }
      return insertConversation(
        ctx,
        agent,
        {
          summary: conversation?.summary ?? null,
          description: conversation?.description ?? null,
          model: conversation?.model ?? null,
          modelSettings: conversation?.modelSettings ?? null,
          contextWindowLimit: conversation?.contextWindowLimit ?? null,
          hidden: options.hidden,
        },
        copied,
        { labels: conversation?.isolatedBlockLabels ?? [], from: conversation?.id ?? null },
      );
    },

    /** Recompiles the agent's system messages (every conversation's) and answers the prompt; `dryRun` writes nothing. */
    async recompile(ctx: RequestContext, address: ConversationAddress, options: { dryRun: boolean }): Promise<string> {
      const { agent } = await resolve(ctx, address);
      const compiled = await db.transaction((trx) => recompileSystemMessage(trx, ctx.organizationId, agent.id, new Date(), { dryRun: options.dryRun }));
      return compiled ?? agent.system;
    },

    /** Summarizes the oldest part of the conversation's context window now (as the agent loop does when it fills). */
    async compact(ctx: RequestContext, address: ConversationAddress) {
      const { agent, conversation } = await resolve(ctx, address);
      try {
        const result = await deps.compactContext({ organizationId: ctx.organizationId, agentId: agent.id, conversationId: conversation?.id ?? null, force: true });
        return { summary: result.summary, num_messages_before: result.numMessagesBefore, num_messages_after: result.numMessagesAfter };
      } catch (error) {
        const classified = error instanceof ModelCallError ? error : classifyProviderError(error);
        throw classified.kind === 'not_configured' ? new BadRequestError(classified.message) : new UpstreamError(classified.message);
      }
    },

    async listMessages(ctx: RequestContext, address: ConversationAddress, query: ListMessagesQuery): Promise<LettaMessage[]> {
      const { agent, conversation } = await resolve(ctx, address);
      return conversation
        ? deps.messages.listConversationMessages(ctx, agent, conversation, query)
        : deps.messages.listAgentMessages(ctx, agent.id, query);
    },

    /**
     * The run a stream resumes: the one named, the one that took the message with `otid`, or else the
     * conversation's latest run still queued or running.
     */
    async runToResume(ctx: RequestContext, address: ConversationAddress, lookup: { runId?: string | null | undefined; otid?: string | null | undefined }): Promise<Run> {
      const { agent, conversation } = await resolve(ctx, address);
      const runs = Run.query(db).forOrg(ctx.organizationId).where({ agentId: agent.id });
      if (conversation) runs.where('conversation_id', conversation.id);
      else runs.whereNull('conversation_id');
      if (lookup.runId) runs.where('id', lookup.runId);
      else if (lookup.otid) {
        runs.whereIn('id', Message.query(db).forOrg(ctx.organizationId).where({ agentId: agent.id, otid: lookup.otid }).whereNotNull('runId').select('runId'));
      } else runs.whereIn('status', ACTIVE_RUN_STATUSES);
      const run = await runs.orderBy('created_at', 'desc').first();
      if (!run) throw new NotFoundError(lookup.runId || lookup.otid ? 'Run' : 'Active run');
      return run;
    },
  };
}

export type ConversationService = ReturnType<typeof createConversationService>;
