import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireContext } from '../../http/auth.js';
import type { AppServices } from '../../services/index.js';
import { runToWire } from '../../services/runs/run-wire.js';
import { pageOf } from '../../contracts/shared/paging.js';
import { QueryDate } from '../../contracts/shared/query.js';
import { StopReason } from '../../contracts/v1/messages.js';
import { RunResponse } from '../../contracts/v1/runs.js';
import { booleanQuery, csv, RunListQuery, runFilterOf } from './runs.js';
import { errorResponses } from './shared/error-responses.js';

const InternalRunListQuery = RunListQuery.extend({
  stop_reason: StopReason.optional(),
  project_id: z.string().optional(),
  template_family: z.string().optional(),
  step_count: z.coerce.number().int().min(0).optional(),
  step_count_operator: z.enum(['eq', 'gte', 'lte']).default('eq'),
  tools_used: csv.optional(),
  /** Runs at least as slow as this percentile of the runs the other filters keep. */
  duration_percentile: z.coerce.number().int().min(1).max(100).optional(),
  /** Nanoseconds, as the runs' `total_duration_ns`. */
  duration_value: z.coerce.number().int().min(0).optional(),
  duration_operator: z.enum(['gt', 'lt', 'eq']).optional(),
  start_date: QueryDate.optional(),
  end_date: QueryDate.optional(),
  /** Older clients' spelling of `order=asc`. */
  ascending: booleanQuery.optional(),
}).superRefine((query, issues) => {
  if ((query.duration_value === undefined) !== (query.duration_operator === undefined)) {
    const missing = query.duration_value === undefined ? 'duration_value' : 'duration_operator';
    issues.addIssue({ code: 'custom', path: [missing], message: 'duration_value and duration_operator must be given together' });
  }
});

/** `/_internal_runs`: the run analytics the hosted product's own dashboards read; undocumented, like the reference's. */
export function internalRunRoutes(services: AppServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/_internal_runs/',
      { schema: { hide: true, querystring: InternalRunListQuery, response: { 200: z.array(RunResponse), ...errorResponses(404, 422) } } },
      async (request) => {
        const { query } = request;
        const page = pageOf({ ...query, order: query.order ?? (query.ascending ? 'asc' : undefined) }, 'desc');
        const runs = await services.runs.listRuns(
          requireContext(request),
          {
            ...runFilterOf(query),
            projectId: query.project_id,
            templateFamily: query.template_family,
            stepCount: query.step_count === undefined ? undefined : { operator: query.step_count_operator, value: query.step_count },
            toolsUsed: query.tools_used,
            durationPercentile: query.duration_percentile,
            duration: query.duration_value === undefined || query.duration_operator === undefined ? undefined : { operator: query.duration_operator, nanoseconds: query.duration_value },
            createdFrom: query.start_date,
            createdUntil: query.end_date,
          },
          page,
        );
        return runs.map(runToWire);
      },
    );
  };
}
