import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireContext } from '../../http/auth.js';
import type { AppServices } from '../../services/index.js';
import { agentToWire, blockToWire } from '../../services/agents/agent-wire.js';
import { BlockAgentsQuery, BlockParams, CreateBlockBody, ListBlocksQuery, blockFilter } from './blocks.js';
import { pageOf } from '../../contracts/shared/paging.js';
import { AgentResponse } from '../../contracts/v1/agents.js';
import { BlockResponse } from '../../contracts/v1/blocks.js';
import { NullResponse } from './shared/common-responses.js';
import { errorResponses } from './shared/error-responses.js';

/** `/_internal_blocks`: the block routes the hosted product's own services call; undocumented, like the reference's. */
export function internalBlockRoutes(services: AppServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/_internal_blocks/',
      {
        schema: {
          hide: true,
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
      '/_internal_blocks/',
      {
        schema: {
          hide: true,
          body: CreateBlockBody,
          response: { 200: BlockResponse, ...errorResponses(404, 422) },
        },
      },
      async (request) => blockToWire(await services.blocks.create(requireContext(request), request.body)),
    );

    app.delete(
      '/_internal_blocks/:block_id',
      {
        schema: {
          hide: true,
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
      '/_internal_blocks/:block_id/agents',
      {
        schema: {
          hide: true,
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
  };
}
