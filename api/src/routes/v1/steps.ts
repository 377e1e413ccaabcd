import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireContext } from '../../http/auth.js';
import type { AppServices } from '../../services/index.js';
import { stepToWire } from '../../services/runs/run-wire.js';
import { stepMetricsToWire, stepTraceToWire } from '../../services/steps/step-wire.js';
import { pageOf, pageQuery } from '../../contracts/shared/paging.js';
import { QueryDate, queryBoolean, queryList } from '../../contracts/shared/query.js';
import { LettaMessageResponse } from '../../contracts/v1/messages.js';
import { ProviderTraceResponse, StepFeedback, StepMetricsResponse, StepResponse } from '../../contracts/v1/steps.js';
import { errorResponses } from './shared/error-responses.js';

const StepParams = z.object({ step_id: z.string() });

const ListStepsQuery = z.object({
  start_date: QueryDate.optional(),
  end_date: QueryDate.optional(),
  model: z.string().optional(),
  agent_id: z.string().optional(),
  trace_ids: queryList(z.string()),
  feedback: StepFeedback.optional(),
  has_feedback: queryBoolean.optional(),
  tags: queryList(z.string()),
  project_id: z.string().optional(),
  ...pageQuery(50),
  order_by: z.literal('created_at').optional(),
});

const StepMessagesQuery = z.object({ ...pageQuery(100), order_by: z.literal('created_at').optional() });

/** Unknown keys are ignored, as the reference server's feedback request does. */
const FeedbackBody = z.object({
  feedback: StepFeedback.nullish(),
  tags: z.array(z.string()).nullish(),
});

export function stepRoutes(services: AppServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/steps/', { schema: { tags: ['steps'], summary: 'List steps', querystring: ListStepsQuery, response: { 200: z.array(StepResponse), ...errorResponses(422) } } }, async (request) => {
      const ctx = requireContext(request);
      const { query } = request;
      const steps = await services.steps.listSteps(
        ctx,
        {
          startDate: query.start_date,
          endDate: query.end_date,
          model: query.model,
          agentId: query.agent_id,
          traceIds: query.trace_ids,
          feedback: query.feedback,
          hasFeedback: query.has_feedback,
          tags: query.tags,
          project: query.project_id !== undefined ? { id: query.project_id } : ctx.project,
        },
        pageOf(query, 'desc'),
      );
      return steps.map(stepToWire);
    });

    app.get('/steps/:step_id', { schema: { tags: ['steps'], summary: 'Get a step', params: StepParams, response: { 200: StepResponse, ...errorResponses(404, 422) } } }, async (request) =>
      stepToWire(await services.steps.getStep(requireContext(request), request.params.step_id)),
    );

    app.get(
      '/steps/:step_id/metrics',
      { schema: { tags: ['steps'], summary: "A step's timings", params: StepParams, response: { 200: StepMetricsResponse, ...errorResponses(404, 422) } } },
      async (request) => stepMetricsToWire(await services.steps.getStep(requireContext(request), request.params.step_id)),
    );

    app.get(
      '/steps/:step_id/trace',
      {
        schema: {
          tags: ['steps'],
          summary: 'The provider request and response of a step, or null',
          params: StepParams,
          response: { 200: ProviderTraceResponse.nullable(), ...errorResponses(404, 422) },
        },
      },
      async (request) => {
        const { trace, agentId } = await services.steps.getTrace(requireContext(request), request.params.step_id);
        return trace ? stepTraceToWire(trace, agentId) : null;
      },
    );

    app.get(
      '/steps/:step_id/messages',
      {
        schema: {
          tags: ['steps'],
          summary: 'The messages a step produced',
          params: StepParams,
          querystring: StepMessagesQuery,
          response: { 200: z.array(LettaMessageResponse), ...errorResponses(404, 422) },
        },
      },
      async (request) => {
        const { query } = request;
        return services.steps.listStepMessages(requireContext(request), request.params.step_id, pageOf(query, 'asc'));
      },
    );

    app.patch(
      '/steps/:step_id/feedback',
      {
        schema: {
          tags: ['steps'],
          summary: 'Set or clear the feedback of a step',
          params: StepParams,
          body: FeedbackBody,
          response: { 200: StepResponse, ...errorResponses(404, 422) },
        },
      },
      async (request) => {
        const { body } = request;
        const step = await services.steps.setFeedback(requireContext(request), request.params.step_id, {
          feedback: body.feedback ?? null,
          tags: body.tags ?? null,
        });
        return stepToWire(step);
      },
    );
  };
}
