import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { STOP_REASONS } from '@engram/core';
import { requireContext } from '../../../http/auth.js';
import type { AppServices } from '../../../services/index.js';
import { AGENT_INCLUDES, EVERY_RELATIONSHIP } from '../../../services/agents/agent-views.js';
import { agentToWire } from '../../../services/agents/agent-wire.js';
import {
  AGENT_TYPES,
  CreateBlockFields,
  EmbeddingConfigSchema,
  LlmConfigSchema,
  Metadata,
  ModelSettingsSchema,
  ResponseFormatSchema,
  ToolRuleSchema,
} from '../../../contracts/v1/agent-config.js';
import { pageQuery } from '../../../contracts/shared/paging.js';
import { queryBoolean, queryList } from '../../../contracts/shared/query.js';
import { CountResponse, ConfirmationResponse } from '../shared/common-responses.js';
import { errorResponses } from '../shared/error-responses.js';
import { AgentResponse } from '../../../contracts/v1/agents.js';
import { SentContentPart } from '../../../contracts/v1/messages.js';

export const AgentParams = z.object({ agent_id: z.string() });

/** Strict like the rest of the agent's create body (`POST /blocks` ignores unknown keys). */
const CreateBlock = z.strictObject(CreateBlockFields);

const InitialMessage = z.strictObject({
  type: z.literal('message').nullish(),
  role: z.enum(['user', 'system', 'assistant']),
  content: z.union([z.string(), z.array(SentContentPart)]),
  name: z.string().nullish(),
  otid: z.string().nullish(),
  sender_id: z.string().nullish(),
  batch_item_id: z.string().nullish(),
  group_id: z.string().nullish(),
});

const SecretMap = z.record(z.string(), z.string());

/** The model fields of create and update. */
const modelFields = {
  model: z.string().nullish(),
  llm_config: LlmConfigSchema.nullish(),
  embedding: z.string().nullish(),
  embedding_config: EmbeddingConfigSchema.nullish(),
  context_window_limit: z.number().int().positive().nullish(),
  max_tokens: z.number().int().positive().nullish(),
  model_settings: ModelSettingsSchema.nullish(),
  parallel_tool_calls: z.boolean().nullish(),
};

/** Every field of the public create payload; unknown keys are a 422, as with the reference server. */
export const CreateAgentBody = z.strictObject({
  ...modelFields,
  name: z.string().min(1).optional(),
  agent_type: z.enum(AGENT_TYPES).optional(),
  system: z.string().nullish(),
  description: z.string().nullish(),
  metadata: Metadata.nullish(),
  tags: z.array(z.string()).nullish(),
  memory_blocks: z.array(CreateBlock).nullish(),
  block_ids: z.array(z.string()).nullish(),
  tool_ids: z.array(z.string()).nullish(),
  tools: z.array(z.string()).nullish(),
  include_base_tools: z.boolean().optional(),
  include_base_tool_rules: z.boolean().nullish(),
  tool_rules: z.array(ToolRuleSchema).nullish(),
  timezone: z.string().nullish(),
  message_buffer_autoclear: z.boolean().optional(),
  initial_message_sequence: z.array(InitialMessage).nullish(),
  project_id: z.string().nullish(),
  project: z.string().nullish(),
  secrets: SecretMap.nullish(),
  tool_exec_environment_variables: SecretMap.nullish(),
  max_files_open: z.number().int().min(1).max(1000).nullish(),
  per_file_view_window_char_limit: z.number().int().min(1).max(2_147_483_647).nullish(),
  hidden: z.boolean().nullish(),
  response_format: ResponseFormatSchema.nullish(),
  folder_ids: z.array(z.string()).nullish(),
  source_ids: z.array(z.string()).nullish(),
  identity_ids: z.array(z.string()).nullish(),
  include_multi_agent_tools: z.boolean().optional(),
  enable_sleeptime: z.boolean().nullish(),
  // Accepted for compatibility with existing clients; default sources and compaction settings are not part of
  // an agent here yet, so these are not acted on.
  include_default_source: z.boolean().optional(),
  enable_reasoner: z.boolean().nullish(),
  reasoning: z.boolean().nullish(),
  max_reasoning_tokens: z.number().int().nullish(),
  embedding_chunk_size: z.number().int().nullish(),
  compaction_settings: z.looseObject({}).nullish(),
  template_id: z.string().nullish(),
  base_template_id: z.string().nullish(),
  /** `name:version` of a template to build the agent from, its placeholders filled from `memory_variables`. */
  from_template: z.string().nullish(),
  memory_variables: z.record(z.string(), z.string()).nullish(),
  /** Also make a template of the new agent (named after it). */
  template: z.boolean().optional(),
});

/** Update ignores unknown keys, as the reference server's UpdateAgent does. */
const UpdateAgentBody = z.object({
  ...modelFields,
  name: z.string().min(1).nullish(),
  system: z.string().nullish(),
  description: z.string().nullish(),
  metadata: Metadata.nullish(),
  tags: z.array(z.string()).nullish(),
  block_ids: z.array(z.string()).nullish(),
  tool_ids: z.array(z.string()).nullish(),
  tool_rules: z.array(ToolRuleSchema).nullish(),
  message_ids: z.array(z.string()).nullish(),
  folder_ids: z.array(z.string()).nullish(),
  source_ids: z.array(z.string()).nullish(),
  timezone: z.string().nullish(),
  message_buffer_autoclear: z.boolean().nullish(),
  project_id: z.string().nullish(),
  secrets: SecretMap.nullish(),
  tool_exec_environment_variables: SecretMap.nullish(),
  max_files_open: z.number().int().min(1).max(1000).nullish(),
  per_file_view_window_char_limit: z.number().int().min(1).max(2_147_483_647).nullish(),
  hidden: z.boolean().nullish(),
  response_format: ResponseFormatSchema.nullish(),
  last_run_completion: z.iso.datetime({ offset: true }).nullish(),
  last_run_duration_ms: z.number().int().min(0).nullish(),
  last_stop_reason: z.enum(STOP_REASONS).nullish(),
  enable_sleeptime: z.boolean().nullish(),
});

