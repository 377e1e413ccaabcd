import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { acceptAgentFileUploads } from '../../shared/agent-file-upload.js';
import { requireContext } from '../../../http/auth.js';
import type { AppServices } from '../../../services/index.js';
import { EnvironmentVariableName, EnvironmentVariableValue } from '../../../services/sandbox/sandbox-settings.js';
import { AgentParams } from './agents.js';
import { queryBoolean } from '../../../contracts/shared/query.js';
import { errorResponses } from '../shared/error-responses.js';
import { AgentFileResponse, ImportedAgentsResponse } from '../../../contracts/v1/agent-files.js';

/** Agent files are for people to read too, so the export is indented (its own serializer, past the response schema's). */
const indentedJson = (document: unknown) => JSON.stringify(document, null, 2);


const ExportQuery = z.object({
  conversation_id: z.string().optional(),
  scrub_messages: queryBoolean.default(false),
  use_legacy_format: queryBoolean.default(false),
});

/** Clients send a null form field as the string `null` (a form cannot carry null); an empty field means unset too. */
const unsetAsUndefined = (value: unknown) => (value === '' || value === 'null' ? undefined : value);

const formText = z.preprocess(unsetAsUndefined, z.string().optional());

/** `secrets` and `env_vars_json`: a JSON object of variable names to values, sent as one form field. */
const formSecrets = z.preprocess(
  unsetAsUndefined,
  z
    .string()
    .transform((text, ctx) => {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        ctx.addIssue({ code: 'custom', message: 'must be a JSON object of variable names to string values' });
        return z.NEVER;
      }
    })
    .pipe(z.record(EnvironmentVariableName, EnvironmentVariableValue))
    .optional(),
);

/** The multipart form of `POST /agents/import`; the deprecated spellings of the public API are kept as aliases. */
const ImportBody = z.object({
  file: z.instanceof(Buffer, { error: 'file is required: upload the agent file as a multipart file field' }),
  name: formText,
  /** Deprecated alias of `name`. */
  override_name: formText,
  append_copy_suffix: queryBoolean.default(false),
  override_existing_tools: queryBoolean.default(true),
  strip_messages: queryBoolean.default(false),
  model: formText,
  /** Deprecated alias of `model`. */
  override_model_handle: formText,
  embedding: formText,
  /** Deprecated alias of `embedding`, as is the `x-override-embedding-model` header. */
  override_embedding_handle: formText,
  /** Deprecated: the project now comes from the `X-Project-Id` header. */
  project_id: formText,
  secrets: formSecrets,
  /** Deprecated alias of `secrets`. */
  env_vars_json: formSecrets,
});

const ImportHeaders = z.object({ 'x-override-embedding-model': z.string().optional() });

export function agentFileRoutes(services: AppServices): FastifyPluginAsyncZod {
  return async (app) => {
    await acceptAgentFileUploads(app);

    app.get(
      '/agents/:agent_id/export',
      {
        schema: {
          tags: ['agents'],
          summary: 'Export an agent as an agent file',
          params: AgentParams,
          querystring: ExportQuery,
          response: { 200: AgentFileResponse, ...errorResponses(400, 404, 422) },
        },
      },
      async (request, reply) => {
        const { query } = request;
        const document = await services.agentFiles.exportAgent(requireContext(request), request.params.agent_id, {
          scrubMessages: query.scrub_messages,
          conversationId: query.conversation_id,
          legacyFormat: query.use_legacy_format,
        });
        return reply.type('application/json; charset=utf-8').serializer(indentedJson).send(document);
      },
    );

    app.post(
      '/agents/import',
      {
        schema: {
          tags: ['agents'],
          summary: 'Import the agents of an agent file',
          consumes: ['multipart/form-data'],
          body: ImportBody,
          headers: ImportHeaders,
          response: { 200: ImportedAgentsResponse, ...errorResponses(409, 422) },
        },
      },
      async (request) => {
        const { body } = request;
        const agentIds = await services.agentFiles.importFile(requireContext(request), body.file, {
          name: body.name ?? body.override_name,
          appendCopySuffix: body.append_copy_suffix,
          overrideExistingTools: body.override_existing_tools,
          stripMessages: body.strip_messages,
          model: body.model ?? body.override_model_handle,
          embedding: body.embedding ?? body.override_embedding_handle ?? request.headers['x-override-embedding-model'],
          projectId: body.project_id,
          secrets: { ...body.env_vars_json, ...body.secrets },
        });
        return { agent_ids: agentIds };
      },
    );
  };
}
