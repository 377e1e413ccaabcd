import { createHash, randomUUID } from 'node:crypto';
import { Agent, contextMessageIds, Conversation, Message, newId, Run, Step, type Database, type RunStatus, ofVisibleAgent } from '@engram/db';
import type { QueryBuilder } from 'objection';
import type { AgentRunClient } from '@engram/temporal/client';
import { runInputContent, type AgentType, type LettaMessage, type RunInput, type RunInputMessage, type RunRequest } from '@engram/core';
import { BadRequestError, ConflictError, NotFoundError, ServiceUnavailableError } from '../../errors.js';
import type { RequestContext } from '../../http/request-context.js';
import type { ConversionOptions, MessageService } from '../messages/message-service.js';
import { keysetPage, type PageRequest } from '../shared/paging.js';
import { assertReachableUrl, type UrlGate } from '../shared/egress.js';

export type SendOptions = {
  runType: 'send_message' | 'send_message_streaming' | 'send_message_async';
  background: boolean;
  callbackUrl: string | null;
  /** The conversation the send is to (checked to be the agent's by the caller); absent for the agent's default one. */
  conversationId?: string | null;
  /** The conversation's model overrides over the agent's configuration (`llmConfigFor`); absent: the agent's own. */
  llmConfig?: Agent['llmConfig'] | null;
};

const ACTIVE: RunStatus[] = ['created', 'running'];

/** What a run listing keeps; every filter given must hold. */
export type RunFilter = {
  agentIds?: string[] | undefined;
  statuses?: string[] | undefined;
  /** Only runs still queued or running. */
  active?: boolean | undefined;
  background?: boolean | undefined;
  stopReason?: string | undefined;
  projectId?: string | undefined;
  /** The `base_template_id` of the run's agent. */
  templateFamily?: string | undefined;
  stepCount?: { operator: 'eq' | 'gte' | 'lte'; value: number } | undefined;
  /** Runs in which any of these tools answered (by name, as `GET /runs/{id}/metrics` lists them). */
  toolsUsed?: string[] | undefined;
  /** Runs at least as slow as this percentile (1–100) of the runs the other filters keep. */
  durationPercentile?: number | undefined;
  duration?: { operator: 'gt' | 'lt' | 'eq'; nanoseconds: number } | undefined;
  createdFrom?: Date | undefined;
  createdUntil?: Date | undefined;
  /** Only the runs of this conversation. */
  conversationId?: string | undefined;
};

const SQL_OPERATOR = { eq: '=', gte: '>=', lte: '<=', gt: '>', lt: '<' } as const;

/** Every filter but the duration percentile, whose threshold is taken over the runs these keep. */
function filterRuns(query: QueryBuilder<Run, Run[]>, filter: RunFilter): QueryBuilder<Run, Run[]> {
  // Runs of hidden agents (a template's simulated agent, an evaluation's, a visitor's copy) are listed only by their agent.
  if (filter.agentIds?.length) query.whereIn('runs.agent_id', filter.agentIds);
  else query.whereRaw(ofVisibleAgent('runs'));
  if (filter.statuses?.length) query.whereIn('runs.status', filter.statuses);
  if (filter.active) query.whereIn('runs.status', ACTIVE);
  if (filter.background !== undefined) query.where('runs.background', filter.background);
  if (filter.conversationId !== undefined) query.where('runs.conversation_id', filter.conversationId);
  if (filter.stopReason !== undefined) query.where('runs.stop_reason', filter.stopReason);
  if (filter.projectId !== undefined) query.where('runs.project_id', filter.projectId);
  if (filter.createdFrom) query.where('runs.created_at', '>=', filter.createdFrom);
  if (filter.createdUntil) query.where('runs.created_at', '<=', filter.createdUntil);
  if (filter.stepCount) {
    query.whereRaw(`coalesce((runs.usage->>'step_count')::int, 0) ${SQL_OPERATOR[filter.stepCount.operator]} ?`, [filter.stepCount.value]);
  }
  if (filter.duration) query.where('runs.total_duration_ns', SQL_OPERATOR[filter.duration.operator], filter.duration.nanoseconds);
  if (filter.templateFamily !== undefined) {
    query.whereRaw('exists (select 1 from agents where agents.organization_id = runs.organization_id and agents.id = runs.agent_id and agents.base_template_id = ?)', [
      filter.templateFamily,
    ]);
  }
  if (filter.toolsUsed?.length) {
    query.whereRaw(
      "exists (select 1 from messages where messages.organization_id = runs.organization_id and messages.run_id = runs.id and messages.role = 'tool' and messages.name = any(?))",
      [filter.toolsUsed],
    );
  }
  return query;
}

