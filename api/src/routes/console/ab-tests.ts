import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireContext } from '../../http/auth.js';
import type { AppServices } from '../../services/index.js';
import {
  AbTestListQuery,
  AbTestParams,
  AbTestResultsSchema,
  AbTestSchema,
  AbTestTemplateSchema,
  AttachmentParams,
  AttachTemplateBody,
  CreateAbTestBody,
  StopAbTestBody,
  UpdateAbTestBody,
  UpdateAttachmentBody,
  abTestToWire,
  armResultToWire,
  attachedTemplateToWire,
} from './ab-tests-schema.js';
import { success, Success } from './schemas.js';

/** A/B tests (spec 000 §7: CRUD with template attach/detach), their results per arm, and stopping with a promotion. */
export function abTestRoutes(services: AppServices): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['console: A/B tests'];

    app.get(
      '/ab-tests',
      { schema: { tags, querystring: AbTestListQuery, response: { 200: z.object({ abTests: z.array(AbTestSchema), hasNextPage: z.boolean() }) } } },
      async (request) => {
        const page = await services.abTests.list(requireContext(request), request.query);
        return { abTests: page.abTests.map(abTestToWire), hasNextPage: page.hasNextPage };
      },
    );

    app.post('/ab-tests', { schema: { tags, body: CreateAbTestBody, response: { 201: AbTestSchema } } }, async (request, reply) => {
      const { body } = request;
      const created = await services.abTests.create(requireContext(request), { name: body.name, description: body.description ?? null, projectId: body.projectId });
      return reply.code(201).send(abTestToWire(created));
    });

    app.get('/ab-tests/:abTestId', { schema: { tags, params: AbTestParams, response: { 200: AbTestSchema } } }, async (request) =>
      abTestToWire(await services.abTests.get(requireContext(request), request.params.abTestId)),
    );

    app.patch('/ab-tests/:abTestId', { schema: { tags, params: AbTestParams, body: UpdateAbTestBody, response: { 200: AbTestSchema } } }, async (request) =>
      abTestToWire(await services.abTests.update(requireContext(request), request.params.abTestId, request.body)),
    );

    app.delete('/ab-tests/:abTestId', { schema: { tags, params: AbTestParams, response: { 200: Success } } }, async (request) => {
      await services.abTests.delete(requireContext(request), request.params.abTestId);
      return success;
    });

    app.get(
      '/ab-tests/:abTestId/templates',
      { schema: { tags, params: AbTestParams, response: { 200: z.object({ templates: z.array(AbTestTemplateSchema) }) } } },
      async (request) => {
        const ctx = requireContext(request);
        await services.abTests.get(ctx, request.params.abTestId);
        return { templates: (await services.abTests.arms(ctx, request.params.abTestId)).map(attachedTemplateToWire) };
      },
    );

    app.post(
      '/ab-tests/:abTestId/templates',
      { schema: { tags, summary: 'Attach a saved template version as an arm', params: AbTestParams, body: AttachTemplateBody, response: { 201: AbTestTemplateSchema } } },
      async (request, reply) =>
        reply.code(201).send(attachedTemplateToWire(await services.abTests.attach(requireContext(request), request.params.abTestId, request.body))),
    );

    app.patch(
      '/ab-tests/:abTestId/templates/:abTestTemplateId',
      { schema: { tags, params: AttachmentParams, body: UpdateAttachmentBody, response: { 200: AbTestTemplateSchema } } },
      async (request) =>
        attachedTemplateToWire(await services.abTests.setWeight(requireContext(request), request.params.abTestId, request.params.abTestTemplateId, request.body.weight)),
    );

    app.delete('/ab-tests/:abTestId/templates/:abTestTemplateId', { schema: { tags, params: AttachmentParams, response: { 200: Success } } }, async (request) => {
      await services.abTests.detach(requireContext(request), request.params.abTestId, request.params.abTestTemplateId);
      return success;
    });

    app.get('/ab-tests/:abTestId/results', { schema: { tags, params: AbTestParams, response: { 200: AbTestResultsSchema } } }, async (request) => {
      const results = await services.abTests.results(requireContext(request), request.params.abTestId);
      return {
        abTest: abTestToWire(results.abTest),
        arms: results.arms.map(armResultToWire),
        winner: results.winner ? { abTestTemplateId: results.winner.armId, pValue: results.winner.pValue } : null,
      };
    });

    app.post(
      '/ab-tests/:abTestId/stop',
      {
        schema: {
          tags,
          summary: "Stop the test; with promote, the winner's version is deployed and every agent of the template migrated to it",
          params: AbTestParams,
          body: StopAbTestBody,
          response: { 200: z.object({ abTest: AbTestSchema, migrationWorkflowId: z.string().nullable() }) },
        },
      },
      async (request) => {
        const stopped = await services.abTests.stop(requireContext(request), request.params.abTestId, request.body.promote);
        return { abTest: abTestToWire(stopped.abTest), migrationWorkflowId: stopped.migrationWorkflowId };
      },
    );
  };
}
