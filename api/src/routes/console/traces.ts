import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireContext } from '../../http/auth.js';
import type { AppServices } from '../../services/index.js';
import { SpanWire, spanToWire, TraceSummaryWire, traceToWire } from '../../services/observability/trace-wire.js';

const TraceParams = z.object({ traceId: z.string().regex(/^[0-9a-f]{32}$/, 'traceId must be 32 lowercase hex characters') });

/** One trace of the acting organization: its summary and every span with its events, in start order. */
export function traceRoutes(services: AppServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/traces/:traceId',
      {
        schema: {
          tags: ['console: observability'],
          params: TraceParams,
          response: { 200: z.object({ trace: TraceSummaryWire, spans: z.array(SpanWire) }) },
        },
      },
      async (request) => {
        const { trace, spans } = await services.traces.getTrace(requireContext(request), request.params.traceId);
        return { trace: traceToWire(trace), spans: spans.map(spanToWire) };
      },
    );
  };
}
