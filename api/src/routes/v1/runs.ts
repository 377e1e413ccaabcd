import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AgentType } from '@engram/core';
import { Agent, Run, Step } from '@engram/db';
import { requireContext } from '../../http/auth.js';
import { openSse } from '../../http/sse.js';
import { NotFoundError } from '../../errors.js';
import type { AppServices } from '../../services/index.js';
import { streamRunOutput } from '../../services/runs/run-output.js';
import { runToJob, runToWire, stepToWire, usageToWire } from '../../services/runs/run-wire.js';

const RunParams = z.object({ run_id: z.string() });
const JobParams = z.object({ job_id: z.string() });

const csv = z
  .union([z.string(), z.array(z.string())])
  .transform((value) => (Array.isArray(value) ? value : value.split(',')).filter(Boolean));
const booleanQuery = z.enum(['true', 'false']).transform((value) => value === 'true');

const Paging = {
  before: z.string().optional(),
  after: z.string().optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  order: z.enum(['asc', 'desc']).default('desc'),
};

const ACTIVE = ['created', 'running'];

export function runRoutes(services: AppServices, settings: { pingIntervalMs: number; pollIntervalMs: number }): FastifyPluginAsyncZod {
  return async (app) => {
    const db = services.db;

    async function cursorCreatedAt(organizationId: string, runId: string | undefined) {
      if (!runId) return undefined;
      const run = await Run.query(db).forOrg(organizationId).findById(runId);
      if (!run) throw new NotFoundError('Run');
      return run;
    }

    async function listRuns(
      organizationId: string,
      query: { agent_id?: string; agent_ids?: string[]; statuses?: string[]; background?: boolean; stop_reason?: string; active?: boolean; before?: string; after?: string; limit: number; order: 'asc' | 'desc' },
    ) {
      const rows = Run.query(db).forOrg(organizationId);
      const agentIds = [...(query.agent_ids ?? []), ...(query.agent_id ? [query.agent_id] : [])];
      if (agentIds.length) rows.whereIn('agent_id', agentIds);
      if (query.statuses?.length) rows.whereIn('status', query.statuses);
      if (query.active) rows.whereIn('status', ACTIVE);
      if (query.background !== undefined) rows.where('background', query.background);
      if (query.stop_reason) rows.where('stop_reason', query.stop_reason);
      const after = await cursorCreatedAt(organizationId, query.after);
      const before = await cursorCreatedAt(organizationId, query.before);
      const direction = query.order === 'desc' ? '<' : '>';
      const opposite = query.order === 'desc' ? '>' : '<';
      if (after) rows.whereRaw(`(created_at, id) ${direction} (?, ?)`, [after.createdAt, after.id]);
      if (before) rows.whereRaw(`(created_at, id) ${opposite} (?, ?)`, [before.createdAt, before.id]);
      return rows.orderBy([{ column: 'created_at', order: query.order }, { column: 'id', order: query.order }]).limit(query.limit);
    }

    const RunListQuery = z.object({
      agent_id: z.string().optional(),
      agent_ids: csv.optional(),
      statuses: csv.optional(),
      background: booleanQuery.optional(),
      stop_reason: z.string().optional(),
      active: booleanQuery.optional(),
      ...Paging,
    });

    app.get('/runs/', { schema: { tags: ['runs'], summary: 'List runs', querystring: RunListQuery } }, async (request) =>
      (await listRuns(requireContext(request).organizationId, request.query)).map(runToWire),
    );

    app.get('/runs/:run_id', { schema: { tags: ['runs'], params: RunParams } }, async (request) =>
      runToWire(await services.runs.getRun(requireContext(request), request.params.run_id)),
    );

    app.delete('/runs/:run_id', { schema: { tags: ['runs'], params: RunParams } }, async (request) => {
      const ctx = requireContext(request);
      const run = await services.runs.getRun(ctx, request.params.run_id);
      await services.runs.cancelRun(ctx, run);
      await Run.query(db).forOrg(ctx.organizationId).deleteById(run.id);
      return runToWire(run);
    });

    app.get(
      '/runs/:run_id/messages',
      { schema: { tags: ['runs'], params: RunParams, querystring: z.object({ ...Paging, order: z.enum(['asc', 'desc']).default('asc') }) } },
      async (request) => {
        const ctx = requireContext(request);
        const run = await services.runs.getRun(ctx, request.params.run_id);
        const agent = await Agent.query(db).forOrg(ctx.organizationId).findById(run.agentId);
        const config = run.requestConfig ?? {};
        return services.messages.listRunMessages(ctx, run.id, (agent?.agentType ?? 'letta_v1_agent') as AgentType, {
          ...request.query,
          useAssistantMessage: config.use_assistant_message !== false,
          assistantMessageToolName: String(config.assistant_message_tool_name ?? 'send_message'),
          assistantMessageToolKwarg: String(config.assistant_message_tool_kwarg ?? 'message'),
        });
      },
    );

    app.get('/runs/:run_id/usage', { schema: { tags: ['runs'], params: RunParams } }, async (request) => {
      const { message_type: _type, ...usage } = usageToWire(await services.runs.getRun(requireContext(request), request.params.run_id));
      return usage;
    });

    app.get('/runs/:run_id/metrics', { schema: { tags: ['runs'], params: RunParams } }, async (request) => {
      const ctx = requireContext(request);
      const run = await services.runs.getRun(ctx, request.params.run_id);
      const steps = await Step.query(db).forOrg(ctx.organizationId).where({ runId: run.id }).orderBy('step_index');
      const toolsUsed = await db('messages').where({ organizationId: ctx.organizationId, runId: run.id, role: 'tool' }).distinct('name');
      return {
        id: run.id,
        organization_id: run.organizationId,
        agent_id: run.agentId,
        project_id: run.projectId,
        run_start_ns: run.startedAt ? run.startedAt.getTime() * 1_000_000 : null,
        run_ns: run.totalDurationNs === null ? null : Number(run.totalDurationNs),
        num_steps: steps.length,
        tools_used: (toolsUsed as Array<{ name: string | null }>).map((row) => row.name).filter(Boolean),
        template_id: null,
        base_template_id: null,
      };
    });

    app.get(
      '/runs/:run_id/steps',
      { schema: { tags: ['runs'], params: RunParams, querystring: z.object(Paging) } },
      async (request) => {
        const ctx = requireContext(request);
        const run = await services.runs.getRun(ctx, request.params.run_id);
        const steps = await Step.query(db)
          .forOrg(ctx.organizationId)
          .where({ runId: run.id })
          .orderBy('step_index', request.query.order)
          .limit(request.query.limit);
        return steps.map(stepToWire);
      },
    );

    app.post(
      '/runs/:run_id/stream',
      {
        schema: {
          tags: ['runs'],
          summary: "Replay a run's stream from a seq_id and follow it to the end",
          params: RunParams,
          body: z
            .object({
              starting_after: z.number().int().min(0).default(0),
              include_pings: z.boolean().default(true),
              poll_interval: z.number().positive().max(60).default(0.1),
              batch_size: z.number().int().min(1).max(1000).default(100),
            })
            .strict()
            .default({ starting_after: 0, include_pings: true, poll_interval: 0.1, batch_size: 100 }),
        },
      },
      async (request, reply) => {
        const ctx = requireContext(request);
        const run = await services.runs.getRun(ctx, request.params.run_id);
        const body = request.body;
        const channel = openSse(request, reply);
        const items = services.runLog.follow({
          organizationId: ctx.organizationId,
          runId: run.id,
          after: body.starting_after,
          signal: channel.signal,
          pollIntervalMs: Math.min(settings.pollIntervalMs, body.poll_interval * 1000),
          batchSize: body.batch_size,
          includeDeltas: false,
        });
        const includeTypes = (run.requestConfig?.include_return_message_types as string[] | null | undefined) ?? null;
        await streamRunOutput(channel, items, {
          runId: run.id,
          includeTypes,
          includePings: body.include_pings,
          pingIntervalMs: settings.pingIntervalMs,
          startingAfter: body.starting_after,
        });
        return reply;
      },
    );

    const JobListQuery = z.object({ active: booleanQuery.optional(), ascending: booleanQuery.optional(), ...Paging });
    app.get('/jobs/', { schema: { tags: ['jobs'], querystring: JobListQuery } }, async (request) => {
      const query = request.query;
      const order = query.ascending === undefined ? query.order : query.ascending ? 'asc' : 'desc';
      return (await listRuns(requireContext(request).organizationId, { ...query, order })).map(runToJob);
    });

    app.get('/jobs/:job_id', { schema: { tags: ['jobs'], params: JobParams } }, async (request) =>
      runToJob(await services.runs.getRun(requireContext(request), request.params.job_id)),
    );

    app.patch('/jobs/:job_id/cancel', { schema: { tags: ['jobs'], params: JobParams } }, async (request) => {
      const ctx = requireContext(request);
      const run = await services.runs.getRun(ctx, request.params.job_id);
      await services.runs.cancelRun(ctx, run);
      return runToJob(await services.runs.getRun(ctx, run.id));
    });

    app.delete('/jobs/:job_id', { schema: { tags: ['jobs'], params: JobParams } }, async (request) => {
      const ctx = requireContext(request);
      const run = await services.runs.getRun(ctx, request.params.job_id);
      await services.runs.cancelRun(ctx, run);
      await Run.query(db).forOrg(ctx.organizationId).deleteById(run.id);
      return runToJob(run);
    });
  };
}