export const IncludeQuery = { include: queryList(z.enum(AGENT_INCLUDES)) };

const filterFields = {
  name: z.string().optional(),
  tags: queryList(z.string()),
  match_all_tags: queryBoolean.default(false),
  query_text: z.string().optional(),
  project_id: z.string().optional(),
  created_by_id: z.string().optional(),
  last_stop_reason: z.string().optional(),
  template_id: z.string().optional(),
  base_template_id: z.string().optional(),
  identity_id: z.string().optional(),
  identifier_keys: queryList(z.string()),
};

const ListAgentsQuery = z.object({
  ...filterFields,
  ...IncludeQuery,
  ...pageQuery(50),
  order_by: z.enum(['created_at', 'updated_at', 'last_run_completion']).optional(),
  // Deprecated spellings of order and order_by.
  ascending: queryBoolean.optional(),
  sort_by: z.enum(['created_at', 'updated_at', 'last_run_completion']).optional(),
});

const CountAgentsQuery = z.object(filterFields);

function agentFilter(query: z.infer<typeof CountAgentsQuery>) {
  return {
    name: query.name,
    tags: query.tags,
    matchAllTags: query.match_all_tags,
    queryText: query.query_text,
    projectId: query.project_id,
    createdById: query.created_by_id,
    lastStopReason: query.last_stop_reason,
    templateId: query.template_id,
    baseTemplateId: query.base_template_id,
    identityId: query.identity_id,
    identifierKeys: query.identifier_keys,
  };
}

export function agentCrudRoutes(services: AppServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/agents/',
      {
        schema: {
          tags: ['agents'],
          summary: 'Create an agent',
          body: CreateAgentBody,
          response: { 200: AgentResponse, ...errorResponses(404, 409, 422) },
        },
      },
      async (request) => {
        const ctx = requireContext(request);
        const { body } = request;
        if (!body.from_template && !body.template) return agentToWire(await services.agents.create(ctx, body));
        const agentId = body.from_template
          ? await services.templates.createAgent(ctx, body.from_template, {
              agentName: body.name,
              tags: body.tags ?? undefined,
              identityIds: body.identity_ids ?? undefined,
              memoryVariables: body.memory_variables ?? undefined,
              toolVariables: { ...body.tool_exec_environment_variables, ...body.secrets },
              initialMessageSequence: body.initial_message_sequence ?? undefined,
            })
          : (await services.agents.create(ctx, body)).agent.id;
        if (body.template) await services.templates.createFromAgent(ctx, agentId);
        return agentToWire(await services.agents.get(ctx, agentId, EVERY_RELATIONSHIP));
      },
    );

    app.get(
      '/agents/',
      {
        schema: {
          tags: ['agents'],
          summary: 'List agents',
          querystring: ListAgentsQuery,
          response: { 200: z.array(AgentResponse), ...errorResponses(422) },
        },
      },
      async (request) => {
        const { query } = request;
        const order = query.order ?? (query.ascending ? 'asc' : 'desc');
        const orderBy = query.order_by ?? query.sort_by ?? 'created_at';
        const views = await services.agents.list(
          requireContext(request),
          agentFilter(query),
          { before: query.before, after: query.after, limit: query.limit, order, orderBy },
          new Set(query.include ?? []),
        );
        return views.map(agentToWire);
      },
    );

    app.get(
      '/agents/count',
      {
        schema: {
          tags: ['agents'],
          summary: 'Count agents',
          querystring: CountAgentsQuery,
          response: { 200: CountResponse, ...errorResponses(422) },
        },
      },
      async (request) => services.agents.count(requireContext(request), agentFilter(request.query)),
    );

    app.get(
      '/agents/:agent_id',
      {
        schema: {
          tags: ['agents'],
          summary: 'Get an agent',
          params: AgentParams,
          querystring: z.object(IncludeQuery),
          response: { 200: AgentResponse, ...errorResponses(404, 422) },
        },
      },
      async (request) =>
        agentToWire(await services.agents.get(requireContext(request), request.params.agent_id, new Set(request.query.include ?? []))),
    );

    app.patch(
      '/agents/:agent_id',
      {
        schema: {
          tags: ['agents'],
          summary: 'Update an agent',
          params: AgentParams,
          body: UpdateAgentBody,
          response: { 200: AgentResponse, ...errorResponses(404, 409, 422) },
        },
      },
      async (request) => agentToWire(await services.agents.update(requireContext(request), request.params.agent_id, request.body)),
    );

    app.delete(
      '/agents/:agent_id',
      {
        schema: {
          tags: ['agents'],
          summary: 'Delete an agent with its history',
          params: AgentParams,
          response: { 200: ConfirmationResponse, ...errorResponses(404, 422) },
        },
      },
      async (request) => {
        const ctx = requireContext(request);
        // Its scheduled messages stop first (one missed here finds no record when it fires and removes itself).
        await services.schedules.deleteAgentSchedules(ctx.organizationId, request.params.agent_id);
        await services.agents.delete(ctx, request.params.agent_id);
        return { message: `Agent id=${request.params.agent_id} successfully deleted` };
      },
    );
  };
}
