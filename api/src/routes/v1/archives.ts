import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireContext } from '../../http/auth.js';
import type { AppServices } from '../../services/index.js';
import { agentToWire } from '../../services/agents/agent-wire.js';
import { archiveToWire, passageToWire } from '../../services/archival/archival-wire.js';
import { IncludeQuery } from './agents/agents.js';
import { EmbeddingConfigSchema, Metadata } from '../../contracts/v1/agent-config.js';
import { pageOf, pageQuery } from '../../contracts/shared/paging.js';
import { AgentResponse } from '../../contracts/v1/agents.js';
import { ArchiveResponse, PassageResponse } from '../../contracts/v1/archives.js';
import { NoContentResponse } from './shared/common-responses.js';
import { errorResponses } from './shared/error-responses.js';

const ArchiveParams = z.object({ archive_id: z.string() });
const ArchivePassageParams = ArchiveParams.extend({ passage_id: z.string() });

const CreateArchiveBody = z.strictObject({
  name: z.string().min(1),
  description: z.string().nullish(),
  embedding: z.string().nullish(),
  embedding_config: EmbeddingConfigSchema.nullish(),
});

const UpdateArchiveBody = z.strictObject({
  name: z.string().min(1).nullish(),
  description: z.string().nullish(),
});

const ListArchivesQuery = z.object({
  name: z.string().optional(),
  agent_id: z.string().optional(),
  ...pageQuery(50),
});

/** The body of one passage, here and in `POST /agents/{id}/archival-memory`. */
export const PassageBody = z.strictObject({
  text: z.string().min(1),
  tags: z.array(z.string()).nullish(),
  created_at: z.string().nullish(),
});

const ArchivePassageBody = PassageBody.extend({ metadata: Metadata.nullish() });

const ArchivePassageBatchBody = z.strictObject({ passages: z.array(ArchivePassageBody).min(1) });

export function archiveRoutes(services: AppServices): FastifyPluginAsyncZod {
  const { archives } = services;
  return async (app) => {
    app.post(
      '/archives/',
      {
        schema: {
          tags: ['archives'],
          summary: 'Create an archive',
          body: CreateArchiveBody,
          response: { 200: ArchiveResponse, ...errorResponses(422) },
        },
      },
      async (request) => archiveToWire(await archives.create(requireContext(request), request.body)),
    );

    app.get(
      '/archives/',
      {
        schema: {
          tags: ['archives'],
          summary: 'List archives',
          querystring: ListArchivesQuery,
          response: { 200: z.array(ArchiveResponse), ...errorResponses(422) },
        },
      },
      async (request) => {
        const { query } = request;
        const found = await archives.list(
          requireContext(request),
          { name: query.name, agentId: query.agent_id },
          pageOf(query, 'desc'),
        );
        return found.map(archiveToWire);
      },
    );

    app.get(
      '/archives/:archive_id',
      {
        schema: {
          tags: ['archives'],
          summary: 'Get an archive',
          params: ArchiveParams,
          response: { 200: ArchiveResponse, ...errorResponses(404, 422) },
        },
      },
      async (request) => archiveToWire(await archives.get(requireContext(request), request.params.archive_id)),
    );

    app.patch(
      '/archives/:archive_id',
      {
        schema: {
          tags: ['archives'],
          summary: "Rename an archive or change its description",
          params: ArchiveParams,
          body: UpdateArchiveBody,
          response: { 200: ArchiveResponse, ...errorResponses(404, 422) },
        },
      },
      async (request) => archiveToWire(await archives.update(requireContext(request), request.params.archive_id, request.body)),
    );

    app.delete(
      '/archives/:archive_id',
      {
        schema: {
          tags: ['archives'],
          summary: 'Delete an archive and its passages',
          params: ArchiveParams,
          response: { 204: NoContentResponse, ...errorResponses(404, 422) },
        },
      },
      async (request, reply) => {
        await archives.delete(requireContext(request), request.params.archive_id);
        return reply.code(204).send();
      },
    );

    app.get(
      '/archives/:archive_id/agents',
      {
        schema: {
          tags: ['archives'],
          summary: 'The agents using an archive',
          params: ArchiveParams,
          querystring: z.object({ ...IncludeQuery, ...pageQuery(50) }),
          response: { 200: z.array(AgentResponse), ...errorResponses(404, 422) },
        },
      },
      async (request) => {
        const { query } = request;
        const views = await archives.listAgents(
          requireContext(request),
          request.params.archive_id,
          pageOf(query, 'desc'),
          new Set(query.include ?? []),
        );
        return views.map(agentToWire);
      },
    );

    app.post(
      '/archives/:archive_id/passages',
      {
        schema: {
          tags: ['archives'],
          summary: 'Add a passage to an archive (embedded now)',
          params: ArchiveParams,
          body: ArchivePassageBody,
          response: { 200: PassageResponse, ...errorResponses(404, 422) },
        },
      },
      async (request) => {
        const [passage] = await archives.createPassages(requireContext(request), request.params.archive_id, [request.body], () => ['body']);
        return passageToWire(passage!);
      },
    );

    app.post(
      '/archives/:archive_id/passages/batch',
      {
        schema: {
          tags: ['archives'],
          summary: 'Add several passages to an archive',
          params: ArchiveParams,
          body: ArchivePassageBatchBody,
          response: { 200: z.array(PassageResponse), ...errorResponses(404, 422) },
        },
      },
      async (request) => {
        const ctx = requireContext(request);
        const created = await archives.createPassages(ctx, request.params.archive_id, request.body.passages, (index) => ['body', 'passages', index]);
        return created.map(passageToWire);
      },
    );

    app.delete(
      '/archives/:archive_id/passages/:passage_id',
      {
        schema: {
          tags: ['archives'],
          summary: 'Delete a passage of an archive',
          params: ArchivePassageParams,
          response: { 204: NoContentResponse, ...errorResponses(404, 422) },
        },
      },
      async (request, reply) => {
        await archives.deletePassage(requireContext(request), request.params.archive_id, request.params.passage_id);
        return reply.code(204).send();
      },
    );
  };
}
