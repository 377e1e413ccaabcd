import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireContext } from '../../../http/auth.js';
import type { AppServices } from '../../../services/index.js';
import { agentToWire, blockToWire, memoryToWire } from '../../../services/agents/agent-wire.js';
import { AgentParams } from './agents.js';
import type { AgentInclude } from '../../../services/agents/agent-views.js';
import { Metadata } from '../../../contracts/v1/agent-config.js';
import { pageOf, pageQuery } from '../../../contracts/shared/paging.js';
import { BlockResponse } from '../../../contracts/v1/blocks.js';
import { errorResponses } from '../shared/error-responses.js';
import { AgentResponse, MemoryResponse } from '../../../contracts/v1/agents.js';

/** Blocks and, with them, the agent's files (its file blocks). */
const BLOCKS_ONLY: ReadonlySet<AgentInclude> = new Set(['agent.blocks']);

const BlockLabelParams = AgentParams.extend({ block_label: z.string() });
const BlockIdParams = AgentParams.extend({ block_id: z.string() });

/** Unknown keys are ignored, as the reference server's BlockUpdate does. */
const BlockUpdateBody = z.object({
  value: z.string().nullish(),
  limit: z.number().int().positive().nullish(),
  label: z.string().min(1).nullish(),
  description: z.string().nullish(),
  read_only: z.boolean().optional(),
  hidden: z.boolean().nullish(),
  metadata: Metadata.nullish(),
  tags: z.array(z.string()).nullish(),
  preserve_on_migration: z.boolean().nullish(),
});

export function coreMemoryRoutes(services: AppServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/agents/:agent_id/core-memory',
      {
        schema: {
          tags: ['agents'],
          summary: "An agent's core memory",
          params: AgentParams,
          response: { 200: MemoryResponse, ...errorResponses(404, 422) },
        },
      },
      async (request) => {
        const ctx = requireContext(request);
        const view = await services.agents.get(ctx, request.params.agent_id, BLOCKS_ONLY);
        return memoryToWire(view);
      },
    );

    app.get(
      '/agents/:agent_id/core-memory/blocks/',
      {
        schema: {
          tags: ['agents'],
          summary: "An agent's memory blocks",
          params: AgentParams,
          querystring: z.object(pageQuery(100)),
          response: { 200: z.array(BlockResponse), ...errorResponses(404, 422) },
        },
      },
      async (request) => {
        const { query } = request;
        const blocks = await services.coreMemory.listBlocks(requireContext(request), request.params.agent_id, pageOf(query, 'asc'));
        return blocks.map(blockToWire);
      },
    );

    app.get(
      '/agents/:agent_id/core-memory/blocks/:block_label',
      {
        schema: {
          tags: ['agents'],
          summary: 'A memory block of an agent, by label',
          params: BlockLabelParams,
          response: { 200: BlockResponse, ...errorResponses(404, 422) },
        },
      },
      async (request) =>
        blockToWire(await services.coreMemory.getBlock(requireContext(request), request.params.agent_id, request.params.block_label)),
    );

    app.patch(
      '/agents/:agent_id/core-memory/blocks/:block_label',
      {
        schema: {
          tags: ['agents'],
          summary: 'Edit a memory block of an agent, by label',
          params: BlockLabelParams,
          body: BlockUpdateBody,
          response: { 200: BlockResponse, ...errorResponses(404, 409, 422) },
        },
      },
      async (request) => {
        const { agent_id: agentId, block_label: label } = request.params;
        return blockToWire(await services.coreMemory.updateBlock(requireContext(request), agentId, label, request.body));
      },
    );

    app.patch(
      '/agents/:agent_id/core-memory/blocks/attach/:block_id',
      {
        schema: {
          tags: ['agents'],
          summary: 'Attach a block to an agent',
          params: BlockIdParams,
          response: { 200: AgentResponse, ...errorResponses(404, 409, 422) },
        },
      },
      async (request) =>
        agentToWire(await services.coreMemory.attachBlock(requireContext(request), request.params.agent_id, request.params.block_id)),
    );

    app.patch(
      '/agents/:agent_id/core-memory/blocks/detach/:block_id',
      {
        schema: {
          tags: ['agents'],
          summary: 'Detach a block from an agent',
          params: BlockIdParams,
          response: { 200: AgentResponse, ...errorResponses(404, 422) },
        },
      },
      async (request) =>
        agentToWire(await services.coreMemory.detachBlock(requireContext(request), request.params.agent_id, request.params.block_id)),
    );
  };
}
