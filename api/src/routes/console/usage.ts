import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireContext } from '../../http/auth.js';
import type { AppServices } from '../../services/index.js';
import { MetricQuerySchema, metricQueryOf } from './observability.js';

const tags = ['console: usage and costs'];

const RateLimit = z.object({ model: z.string(), tokensPerMinute: z.number(), requestsPerMinute: z.number() });
const StepCostEntry = z.object({ maxContextWindowSize: z.number(), cost: z.number() });

// The response shapes are named so the console kit's wire types carry them (npm run contracts:kit-types).
const ModelUsageSummary = z
  .object({
    model: z.string(),
    runs: z.number(),
    steps: z.number(),
    promptTokens: z.number(),
    completionTokens: z.number(),
    totalTokens: z.number(),
    credits: z.number(),
    dollars: z.number(),
  })
  .meta({ id: 'ModelUsageSummary' });
const CostPeriod = z.object({ period: z.string(), steps: z.number(), credits: z.number(), dollars: z.number() }).meta({ id: 'CostPeriod' });
const CostSummary = z
  .object({
    credits: z.number(),
    dollars: z.number(),
    models: z.array(z.object({ modelId: z.string().nullable(), model: z.string(), steps: z.number(), credits: z.number(), dollars: z.number() })),
    series: z.array(CostPeriod),
  })
  .meta({ id: 'CostSummary' });
const ModelCosts = z
  .object({
    modelId: z.string(),
    model: z.string(),
    brand: z.string(),
    stepCosts: z.object({ version: z.literal(1), costs: z.array(StepCostEntry) }),
    steps: z.number(),
    credits: z.number(),
    dollars: z.number(),
    series: z.array(CostPeriod),
  })
  .meta({ id: 'ModelCosts' });

/** Usage and spend per model over the §9 time ranges, and the organization's per-model rate limits. */
export function usageRoutes(services: AppServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/usage/model-summary',
      {
        schema: {
          tags,
          summary: 'Steps, tokens and credits per model of the steps in the range',
          querystring: MetricQuerySchema,
          response: { 200: z.object({ models: z.array(ModelUsageSummary) }) },
        },
      },
      async (request) => ({ models: await services.usage.modelSummary(requireContext(request), metricQueryOf(request.query)) }),
    );

    app.get(
      '/costs',
      {
        schema: {
          tags,
          summary: "The range's step charges of the billing ledger, per model and per period",
          querystring: MetricQuerySchema,
          response: { 200: CostSummary },
        },
      },
      async (request) => services.usage.costs(requireContext(request), metricQueryOf(request.query)),
    );

    app.get(
      '/costs/:modelId',
      {
        schema: {
          tags,
          summary: "A registered model's price per step and its charges per period of the range",
          params: z.object({ modelId: z.string() }),
          querystring: MetricQuerySchema,
          response: { 200: ModelCosts },
        },
      },
      async (request) => services.usage.modelCosts(requireContext(request), request.params.modelId, metricQueryOf(request.query)),
    );

    app.get(
      '/rate-limits/inference',
      { schema: { tags, summary: "The organization's limit of each inference model", response: { 200: z.object({ rateLimits: z.array(RateLimit) }) } } },
      async (request) => ({ rateLimits: await services.usage.inferenceRateLimits(requireContext(request)) }),
    );

    app.get(
      '/rate-limits/embedding',
      { schema: { tags, summary: "The organization's limit of each embedding model", response: { 200: z.object({ rateLimits: z.array(RateLimit) }) } } },
      async (request) => ({ rateLimits: await services.usage.embeddingRateLimits(requireContext(request)) }),
    );
  };
}