/** A run's counts beside its record: how many steps it took and which tools answered in it. */
export type RunMetrics = { run: Run; stepCount: number; toolsUsed: string[] };

/** How messages are read back when nothing asked otherwise: `send_message` calls shown as assistant messages. */
export const DEFAULT_CONVERSION: ConversionOptions = { useAssistantMessage: true, assistantMessageToolName: 'send_message', assistantMessageToolKwarg: 'message' };

/** How the run's messages are read back: the way its send asked (assistant tool and kwarg). */
export function conversionOptionsOf(run: Run): ConversionOptions {
  const config = run.requestConfig ?? {};
  return {
    useAssistantMessage: config.use_assistant_message !== false,
    assistantMessageToolName: String(config.assistant_message_tool_name ?? DEFAULT_CONVERSION.assistantMessageToolName),
    assistantMessageToolKwarg: String(config.assistant_message_tool_kwarg ?? DEFAULT_CONVERSION.assistantMessageToolKwarg),
  };
}

/** Same otids (to the same conversation) → same run: a client retrying a send gets the run it already started. */
function idempotencyKey(inputs: RunInput[], conversationId: string | null): string | null {
  const otids = inputs.map((input) => ('otid' in input ? input.otid : null));
  if (otids.length === 0 || otids.some((otid) => !otid)) return null;
  const scoped = conversationId ? [conversationId, ...otids] : otids;
  return createHash('sha256').update(scoped.join('\n')).digest('hex');
}

/** The plain messages of a send, as rows stored with its run (approval answers are applied by the run itself). */
function inputMessageRows(run: { id: string; organizationId: string; agentId: string; conversationId: string | null }, inputs: RunInput[], now: Date) {
  return inputs
    .filter((input): input is RunInputMessage => input.type === 'message')
    .map((input, index) => ({
      id: newId('message'),
      organizationId: run.organizationId,
      agentId: run.agentId,
      conversationId: run.conversationId,
      runId: run.id,
      role: input.role,
      content: runInputContent(input),
      name: input.name ?? null,
      otid: input.otid ?? null,
      senderId: input.sender_id ?? null,
      createdAt: new Date(now.getTime() + index),
    }));
}

export type RunServiceDeps = {
  db: Database;
  agentRuns: Pick<AgentRunClient, 'enqueue' | 'cancel'>;
  messages: Pick<MessageService, 'listRunMessages'>;
  /** Refuses a callback_url the egress policy would not reach for the organization. */
  egress: UrlGate;
  /** Refuses a run of an organization that has no access to the platform yet (services/admin cloud access). */
  admitCloudAccess?(organizationId: string, userId: string): Promise<void>;
  /** Refuses a run its organization cannot pay for while billing is on (services/billing), before any model call. */
  admitBilledRun?(organizationId: string, llmConfig: Agent['llmConfig']): Promise<void>;
  /**
   * Refuses a new run whose model is disabled or over its organization's rate limit, else reserves the run's first
   * model call (services/admin); the worker counts the run's later calls.
   */
  admitModelRequest?(organizationId: string, runId: string, llmConfig: Agent['llmConfig']): Promise<void>;
};

