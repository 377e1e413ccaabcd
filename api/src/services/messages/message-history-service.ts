import {
  buildStepRequest,
  runInputContent,
  toLettaMessages,
  type AgentType,
  type LettaMessage,
  type RunInputMessage,
  type RunRequest,
  type StoredMessage,
} from '@engram/core';
import { Agent, loadAgentSnapshot, loadMessagesInOrder, Message, recompileSystemMessage, Run, toStoredMessage, type Database } from '@engram/db';
import { BadRequestError, ConflictError, NotFoundError, UnprocessableError, UpstreamError } from '../../errors.js';
import { classifyProviderError, ModelCallError } from '@engram/integrations/llm';
import type { RequestContext } from '../../http/request-context.js';
import { providerPayload } from '../steps/provider-payload.js';
import { editedMessage, type MessageEdit } from './message-edits.js';

const ACTIVE_RUN_STATUSES = ['created', 'running'];

/** Editing, resetting and previewing an agent's conversation: the writes to its history outside a run. */
/** Summarizes the oldest part of an agent's context with its model (the same compaction the agent loop runs). */
export type CompactContext = (input: { organizationId: string; agentId: string; conversationId?: string | null; force?: boolean }) => Promise<{
  compacted: boolean;
  summary: string | null;
  numMessagesBefore: number;
  numMessagesAfter: number;
}>;

export function createMessageHistoryService(deps: { db: Database; compactContext: CompactContext }) {
  const { db } = deps;

  async function requireAgent(ctx: RequestContext, agentId: string): Promise<Agent> {
    const agent = await Agent.query(db).forOrg(ctx.organizationId).findById(agentId);
    if (!agent) throw new NotFoundError('Agent');
    return agent;
  }

  return {
    /** Rewrites one message of the agent's history and returns it as the LettaMessage the edit addressed. */
    async updateMessage(ctx: RequestContext, agentId: string, messageId: string, edit: MessageEdit): Promise<LettaMessage> {
      const agent = await requireAgent(ctx, agentId);
      const agentType = agent.agentType as AgentType;
      const message = await Message.query(db).forOrg(ctx.organizationId).findOne({ id: messageId, agentId });
      if (!message) throw new NotFoundError('Message');
      const updated = await message.$query(db).patchAndFetch(editedMessage(message, agentType, edit));
      const listed = toLettaMessages(toStoredMessage(updated), { agentType }).find((part) => part.message_type === edit.message_type);
      // editedMessage only accepts edits of parts the message lists as, so the edited part is always there.
      if (!listed) throw new Error(`message ${messageId} lost its ${edit.message_type} part in an edit`);
      return listed;
    },

    /**
     * Empties the agent's context window down to its system message. Stored history stays (still listed and
     * searchable); only what the model sees next changes. Refused while a run is queued or running, whose
     * steps would otherwise append to a context it no longer matches.
     */
    /** Forces a compaction now; with nothing to compact, the existing summary comes back unchanged. */
    async summarize(ctx: RequestContext, agentId: string) {
      await requireAgent(ctx, agentId);
      try {
        const result = await deps.compactContext({ organizationId: ctx.organizationId, agentId, force: true });
        return { summary: result.summary, num_messages_before: result.numMessagesBefore, num_messages_after: result.numMessagesAfter };
      } catch (error) {
        const classified = error instanceof ModelCallError ? error : classifyProviderError(error);
        throw classified.kind === 'not_configured' ? new BadRequestError(classified.message) : new UpstreamError(classified.message);
      }
    },

    /**
     * Empties the agent's context window down to its system message. The messages stay in its history unless
     * `forgetHistory` (a template's simulated agent starting its conversation over), which deletes them.
     */
    async resetMessages(ctx: RequestContext, agentId: string, options: { forgetHistory?: boolean } = {}): Promise<void> {
      await db.transaction(async (trx) => {
        // Locked like the worker locks it when applying a step, so a step cannot land between check and write.
        const agent = await Agent.query(trx).forOrg(ctx.organizationId).findById(agentId).forUpdate();
        if (!agent) throw new NotFoundError('Agent');
        const active = await Run.query(trx).forOrg(ctx.organizationId).where({ agentId }).whereIn('status', ACTIVE_RUN_STATUSES).first();
        if (active) {
          throw new ConflictError(`Agent ${agentId} has an active run (${active.id}); wait for it to end or cancel it before resetting its messages`);
        }
        await Agent.query(trx)
          .forOrg(ctx.organizationId)
          .findById(agentId)
          .patch({ messageIds: agent.messageIds.slice(0, 1), lastUpdatedById: ctx.userId });
        if (options.forgetHistory) {
          await Message.query(trx).forOrg(ctx.organizationId).where({ agentId }).whereNotIn('id', agent.messageIds.slice(0, 1)).delete();
        }
        await recompileSystemMessage(trx, ctx.organizationId, agentId, new Date());
      });
    },

    /**
     * The provider request body the agent's next step would send for this request: the same context load and
     * request build as a run's first model call, with nothing stored and no run started.
     */
    async previewProviderPayload(ctx: RequestContext, agentId: string, request: RunRequest): Promise<Record<string, unknown>> {
      const agent = await requireAgent(ctx, agentId);
      const inputs = request.messages.filter((input): input is RunInputMessage => input.type === 'message');
      if (inputs.length < request.messages.length) {
        throw new UnprocessableError(['body', 'messages'], 'Only messages can be previewed; an approval is applied by its run before any model call');
      }
      const snapshot = await loadAgentSnapshot(db, ctx.organizationId, agentId);
      if (!snapshot) throw new NotFoundError('Agent');
      const contextIds = snapshot.messageBufferAutoclear ? agent.messageIds.slice(0, 1) : agent.messageIds;
      const inContext = await loadMessagesInOrder(db, ctx.organizationId, contextIds);
      const now = new Date();
      // The inputs as a run would store them when accepted, which is how its first model call reads them.
      const pendingInputs = inputs.map((input, index): StoredMessage => ({
        id: `message-preview-${index}`,
        agentId,
        runId: null,
        stepId: null,
        role: input.role,
        content: runInputContent(input),
        name: input.name ?? null,
        otid: input.otid ?? null,
        senderId: input.sender_id ?? null,
        model: null,
        toolCalls: null,
        toolCallId: null,
        toolReturns: null,
        approvals: null,
        isErr: null,
        createdAt: now,
      }));
      const { request: modelRequest } = buildStepRequest({
        snapshot,
        inContext,
        pendingInputs,
        // A run starts with nothing called yet (see beginRun).
        ruleState: { calledTools: [], lastToolOutput: null, hasHistory: inContext.some((message) => message.role === 'assistant') },
        clientTools: request.clientTools,
        stream: request.streamTokens,
      });
      return providerPayload(modelRequest);
    },
  };
}

export type MessageHistoryService = ReturnType<typeof createMessageHistoryService>;
