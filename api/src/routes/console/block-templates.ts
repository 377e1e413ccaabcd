import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireContext } from '../../http/auth.js';
import type { AppServices } from '../../services/index.js';
import { TemplateParams } from './agent-templates-schema.js';
import {
  AttachmentParams,
  BlockTemplateListQuery,
  BlockTemplateParams,
  BlockTemplateSchema,
  CreateBlockTemplateBody,
  UpdateBlockTemplateBody,
  blockTemplateToWire,
} from './block-templates-schema.js';
import { success, Success } from './schemas.js';

const Attached = z.object({ success: z.boolean(), message: z.string() });

/** Block templates (spec 000 §7): CRUD, and attaching them to agent templates. */
export function blockTemplateRoutes(services: AppServices): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['console: block templates'];

    app.get(
      '/block-templates',
      {
        schema: {
          tags,
          querystring: BlockTemplateListQuery,
          response: { 200: z.object({ blockTemplates: z.array(BlockTemplateSchema), hasNextPage: z.boolean() }) },
        },
      },
      async (request) => {
        const page = await services.blockTemplates.list(requireContext(request), request.query);
        return { blockTemplates: page.blockTemplates.map(blockTemplateToWire), hasNextPage: page.hasNextPage };
      },
    );

    app.post(
      '/block-templates',
      { schema: { tags, body: CreateBlockTemplateBody, response: { 201: BlockTemplateSchema } } },
      async (request, reply) => {
        const { body } = request;
        const created = await services.blockTemplates.create(requireContext(request), {
          ...body,
          description: body.description ?? null,
          preserveOnMigration: body.preserveOnMigration ?? false,
        });
        return reply.code(201).send(blockTemplateToWire(created));
      },
    );

    app.get(
      '/block-templates/:blockTemplateId',
      { schema: { tags, params: BlockTemplateParams, response: { 200: BlockTemplateSchema } } },
      async (request) => blockTemplateToWire(await services.blockTemplates.get(requireContext(request), request.params.blockTemplateId)),
    );

    app.patch(
      '/block-templates/:blockTemplateId',
      { schema: { tags, params: BlockTemplateParams, body: UpdateBlockTemplateBody, response: { 200: BlockTemplateSchema } } },
      async (request) => {
        const { description, preserveOnMigration, ...rest } = request.body;
        const updated = await services.blockTemplates.update(requireContext(request), request.params.blockTemplateId, {
          ...rest,
          ...(description !== undefined ? { description } : {}),
          ...(preserveOnMigration !== undefined ? { preserveOnMigration: preserveOnMigration ?? false } : {}),
        });
        return blockTemplateToWire(updated);
      },
    );

    app.delete(
      '/block-templates/:blockTemplateId',
      { schema: { tags, params: BlockTemplateParams, response: { 200: Success } } },
      async (request) => {
        await services.blockTemplates.delete(requireContext(request), request.params.blockTemplateId);
        return success;
      },
    );

    app.get(
      '/agent-templates/:agentTemplateId/block-templates',
      { schema: { tags, params: TemplateParams, response: { 200: z.object({ blockTemplates: z.array(BlockTemplateSchema) }) } } },
      async (request) => ({
        blockTemplates: (await services.blockTemplates.listForTemplate(requireContext(request), request.params.agentTemplateId)).map(blockTemplateToWire),
      }),
    );

    app.post(
      '/agent-templates/:agentTemplateId/block-templates',
      {
        schema: {
          tags,
          summary: 'Create a block template and attach it to the template',
          params: TemplateParams,
          body: CreateBlockTemplateBody,
          response: { 201: Attached.extend({ blockTemplate: BlockTemplateSchema }) },
        },
      },
      async (request, reply) => {
        const { body } = request;
        const created = await services.blockTemplates.createAndAttach(requireContext(request), request.params.agentTemplateId, {
          ...body,
          description: body.description ?? null,
          preserveOnMigration: body.preserveOnMigration ?? false,
        });
        return reply
          .code(201)
          .send({ blockTemplate: blockTemplateToWire(created), success: true, message: `Block template '${created.label}' attached` });
      },
    );

    app.post(
      '/agent-templates/:agentTemplateId/block-templates/:blockTemplateId',
      { schema: { tags, params: AttachmentParams, response: { 201: Attached } } },
      async (request, reply) => {
        const { agentTemplateId, blockTemplateId } = request.params;
        await services.blockTemplates.attach(requireContext(request), agentTemplateId, blockTemplateId);
        return reply.code(201).send({ success: true, message: 'Block template attached' });
      },
    );

    app.delete(
      '/agent-templates/:agentTemplateId/block-templates/:blockTemplateId',
      { schema: { tags, params: AttachmentParams, response: { 200: Success } } },
      async (request) => {
        const { agentTemplateId, blockTemplateId } = request.params;
        await services.blockTemplates.detach(requireContext(request), agentTemplateId, blockTemplateId);
        return success;
      },
    );
  };
}