export function createRunService(deps: RunServiceDeps) {
  async function requireAgent(ctx: RequestContext, agentId: string): Promise<Agent> {
    const agent = await Agent.query(deps.db).forOrg(ctx.organizationId).findById(agentId);
    if (!agent) throw new NotFoundError('Agent');
    return agent;
  }

  async function pendingApprovalId(ctx: RequestContext, agent: Agent, conversationId: string | null): Promise<string | null> {
    const owner = { organizationId: ctx.organizationId, agentId: agent.id, conversationId };
    const lastId = (conversationId ? await contextMessageIds(deps.db, owner) : agent.messageIds).at(-1);
    if (!lastId) return null;
    const last = await Message.query(deps.db).forOrg(ctx.organizationId).findById(lastId);
    return last?.role === 'approval' && last.toolCalls?.length ? last.id : null;
  }

  async function getRun(ctx: RequestContext, runId: string): Promise<Run> {
    const run = await Run.query(deps.db).forOrg(ctx.organizationId).findById(runId);
    if (!run) throw new NotFoundError('Run');
    return run;
  }

  /** Cancellation is Temporal cancellation; a run still queued sees the flag when its turn comes. */
  async function cancelRun(ctx: RequestContext, run: Run): Promise<void> {
    if (!ACTIVE.includes(run.status)) return;
    await Run.query(deps.db).forOrg(ctx.organizationId).findById(run.id).patch({ cancelRequested: true });
    await deps.agentRuns.cancel(run.id);
  }

  return {
    requireAgent,

    /** Records a run for a send and queues it behind the agent's earlier runs. */
    async createRun(ctx: RequestContext, agentId: string, request: RunRequest, options: SendOptions): Promise<{ run: Run; created: boolean }> {
      const agent = await requireAgent(ctx, agentId);
      const answersApproval = request.messages.some((input) => input.type === 'approval');
      const conversationId = options.conversationId ?? null;
      const pending = await pendingApprovalId(ctx, agent, conversationId);
      if (pending && !answersApproval) {
        throw new ConflictError({
          code: 'PENDING_APPROVAL',
          message: 'The agent is waiting for a tool call approval; answer it before sending a new message.',
          pending_request_id: pending,
        });
      }
      if (answersApproval && !pending) throw new BadRequestError('No tool call is currently awaiting approval');
      if (options.callbackUrl) await assertReachableUrl(deps.egress, ctx.organizationId, options.callbackUrl, ['body', 'callback_url']);

      const key = idempotencyKey(request.messages, conversationId);
      if (key) {
        const existing = await Run.query(deps.db).forOrg(ctx.organizationId).findOne({ agentId, idempotencyKey: key });
        if (existing) return { run: existing, created: false };
      }
      await deps.admitCloudAccess?.(ctx.organizationId, ctx.userId);
      const llmConfig = options.llmConfig ?? agent.llmConfig;
      await deps.admitBilledRun?.(ctx.organizationId, llmConfig);
      const runId = newId('run');
      // Last of the checks: it counts the run's first model call.
      await deps.admitModelRequest?.(ctx.organizationId, runId, llmConfig);
      const now = new Date();
      const inputs = inputMessageRows({ id: runId, organizationId: ctx.organizationId, agentId, conversationId }, request.messages, now);
      // The input is stored with the run, before any model call: whatever happens to the turn, what the user
      // typed stays in the agent's history. It enters the agent's context with the run's first step.
      const inserted = await deps.db.transaction(async (trx) => {
        const rows = await Run.query(trx)
          .insert([{
            id: runId,
            organizationId: ctx.organizationId,
            projectId: agent.projectId,
            agentId,
            conversationId,
            userId: ctx.userId,
            status: 'created',
            background: options.background,
            jobType: 'run',
            metadata: { run_type: options.runType },
            requestConfig: {
              use_assistant_message: request.useAssistantMessage,
              assistant_message_tool_name: request.assistantMessageToolName,
              assistant_message_tool_kwarg: request.assistantMessageToolKwarg,
              include_return_message_types: request.includeReturnMessageTypes,
            },
            request: (options.llmConfig ? { ...request, llmConfig: options.llmConfig } : request) as unknown as Record<string, unknown>,
            idempotencyKey: key,
            pendingInputIds: inputs.map((input) => input.id),
            callbackUrl: options.callbackUrl,
          }])
          .onConflict(['agent_id', 'idempotency_key'])
          .ignore()
          .returning('*');
        if (rows.length > 0 && inputs.length > 0) await Message.query(trx).insert(inputs as unknown as Message[]);
        if (rows.length > 0 && conversationId) {
          await Conversation.query(trx).forOrg(ctx.organizationId).findById(conversationId).patch({ lastMessageAt: now });
        }
        return rows;
      });
      const run = inserted[0];
      if (!run) {
        const existing = await Run.query(deps.db).forOrg(ctx.organizationId).findOne({ agentId, idempotencyKey: key });
        if (existing) return { run: existing, created: false };
        throw new ConflictError('A run with the same message otids is being created; retry.');
      }
      try {
        await deps.agentRuns.enqueue({
          runId: run.id,
          agentId,
          organizationId: ctx.organizationId,
          maxSteps: request.maxSteps,
          runType: options.runType,
          conversationId,
        });
      } catch (error) {
        await Run.query(deps.db)
          .forOrg(ctx.organizationId)
          .findById(run.id)
          .patch({ status: 'failed', stopReason: 'error', completedAt: new Date(), metadata: { ...run.metadata, error: { errorType: 'internal_error', message: 'Temporal is unreachable' } } });
        throw new ServiceUnavailableError(`The run could not be queued: ${(error as Error).message}`);
      }
      return { run, created: true };
    },

    getRun,

    /** A page of the organization's runs; a cursor that is not one of its runs is a 404. */
    async listRuns(ctx: RequestContext, filter: RunFilter, page: PageRequest): Promise<Run[]> {
      for (const cursor of [page.before, page.after]) if (cursor !== undefined) await getRun(ctx, cursor);
      const query = filterRuns(Run.query(deps.db).forOrg(ctx.organizationId), filter);
      if (filter.durationPercentile !== undefined) {
        const threshold = filterRuns(Run.query(deps.db).forOrg(ctx.organizationId), filter)
          .whereNotNull('runs.total_duration_ns')
          .select(deps.db.raw('percentile_cont(?) within group (order by runs.total_duration_ns)', [filter.durationPercentile / 100]));
        query.where('runs.total_duration_ns', '>=', threshold);
      }
      return keysetPage(query, page, { table: 'runs' });
    },

    /** Cancels the run if it is still active, then deletes its record; answers the run as it was. */
    async deleteRun(ctx: RequestContext, runId: string): Promise<Run> {
      const run = await getRun(ctx, runId);
      await cancelRun(ctx, run);
      await Run.query(deps.db).forOrg(ctx.organizationId).deleteById(run.id);
      return run;
    },

    /** The messages of a run, in its agent's message shape and read the way the run's send asked. */
    async listRunMessages(ctx: RequestContext, runId: string, page: PageRequest): Promise<LettaMessage[]> {
      const run = await getRun(ctx, runId);
      const agent = await Agent.query(deps.db).forOrg(ctx.organizationId).findById(run.agentId);
      const agentType = (agent?.agentType ?? 'letta_v1_agent') as AgentType;
      return deps.messages.listRunMessages(ctx, run.id, agentType, { ...page, ...conversionOptionsOf(run) });
    },

    /** The run's steps in step order (`asc`, or `desc` for the latest first). */
    async listRunSteps(ctx: RequestContext, runId: string, page: { order: 'asc' | 'desc'; limit: number }): Promise<Step[]> {
      const run = await getRun(ctx, runId);
      return Step.query(deps.db).forOrg(ctx.organizationId).where({ runId: run.id }).orderBy('step_index', page.order).limit(page.limit);
    },

    async getRunMetrics(ctx: RequestContext, runId: string): Promise<RunMetrics> {
      const run = await getRun(ctx, runId);
      const [stepCount, tools] = await Promise.all([
        Step.query(deps.db).forOrg(ctx.organizationId).where({ runId: run.id }).resultSize(),
        Message.query(deps.db).forOrg(ctx.organizationId).where({ runId: run.id, role: 'tool' }).whereNotNull('name').distinct('name'),
      ]);
      return { run, stepCount, toolsUsed: tools.map((message) => message.name as string) };
    },

    /**
     * Cancels the agent's active runs (or the given ones; or those of one of its conversations, `null` naming its
     * default one); 409 when there is nothing to cancel.
     */
    async cancelAgentRuns(
      ctx: RequestContext,
      agentId: string,
      runIds?: string[],
      scope: { conversationId?: string | null } = {},
    ): Promise<Record<string, 'cancelled'>> {
      await requireAgent(ctx, agentId);
      const query = Run.query(deps.db).forOrg(ctx.organizationId).where({ agentId }).whereIn('status', ACTIVE);
      if (runIds?.length) query.whereIn('id', runIds);
      if (scope.conversationId !== undefined) {
        if (scope.conversationId === null) query.whereNull('conversation_id');
        else query.where('conversation_id', scope.conversationId);
      }
      const runs = await query;
      if (runs.length === 0) throw new ConflictError('No active runs to cancel');
      const result: Record<string, 'cancelled'> = {};
      for (const run of runs) {
        await cancelRun(ctx, run);
        result[run.id] = 'cancelled';
      }
      return result;
    },

    cancelRun,

    newPingId: () => `ping-${randomUUID()}`,
  };
}

export type RunService = ReturnType<typeof createRunService>;
