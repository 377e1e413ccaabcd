import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireContext } from '../../http/auth.js';
import { openSse } from '../../http/sse.js';
import type { AppServices } from '../../services/index.js';
import { streamRunOutput } from '../../services/runs/run-output.js';
import type { RunFilter } from '../../services/runs/run-service.js';
import { runMetricsToWire, runToJob, runToWire, runUsageToWire, stepToWire } from '../../services/runs/run-wire.js';
import { batchToJob } from '../../services/batches/batch-wire.js';
import type { Job } from '../../services/runs/job-service.js';
import { pageOf, pageQuery } from '../../contracts/shared/paging.js';
import { LettaMessageResponse } from '../../contracts/v1/messages.js';
import { JobResponse, RunMetricsResponse, RunResponse, RunUsageResponse } from '../../contracts/v1/runs.js';
import { StepResponse } from '../../contracts/v1/steps.js';
import { eventStreamResponse } from './shared/common-responses.js';
import { errorResponses } from './shared/error-responses.js';

const RunParams = z.object({ run_id: z.string() });
const JobParams = z.object({ job_id: z.string() });

export const csv = z
  .union([z.string(), z.array(z.string())])
  .transform((value) => (Array.isArray(value) ? value : value.split(',')).filter(Boolean));
export const booleanQuery = z.enum(['true', 'false']).transform((value) => value === 'true');

export const RunListQuery = z.object({
  agent_id: z.string().optional(),
  agent_ids: csv.optional(),
  statuses: csv.optional(),
  background: booleanQuery.optional(),
  stop_reason: z.string().optional(),
  active: booleanQuery.optional(),
  conversation_id: z.string().optional(),
  ...pageQuery(100),
});

/** The reference's `active` and `ascending`, and the run filters (an agent, statuses, a stop reason), which leave batches out. */
const JobListQuery = z.object({
  active: booleanQuery.optional(),
  ascending: booleanQuery.optional(),
  agent_id: z.string().optional(),
  statuses: csv.optional(),
  stop_reason: z.string().optional(),
  ...pageQuery(100),
});

export const runFilterOf = (query: Partial<z.infer<typeof RunListQuery>>): RunFilter => ({
  agentIds: [...(query.agent_ids ?? []), ...(query.agent_id ? [query.agent_id] : [])],
  statuses: query.statuses,
  active: query.active,
  background: query.background,
  stopReason: query.stop_reason,
  conversationId: query.conversation_id,
});

const jobToWire = (job: Job) => (job.kind === 'run' ? runToJob(job.run) : batchToJob(job.batch));

export function runRoutes(services: AppServices, settings: { pingIntervalMs: number; pollIntervalMs: number }): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/runs/',
      { schema: { tags: ['runs'], summary: 'List runs', querystring: RunListQuery, response: { 200: z.array(RunResponse), ...errorResponses(404, 422) } } },
      async (request) => {
        const { query } = request;
        return (await services.runs.listRuns(requireContext(request), runFilterOf(query), pageOf(query, 'desc'))).map(runToWire);
      },
    );

    app.get(
      '/runs/:run_id',
      { schema: { tags: ['runs'], summary: 'Get a run', params: RunParams, response: { 200: RunResponse, ...errorResponses(404, 422) } } },
      async (request) => runToWire(await services.runs.getRun(requireContext(request), request.params.run_id)),
    );

    app.delete(
      '/runs/:run_id',
      { schema: { tags: ['runs'], summary: 'Cancel a run if it is active, and delete it', params: RunParams, response: { 200: RunResponse, ...errorResponses(404, 422) } } },
      async (request) => runToWire(await services.runs.deleteRun(requireContext(request), request.params.run_id)),
    );

    app.get(
      '/runs/:run_id/messages',
      {
        schema: {
          tags: ['runs'],
          summary: "A run's messages, oldest first",
          params: RunParams,
          querystring: z.object(pageQuery(100)),
          response: { 200: z.array(LettaMessageResponse), ...errorResponses(404, 422) },
        },
      },
      async (request) => services.runs.listRunMessages(requireContext(request), request.params.run_id, pageOf(request.query, 'asc')),
    );

    app.get(
      '/runs/:run_id/usage',
      { schema: { tags: ['runs'], summary: "A run's token counts", params: RunParams, response: { 200: RunUsageResponse, ...errorResponses(404, 422) } } },
      async (request) => runUsageToWire(await services.runs.getRun(requireContext(request), request.params.run_id)),
    );

    app.get(
      '/runs/:run_id/metrics',
      { schema: { tags: ['runs'], summary: "A run's timings, steps and tools", params: RunParams, response: { 200: RunMetricsResponse, ...errorResponses(404, 422) } } },
      async (request) => runMetricsToWire(await services.runs.getRunMetrics(requireContext(request), request.params.run_id)),
    );

    app.get(
      '/runs/:run_id/steps',
      {
        schema: {
          tags: ['runs'],
          summary: "A run's steps, the latest first",
          params: RunParams,
          querystring: z.object(pageQuery(100)),
          response: { 200: z.array(StepResponse), ...errorResponses(404, 422) },
        },
      },
      async (request) => {
        const { query } = request;
        const steps = await services.runs.listRunSteps(requireContext(request), request.params.run_id, { order: query.order ?? 'desc', limit: query.limit });
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
          response: { 200: eventStreamResponse("The run's frames after `starting_after`, until it ends"), ...errorResponses(404, 422) },
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

    app.get(
      '/jobs/',
      { schema: { tags: ['jobs'], summary: 'List jobs: runs and message batches', querystring: JobListQuery, response: { 200: z.array(JobResponse), ...errorResponses(404, 422) } } },
      async (request) => {
        const { query } = request;
        const order = query.ascending === undefined ? (query.order ?? 'desc') : query.ascending ? 'asc' : 'desc';
        return (await services.jobs.list(requireContext(request), runFilterOf(query), { ...pageOf(query, 'desc'), order })).map(jobToWire);
      },
    );

    app.get(
      '/jobs/:job_id',
      { schema: { tags: ['jobs'], summary: 'Get a job: a run or a message batch', params: JobParams, response: { 200: JobResponse, ...errorResponses(404, 422) } } },
      async (request) => jobToWire(await services.jobs.get(requireContext(request), request.params.job_id)),
    );

    app.patch(
      '/jobs/:job_id/cancel',
      { schema: { tags: ['jobs'], summary: 'Cancel a run or a message batch', params: JobParams, response: { 200: JobResponse, ...errorResponses(404, 422) } } },
      async (request) => jobToWire(await services.jobs.cancel(requireContext(request), request.params.job_id)),
    );

    app.delete(
      '/jobs/:job_id',
      { schema: { tags: ['jobs'], summary: 'Cancel a job if it is active, and delete it', params: JobParams, response: { 200: JobResponse, ...errorResponses(404, 422) } } },
      async (request) => jobToWire(await services.jobs.delete(requireContext(request), request.params.job_id)),
    );
  };
}
