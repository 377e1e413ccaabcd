import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireContext } from '../../../http/auth.js';
import type { AppServices } from '../../../services/index.js';
import { archivalSearchToWire, passageToWire } from '../../../services/archival/archival-wire.js';
import { PassageBody } from '../archives.js';
import { AgentParams } from './agents.js';
import { queryBoolean, queryList } from '../../../contracts/shared/query.js';
import { cursorId } from '../../../contracts/shared/input-limits.js';
import { ArchivalSearchResponse, PassageResponse } from '../../../contracts/v1/archives.js';
import { ConfirmationResponse, NullResponse } from '../shared/common-responses.js';
import { errorResponses } from '../shared/error-responses.js';

const AgentArchiveParams = AgentParams.extend({ archive_id: z.string() });
const MemoryParams = AgentParams.extend({ memory_id: z.string() });

const ListArchivalQuery = z.object({
  search: z.string().optional(),
  ascending: queryBoolean.default(true),
  before: cursorId.optional(),
  after: cursorId.optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});

const SearchArchivalQuery = z.object({
  query: z.string().min(1),
  tags: queryList(z.string()),
  tag_match_mode: z.enum(['any', 'all']).default('any'),
  top_k: z.coerce.number().int().min(1).max(100).optional(),
  start_datetime: z.string().optional(),
  end_datetime: z.string().optional(),
});

/** An agent's archival memory, and which archives it is made of. */
export function archivalMemoryRoutes(services: AppServices): FastifyPluginAsyncZod {
  const { archivalMemory, archives } = services;
  return async (app) => {
    app.get(
      '/agents/:agent_id/archival-memory',
      {
        schema: {
          tags: ['agents'],
          summary: "List an agent's archival memory",
          params: AgentParams,
          querystring: ListArchivalQuery,
          response: { 200: z.array(PassageResponse), ...errorResponses(404, 422) },
        },
      },
      async (request) => (await archivalMemory.list(requireContext(request), request.params.agent_id, request.query)).map(passageToWire),
    );

    app.post(
      '/agents/:agent_id/archival-memory',
      {
        schema: {
          tags: ['agents'],
          summary: "Insert one memory into an agent's archival memory",
          params: AgentParams,
          body: PassageBody,
          response: { 200: z.array(PassageResponse), ...errorResponses(404, 422) },
        },
      },
      async (request) => (await archivalMemory.insert(requireContext(request), request.params.agent_id, request.body)).map(passageToWire),
    );

    app.get(
      '/agents/:agent_id/archival-memory/search',
      {
        schema: {
          tags: ['agents'],
          summary: "Search an agent's archival memory by meaning and words (hybrid)",
          params: AgentParams,
          querystring: SearchArchivalQuery,
          response: { 200: ArchivalSearchResponse, ...errorResponses(404, 422) },
        },
      },
      async (request) => {
        const { ranked, timezone } = await archivalMemory.search(requireContext(request), request.params.agent_id, request.query);
        return archivalSearchToWire(ranked, timezone);
      },
    );

    app.delete(
      '/agents/:agent_id/archival-memory/:memory_id',
      {
        schema: {
          tags: ['agents'],
          summary: "Delete a memory from an agent's archival memory",
          params: MemoryParams,
          response: { 200: ConfirmationResponse, ...errorResponses(404, 422) },
        },
      },
      async (request) => {
        const { agent_id: agentId, memory_id: memoryId } = request.params;
        await archivalMemory.delete(requireContext(request), agentId, memoryId);
        return { message: `Memory id=${memoryId} successfully deleted` };
      },
    );

    app.patch(
      '/agents/:agent_id/archives/attach/:archive_id',
      {
        schema: {
          tags: ['agents'],
          summary: 'Attach an archive to an agent',
          params: AgentArchiveParams,
          response: { 200: NullResponse, ...errorResponses(404, 409, 422) },
        },
      },
      async (request) => {
        await archives.attach(requireContext(request), request.params.agent_id, request.params.archive_id);
        return null;
      },
    );

    app.patch(
      '/agents/:agent_id/archives/detach/:archive_id',
      {
        schema: {
          tags: ['agents'],
          summary: 'Detach an archive from an agent (its passages stay in the archive)',
          params: AgentArchiveParams,
          response: { 200: NullResponse, ...errorResponses(404, 422) },
        },
      },
      async (request) => {
        await archives.detach(requireContext(request), request.params.agent_id, request.params.archive_id);
        return null;
      },
    );
  };
}
