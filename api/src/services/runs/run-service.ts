import { createHash, randomUUID } from 'node:crypto';
import { Agent, Message, newId, Run, type Database } from '@engram/db';
import type { AgentRunClient } from '@engram/temporal';
import { runInputContent, type RunInput, type RunInputMessage, type RunRequest } from '@engram/core';
import { BadRequestError, ConflictError, NotFoundError, ServiceUnavailableError } from '../../errors.js';
import type { RequestContext } from '../../http/request-context.js';

export type SendOptions = {
  runType: 'send_message' | 'send_message_streaming' | 'send_message_async';
  background: boolean;
  callbackUrl: string | null;
};

const ACTIVE = ['created', 'running'];

/** Same otids → same run: a client retrying a send gets the run it already started. */
function idempotencyKey(inputs: RunInput[]): string | null {
  const otids = inputs.map((input) => ('otid' in input ? input.otid : null));
  if (otids.length === 0 || otids.some((otid) => !otid)) return null;
  return createHash('sha256').update(otids.join('\n')).digest('hex');
}

/** The plain messages of a send, as rows stored with its run (approval answers are applied by the run itself). */
function inputMessageRows(run: { id: string; organizationId: string; agentId: string }, inputs: RunInput[], now: Date) {
  return inputs
    .filter((input): input is RunInputMessage => input.type === 'message')
    .map((input, index) => ({
      id: newId('message'),
      organizationId: run.organizationId,
      agentId: run.agentId,
      runId: run.id,
      role: input.role,
      content: runInputContent(input),
      name: input.name ?? null,
      otid: input.otid ?? null,
      senderId: input.sender_id ?? null,
      createdAt: new Date(now.getTime() + index),
    }));
}

export function createRunService(deps: { db: Database; agentRuns: AgentRunClient }) {
  async function requireAgent(ctx: RequestContext, agentId: string): Promise<Agent> {
    const agent = await Agent.query(deps.db).forOrg(ctx.organizationId).findById(agentId);
    if (!agent) throw new NotFoundError('Agent');
    return agent;
  }

  async function pendingApprovalId(ctx: RequestContext, agent: Agent): Promise<string | null> {
    const lastId = agent.messageIds.at(-1);
    if (!lastId) return null;
    const last = await Message.query(deps.db).forOrg(ctx.organizationId).findById(lastId);
    return last?.role === 'approval' && last.toolCalls?.length ? last.id : null;
  }

  return {
    requireAgent,

    /** Records a run for a send and queues it behind the agent's earlier runs. */
    async createRun(ctx: RequestContext, agentId: string, request: RunRequest, options: SendOptions): Promise<{ run: Run; created: boolean }> {
      const agent = await requireAgent(ctx, agentId);
      const answersApproval = request.messages.some((input) => input.type === 'approval');
      const pending = await pendingApprovalId(ctx, agent);
      if (pending && !answersApproval) {
        throw new ConflictError({
          code: 'PENDING_APPROVAL',
          message: 'The agent is waiting for a tool call approval; answer it before sending a new message.',
          pending_request_id: pending,
        });
      }
      if (answersApproval && !pending) throw new BadRequestError('No tool call is currently awaiting approval');

      const key = idempotencyKey(request.messages);
      if (key) {
        const existing = await Run.query(deps.db).forOrg(ctx.organizationId).findOne({ agentId, idempotencyKey: key });
        if (existing) return { run: existing, created: false };
      }
      const runId = newId('run');
      const inputs = inputMessageRows({ id: runId, organizationId: ctx.organizationId, agentId }, request.messages, new Date());
      // The input is stored with the run, before any model call: whatever happens to the turn, what the user
      // typed stays in the agent's history. It enters the agent's context with the run's first step.
      const inserted = await deps.db.transaction(async (trx) => {
        const rows = await Run.query(trx)
          .insert([{
            id: runId,
            organizationId: ctx.organizationId,
            projectId: agent.projectId,
            agentId,
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
            request: request as unknown as Record<string, unknown>,
            idempotencyKey: key,
            pendingInputIds: inputs.map((input) => input.id),
            callbackUrl: options.callbackUrl,
          }])
          .onConflict(['agent_id', 'idempotency_key'])
          .ignore()
          .returning('*');
        if (rows.length > 0 && inputs.length > 0) await Message.query(trx).insert(inputs as unknown as Message[]);
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

    async getRun(ctx: RequestContext, runId: string): Promise<Run> {
      const run = await Run.query(deps.db).forOrg(ctx.organizationId).findById(runId);
      if (!run) throw new NotFoundError('Run');
      return run;
    },

    /** Cancels the agent's active runs (or the given ones); 409 when there is nothing to cancel. */
    async cancelAgentRuns(ctx: RequestContext, agentId: string, runIds?: string[]): Promise<Record<string, 'cancelled'>> {
      await requireAgent(ctx, agentId);
      const query = Run.query(deps.db).forOrg(ctx.organizationId).where({ agentId }).whereIn('status', ACTIVE);
      if (runIds?.length) query.whereIn('id', runIds);
      const runs = await query;
      if (runs.length === 0) throw new ConflictError('No active runs to cancel');
      const result: Record<string, 'cancelled'> = {};
      for (const run of runs) {
        await this.cancelRun(ctx, run);
        result[run.id] = 'cancelled';
      }
      return result;
    },

    /** Cancellation is Temporal cancellation; a run still queued sees the flag when its turn comes. */
    async cancelRun(ctx: RequestContext, run: Run): Promise<void> {
      if (!ACTIVE.includes(run.status)) return;
      await Run.query(deps.db).forOrg(ctx.organizationId).findById(run.id).patch({ cancelRequested: true });
      await deps.agentRuns.cancel(run.id);
    },

    newPingId: () => `ping-${randomUUID()}`,
  };
}

export type RunService = ReturnType<typeof createRunService>;
