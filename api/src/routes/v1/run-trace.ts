import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireContext } from '../../http/auth.js';
import type { AppServices } from '../../services/index.js';
import { SpanWire, spanToWire } from '../../services/observability/trace-wire.js';
import { errorResponses } from './shared/error-responses.js';

/** `GET /v1/runs/{run_id}/trace`, as `client.runs.trace.retrieve` reads it: the OpenTelemetry spans of the run. */
export function runTraceRoutes(services: AppServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/runs/:run_id/trace',
      {
        schema: {
          tags: ['runs'],
          summary: "The OpenTelemetry spans of a run's trace, in start order",
          params: z.object({ run_id: z.string() }),
          querystring: z.object({ limit: z.coerce.number().int().min(1).max(1000).default(1000) }),
          response: { 200: z.array(SpanWire), ...errorResponses(404, 422) },
        },
      },
      async (request) => (await services.traces.runSpans(requireContext(request), request.params.run_id, request.query.limit)).map(spanToWire),
    );
  };
}
