import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireContext } from '../../http/auth.js';
import type { AppServices } from '../../services/index.js';
import { toolToWire } from '../../services/agents/agent-wire.js';
import { EnvironmentVariableName, EnvironmentVariableValue, PipRequirementSchema } from '../../services/sandbox/sandbox-settings.js';
import { pageOf, pageQuery } from '../../contracts/shared/paging.js';
import { queryBoolean, queryList } from '../../contracts/shared/query.js';
import { CountResponse, NullResponse } from './shared/common-responses.js';
import { errorResponses } from './shared/error-responses.js';
import { GeneratedToolResponse, ToolJsonSchemaResponse, ToolResponse, ToolRunResponse, ToolSearchResultResponse } from '../../contracts/v1/tools.js';

const ToolParams = z.object({ tool_id: z.string() });

const NpmRequirementSchema = z.strictObject({ name: z.string().min(1), version: z.string().nullish() });
const JsonObject = z.record(z.string(), z.unknown());

const toolFields = {
  source_type: z.string().optional(),
  json_schema: JsonObject.nullish(),
  args_json_schema: JsonObject.nullish(),
  description: z.string().nullish(),
  tags: z.array(z.string()).nullish(),
  return_char_limit: z.number().int().min(1).max(1_000_000).optional(),
  pip_requirements: z.array(PipRequirementSchema).nullish(),
  npm_requirements: z.array(NpmRequirementSchema).nullish(),
  default_requires_approval: z.boolean().nullish(),
  enable_parallel_execution: z.boolean().nullish(),
};

/** `ToolCreate` (also the upsert body). The name is not sent: it is the schema's, derived or given. */
const ToolCreateBody = z.strictObject({ source_code: z.string().min(1), ...toolFields });

const ToolUpdateBody = z.strictObject({
  ...toolFields,
  source_code: z.string().min(1).nullish(),
  source_type: z.string().nullish(),
  return_char_limit: z.number().int().min(1).max(1_000_000).nullish(),
  metadata_: JsonObject.nullish(),
});

/** Repeated parameters or comma-separated values, as the public API accepts both. */
const listParam = queryList(z.string()).transform((values) => values?.flatMap((value) => value.split(',')).filter((value) => value !== ''));

const toolFilterQuery = {
  name: z.string().optional(),
  names: listParam,
  tool_ids: listParam,
  search: z.string().optional(),
  tool_types: listParam,
  exclude_tool_types: listParam,
  return_only_letta_tools: queryBoolean.optional(),
  exclude_letta_tools: queryBoolean.optional(),
};

const ListToolsQuery = z.object({ ...toolFilterQuery, ...pageQuery(50) });
const CountToolsQuery = z.object(toolFilterQuery);

/** `ToolRunFromSource`. */
const RunToolBody = z.strictObject({
  source_code: z.string().min(1),
  args: JsonObject,
  env_vars: z.record(EnvironmentVariableName, EnvironmentVariableValue).nullish(),
  name: z.string().nullish(),
  source_type: z.string().nullish(),
  args_json_schema: JsonObject.nullish(),
  json_schema: JsonObject.nullish(),
  pip_requirements: z.array(PipRequirementSchema).nullish(),
  npm_requirements: z.array(NpmRequirementSchema).nullish(),
});

/** `CodeInput`. */
const GenerateSchemaBody = z.strictObject({ code: z.string().min(1), source_type: z.string().nullish() });

/** `GenerateToolInput`. */
const GenerateToolBody = z.strictObject({
  tool_name: z.string().min(1),
  prompt: z.string().min(1),
  handle: z.string().nullish(),
  starter_code: z.string().nullish(),
  validation_errors: z.array(z.string()).default([]),
});

function filterOf(query: z.infer<typeof CountToolsQuery>) {
  return {
    name: query.name,
    names: query.names,
    toolIds: query.tool_ids,
    search: query.search,
    toolTypes: query.tool_types,
    excludeToolTypes: query.exclude_tool_types,
    returnOnlyLettaTools: query.return_only_letta_tools,
    excludeLettaTools: query.exclude_letta_tools,
  };
}

