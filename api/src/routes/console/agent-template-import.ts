import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { acceptAgentFileUploads } from '../shared/agent-file-upload.js';
import { requireContext } from '../../http/auth.js';
import type { AppServices } from '../../services/index.js';
import { AgentTemplateSchema, templateToWire } from './agent-templates-schema.js';


/** A form cannot carry null: an empty field means unset. */
const formText = z.preprocess((value) => (value === '' ? undefined : value), z.string().optional());

const ImportBody = z.object({
  file: z.instanceof(Buffer, { error: 'file is required: upload the agent file as a multipart file field' }),
  name: z.string({ error: 'name is required' }),
  description: formText,
  projectId: formText,
});

/** `POST /agent-template/import`: a template (saved as version 1) from an uploaded agent file. */
export function agentTemplateImportRoutes(services: AppServices): FastifyPluginAsyncZod {
  return async (app) => {
    await acceptAgentFileUploads(app);

    app.post(
      '/agent-template/import',
      {
        schema: {
          tags: ['console: agent templates'],
          summary: 'Create a template from an agent file',
          consumes: ['multipart/form-data'],
          body: ImportBody,
          response: { 201: AgentTemplateSchema },
        },
      },
      async (request, reply) => {
        const { body } = request;
        const view = await services.templates.importAgentFile(requireContext(request), body.file, {
          name: body.name,
          description: body.description,
          projectId: body.projectId,
        });
        return reply.code(201).send(templateToWire(view));
      },
    );
  };
}
