import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ModelKind } from '../../../services/admin/model-registry.js';
import type { AppServices } from '../../../services/index.js';
import { PageQuery, success, Success } from '../schemas.js';
import { ModelTierSchema, RegisteredModelSchema, registeredModelWire, StepCostsSchema } from './schemas.js';

const tags = ['console: admin models'];

const ModelParams = z.object({ modelId: z.string() });

const CreateModelBody = z.object({ modelName: z.string().trim().min(1), modelEndpoint: z.string().trim().min(1) });

const PatchModelBody = z.object({
  name: z.string().trim().min(1).optional(),
  brand: z.string().trim().min(1).optional(),
  modelEndpoint: z.string().trim().min(1).optional(),
  config: z.record(z.string(), z.unknown()).optional(),
  defaultRequestsPerMinutePerOrganization: z.number().int().positive().optional(),
  defaultTokensPerMinutePerOrganization: z.number().int().positive().optional(),
  defaultContextWindow: z.number().int().positive().nullable().optional(),
  isRecommended: z.boolean().optional(),
  tier: ModelTierSchema.optional(),
  tag: z.string().nullable().optional(),
  /** true: refused for new runs from now on; false: usable again. */
  disabled: z.boolean().optional(),
});

/** The inference and embedding model registries (`/admin/models/inference`, `/admin/models/embedding`). */
export function adminModelRoutes(services: AppServices): FastifyPluginAsyncZod {
  const { modelRegistry } = services;
  return async (app) => {
    for (const kind of ['inference', 'embedding'] as const satisfies readonly ModelKind[]) {
      const base = `/admin/models/${kind}`;
      const kindTags = [`console: admin ${kind} models`];

      app.get(
        base,
        { schema: { tags: kindTags, querystring: PageQuery, response: { 200: z.object({ models: z.array(RegisteredModelSchema), hasNextPage: z.boolean() }) } } },
        async (request) => {
          const page = await modelRegistry.list(kind, request.query);
          return { models: page.models.map(registeredModelWire), hasNextPage: page.hasNextPage };
        },
      );

      app.post(
        base,
        { schema: { tags: kindTags, body: CreateModelBody, response: { 201: RegisteredModelSchema } } },
        async (request, reply) => reply.code(201).send(registeredModelWire(await modelRegistry.create(kind, request.body))),
      );

      app.get(
        `${base}/:modelId`,
        { schema: { tags: kindTags, params: ModelParams, response: { 200: RegisteredModelSchema } } },
        async (request) => registeredModelWire(await modelRegistry.get(kind, request.params.modelId)),
      );

      app.patch(
        `${base}/:modelId`,
        { schema: { tags: kindTags, params: ModelParams, body: PatchModelBody, response: { 200: RegisteredModelSchema } } },
        async (request) => registeredModelWire(await modelRegistry.update(kind, request.params.modelId, request.body)),
      );

      app.delete(
        `${base}/:modelId`,
        { schema: { tags: kindTags, params: ModelParams, response: { 200: Success } } },
        async (request) => {
          await modelRegistry.delete(kind, request.params.modelId);
          return success;
        },
      );
    }

    app.get(
      '/admin/models/inference/:modelId/step-costs',
      { schema: { tags, summary: "The model's step costs (version 1): credits per step up to each context window size", params: ModelParams, response: { 200: StepCostsSchema } } },
      async (request) => ({ version: '1' as const, data: await modelRegistry.stepCosts(request.params.modelId) }),
    );

    app.patch(
      '/admin/models/inference/:modelId/step-costs',
      { schema: { tags, params: ModelParams, body: StepCostsSchema, response: { 200: StepCostsSchema } } },
      async (request) => ({ version: '1' as const, data: await modelRegistry.setStepCosts(request.params.modelId, request.body.data) }),
    );
  };
}