export function toolRoutes(services: AppServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/tools/',
      {
        schema: {
          tags: ['tools'],
          summary: "The organization's tools",
          querystring: ListToolsQuery,
          response: { 200: z.array(ToolResponse), ...errorResponses(422) },
        },
      },
      async (request) => {
        const { query } = request;
        const tools = await services.tools.list(requireContext(request), filterOf(query), pageOf(query, 'desc'));
        return tools.map(toolToWire);
      },
    );

    app.post(
      '/tools/search',
      {
        schema: {
          tags: ['tools'],
          summary: "Search the organization's tools by words of their names, descriptions and tags",
          body: z
            .object({
              query: z.string().max(1000).nullish(),
              search_mode: z.enum(['vector', 'fts', 'hybrid']).default('hybrid'),
              tags: z.array(z.string()).nullish(),
              tool_types: z.array(z.string()).nullish(),
              limit: z.number().int().min(1).max(100).default(50),
            })
            .strict(),
          response: { 200: z.array(ToolSearchResultResponse), ...errorResponses(422) },
        },
      },
      async (request) => {
        const body = request.body;
        const found = await services.tools.search(requireContext(request), { query: body.query, tags: body.tags, toolTypes: body.tool_types, limit: body.limit });
        return found.map(({ tool, score, rank }) => ({ tool: toolToWire(tool), combined_score: score, fts_rank: rank, vector_rank: null, embedded_text: null }));
      },
    );

    app.get(
      '/tools/count',
      { schema: { tags: ['tools'], summary: 'Count tools', querystring: CountToolsQuery, response: { 200: CountResponse, ...errorResponses(422) } } },
      async (request) => services.tools.count(requireContext(request), filterOf(request.query)),
    );

    app.post(
      '/tools/',
      { schema: { tags: ['tools'], summary: 'Create a tool', body: ToolCreateBody, response: { 200: ToolResponse, ...errorResponses(409, 422) } } },
      async (request) => toolToWire(await services.tools.create(requireContext(request), request.body)),
    );

    app.put(
      '/tools/',
      {
        schema: {
          tags: ['tools'],
          summary: 'Create a tool, or update the tool of the same name',
          body: ToolCreateBody,
          response: { 200: ToolResponse, ...errorResponses(409, 422) },
        },
      },
      async (request) => toolToWire(await services.tools.upsert(requireContext(request), request.body)),
    );

    app.get(
      '/tools/:tool_id',
      { schema: { tags: ['tools'], summary: 'Get a tool', params: ToolParams, response: { 200: ToolResponse, ...errorResponses(404, 422) } } },
      async (request) => toolToWire(await services.tools.get(requireContext(request), request.params.tool_id)),
    );

    app.patch(
      '/tools/:tool_id',
      {
        schema: {
          tags: ['tools'],
          summary: 'Update a tool',
          params: ToolParams,
          body: ToolUpdateBody,
          response: { 200: ToolResponse, ...errorResponses(404, 409, 422) },
        },
      },
      async (request) => toolToWire(await services.tools.update(requireContext(request), request.params.tool_id, request.body)),
    );

    app.delete(
      '/tools/:tool_id',
      {
        schema: {
          tags: ['tools'],
          summary: 'Delete a tool (detaching it from every agent)',
          params: ToolParams,
          response: { 200: NullResponse, ...errorResponses(404, 422) },
        },
      },
      async (request) => {
        await services.tools.delete(requireContext(request), request.params.tool_id);
        return null;
      },
    );

    app.post(
      '/tools/add-base-tools',
      { schema: { tags: ['tools'], summary: "Create the organization's built-in tools", response: { 200: z.array(ToolResponse) } } },
      async (request) => (await services.tools.addBaseTools(requireContext(request))).map(toolToWire),
    );

    app.post(
      '/tools/run',
      {
        schema: {
          tags: ['tools'],
          summary: 'Run tool source in the sandbox without saving it',
          body: RunToolBody,
          response: { 200: ToolRunResponse, ...errorResponses(422) },
        },
      },
      async (request) => services.tools.run(requireContext(request), request.body),
    );

    app.post(
      '/tools/generate-schema',
      {
        schema: {
          tags: ['tools'],
          summary: "A Python function's tool JSON schema",
          body: GenerateSchemaBody,
          response: { 200: ToolJsonSchemaResponse, ...errorResponses(422) },
        },
      },
      async (request) => services.tools.generateSchema(request.body.code, request.body.source_type ?? 'python'),
    );

    app.post(
      '/tools/generate-tool',
      {
        schema: {
          tags: ['tools'],
          summary: 'Ask a model to write a tool (not saved)',
          body: GenerateToolBody,
          response: { 200: GeneratedToolResponse, ...errorResponses(422) },
        },
      },
      async (request) => {
        const generated = await services.toolGenerator.generate(requireContext(request), request.body);
        return { tool: toolToWire(generated.tool), sample_args: generated.sampleArgs, response: generated.response };
      },
    );
  };
}
