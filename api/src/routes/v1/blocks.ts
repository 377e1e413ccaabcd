import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireContext } from '../../http/auth.js';
import type { AppServices } from '../../services/index.js';
import { agentToWire, blockToWire } from '../../services/agents/agent-wire.js';
import type { BlockFilter } from '../../services/blocks/block-service.js';
import { IncludeQuery } from './agents/agents.js';
import { CreateBlockFields, Metadata, blockTemplateFields } from '../../contracts/v1/agent-config.js';
import { pageOf, pageQuery } from '../../contracts/shared/paging.js';
import { queryBoolean, queryList } from '../../contracts/shared/query.js';
import { AgentResponse } from '../../contracts/v1/agents.js';
import { BlockResponse } from '../../contracts/v1/blocks.js';
import { CountResponse, NullResponse } from './shared/common-responses.js';
import { errorResponses } from './shared/error-responses.js';

export const BlockParams = z.object({ block_id: z.string() });
const BlockIdentityParams = BlockParams.extend({ identity_id: z.string() });


/** Unknown keys are ignored, as the reference server's block schemas do. */
export const CreateBlockBody = z.object(CreateBlockFields);

const UpdateBlockBody = z.object({
  value: z.string().nullish(),
  limit: z.number().int().positive().nullish(),
  label: z.string().min(1).nullish(),
  description: z.string().nullish(),
  read_only: z.boolean().optional(),
  hidden: z.boolean().nullish(),
  metadata: Metadata.nullish(),
  tags: z.array(z.string()).nullish(),
  preserve_on_migration: z.boolean().nullish(),
  project_id: z.string().nullish(),
  ...blockTemplateFields,
});

const agentCount = z.coerce.number().int().min(0);

export const ListBlocksQuery = z.object({
  label: z.string().optional(),
  templates_only: queryBoolean.default(false),
  /** The template name, as in the reference server. */
  name: z.string().optional(),
  identity_id: z.string().optional(),
  identifier_keys: queryList(z.string()),
  project_id: z.string().optional(),
  tags: queryList(z.string()),
  match_all_tags: queryBoolean.default(false),
  label_search: z.string().optional(),
  description_search: z.string().optional(),
  value_search: z.string().optional(),
  connected_to_agents_count_gt: agentCount.optional(),
  connected_to_agents_count_lt: agentCount.optional(),
  connected_to_agents_count_eq: queryList(agentCount),
  ...pageQuery(50),
});

export const BlockAgentsQuery = z.object({ ...IncludeQuery, ...pageQuery(50) });

// The reference strips NUL bytes from a block's value; the block service does the same.
export const BLOCK_TEXT_STRIPPED_OF_NUL = ['value'] as const;

export function blockFilter(query: z.infer<typeof ListBlocksQuery>): BlockFilter {
  return {
    label: query.label,
    templatesOnly: query.templates_only,
    templateName: query.name,
    identityId: query.identity_id,
    identifierKeys: query.identifier_keys,
    projectId: query.project_id,
    tags: query.tags,
    matchAllTags: query.match_all_tags,
    labelSearch: query.label_search,
    descriptionSearch: query.description_search,
    valueSearch: query.value_search,
    connectedAgentsCountGt: query.connected_to_agents_count_gt,
    connectedAgentsCountLt: query.connected_to_agents_count_lt,
    connectedAgentsCountEq: query.connected_to_agents_count_eq,
  };
}

export function blockRoutes(services: AppServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/blocks/',
      {
        schema: {
          tags: ['blocks'],
          summary: 'List memory blocks',
          querystring: ListBlocksQuery,
          response: { 200: z.array(BlockResponse), ...errorResponses(422) },
        },
      },
      async (request) => {
        const { query } = request;
        const blocks = await services.blocks.list(requireContext(request), blockFilter(query), pageOf(query, 'asc'));
        return blocks.map(blockToWire);
      },
    );

    app.post(
      '/blocks/',
      {
        config: { nulStrippedBodyFields: BLOCK_TEXT_STRIPPED_OF_NUL },
        schema: {
          tags: ['blocks'],
          summary: 'Create a memory block',
          body: CreateBlockBody,
          response: { 200: BlockResponse, ...errorResponses(404, 422) },
        },
      },
      async (request) => blockToWire(await services.blocks.create(requireContext(request), request.body)),
    );

    app.get(
      '/blocks/count',
      { schema: { tags: ['blocks'], summary: "Count the organization's memory blocks", response: { 200: CountResponse } } },
      async (request) => services.blocks.count(requireContext(request)),
    );

    app.get(
      '/blocks/:block_id',
      {
        schema: {
          tags: ['blocks'],
          summary: 'Get a memory block',
          params: BlockParams,
          response: { 200: BlockResponse, ...errorResponses(404, 422) },
        },
      },
      async (request) => blockToWire(await services.blocks.get(requireContext(request), request.params.block_id)),
    );

    app.patch(
      '/blocks/:block_id',
      {
        config: { nulStrippedBodyFields: BLOCK_TEXT_STRIPPED_OF_NUL },
        schema: {
          tags: ['blocks'],
          summary: 'Edit a memory block (every agent using it sees the edit)',
          params: BlockParams,
          body: UpdateBlockBody,
          response: { 200: BlockResponse, ...errorResponses(404, 409, 422) },
        },
      },
      async (request) => blockToWire(await services.blocks.update(requireContext(request), request.params.block_id, request.body)),
    );

    app.delete(
      '/blocks/:block_id',
      {
        schema: {
          tags: ['blocks'],
          summary: 'Delete a memory block from every agent using it',
          params: BlockParams,
          response: { 200: NullResponse, ...errorResponses(404, 422) },
        },
      },
      async (request) => {
        await services.blocks.delete(requireContext(request), request.params.block_id);
        return null;
      },
    );

    app.get(
      '/blocks/:block_id/agents',
      {
        schema: {
          tags: ['blocks'],
          summary: 'The agents using a memory block',
          params: BlockParams,
          querystring: BlockAgentsQuery,
          response: { 200: z.array(AgentResponse), ...errorResponses(404, 422) },
        },
      },
      async (request) => {
        const { query } = request;
        const views = await services.blocks.listAgents(
          requireContext(request),
          request.params.block_id,
          pageOf(query, 'desc'),
          new Set(query.include ?? []),
        );
        return views.map(agentToWire);
      },
    );

    app.patch(
      '/blocks/:block_id/identities/attach/:identity_id',
      {
        schema: {
          tags: ['blocks'],
          summary: 'Attach an identity to a memory block',
          params: BlockIdentityParams,
          response: { 200: BlockResponse, ...errorResponses(404, 422) },
        },
      },
      async (request) => {
        const { block_id: blockId, identity_id: identityId } = request.params;
        return blockToWire(await services.blocks.attachIdentity(requireContext(request), blockId, identityId));
      },
    );

    app.patch(
      '/blocks/:block_id/identities/detach/:identity_id',
      {
        schema: {
          tags: ['blocks'],
          summary: 'Detach an identity from a memory block',
          params: BlockIdentityParams,
          response: { 200: BlockResponse, ...errorResponses(404, 422) },
        },
      },
      async (request) => {
        const { block_id: blockId, identity_id: identityId } = request.params;
        return blockToWire(await services.blocks.detachIdentity(requireContext(request), blockId, identityId));
      },
    );
  };
}
