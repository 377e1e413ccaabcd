import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireContext } from '../../http/auth.js';
import type { AppServices } from '../../services/index.js';
import { fileToWire, sourceToWire } from '../../services/folders/folder-wire.js';
import { queryBoolean } from '../../contracts/shared/query.js';
import { cursorId } from '../../contracts/shared/input-limits.js';
import {
  CreateFolderBody,
  IncludeContentQuery,
  UpdateFolderBody,
  registerRoutesOfBothNames,
  registerUploadParsing,
  type FolderRouteSettings,
} from './folders.js';
import { FileMetadataResponse, SourceResponse } from '../../contracts/v1/folders.js';
import { errorResponses } from './shared/error-responses.js';

const SourceParams = z.object({ source_id: z.string() });

/** A source names how its files are embedded: a full config, or a model handle to resolve one from. */
const CreateSourceBody = CreateFolderBody.refine((body) => Boolean(body.embedding_config ?? body.embedding), {
  message: 'embedding_config is required (or an embedding model handle in embedding)',
  path: ['embedding_config'],
});

/**
 * `/v1/sources`: the deprecated name of `/v1/folders`, over the same service. It differs where the public API
 * does: an unpaginated list, lookup by name, `check_status_updates` on the file list, and sources naming
 * their vector store.
 */
export function sourceRoutes(services: AppServices, settings: FolderRouteSettings): FastifyPluginAsyncZod {
  const { folders } = services;
  return async (app) => {
    await registerUploadParsing(app, settings);
    registerRoutesOfBothNames(app, services, 'sources', 'source_id');

    app.get(
      '/sources/name/:source_name',
      {
        schema: {
          tags: ['sources'],
          summary: 'The id of the source of this name',
          params: z.object({ source_name: z.string() }),
          response: { 200: z.string().describe('The source id'), ...errorResponses(404, 422) },
        },
      },
      // A bare id, sent as the JSON string it is (Fastify would send a returned string as plain text).
      async (request, reply) =>
        reply.type('application/json; charset=utf-8').send(JSON.stringify(await folders.idByName(requireContext(request), request.params.source_name))),
    );

    app.get(
      '/sources/',
      {
        schema: {
          tags: ['sources'],
          summary: 'List every source',
          response: { 200: z.array(SourceResponse) },
        },
      },
      async (request) =>
        (await folders.list(requireContext(request), {})).map(sourceToWire),
    );

    app.post(
      '/sources/',
      {
        schema: {
          tags: ['sources'],
          summary: 'Create a source',
          body: CreateSourceBody,
          response: { 200: SourceResponse, ...errorResponses(409, 422) },
        },
      },
      async (request) =>
        sourceToWire(await folders.create(requireContext(request), request.body)),
    );

    app.get(
      '/sources/:source_id',
      {
        schema: {
          tags: ['sources'],
          summary: 'Get a source',
          params: SourceParams,
          response: { 200: SourceResponse, ...errorResponses(404, 422) },
        },
      },
      async (request) => sourceToWire(await folders.get(requireContext(request), request.params.source_id)),
    );

    app.patch(
      '/sources/:source_id',
      {
        schema: {
          tags: ['sources'],
          summary: 'Rename a source or change its description',
          params: SourceParams,
          body: UpdateFolderBody,
          response: { 200: SourceResponse, ...errorResponses(404, 409, 422) },
        },
      },
      async (request) => sourceToWire(await folders.update(requireContext(request), request.params.source_id, request.body)),
    );

    app.get(
      '/sources/:source_id/files',
      {
        schema: {
          tags: ['sources'],
          summary: "A source's files with their processing status, oldest first",
          params: SourceParams,
          querystring: z.object({
            limit: z.coerce.number().int().min(1).max(1000).default(1000),
            after: cursorId.optional(),
            ...IncludeContentQuery,
            // Marks files whose ingestion stopped without finishing them as `error` (the folder routes always do).
            check_status_updates: queryBoolean.default(true),
          }),
          response: { 200: z.array(FileMetadataResponse), ...errorResponses(404, 422) },
        },
      },
      async (request) => {
        const { query } = request;
        const { folder, files } = await folders.listFiles(
          requireContext(request),
          request.params.source_id,
          { after: query.after, limit: query.limit, order: 'asc' },
          query.include_content,
          query.check_status_updates,
        );
        return files.map((file) => fileToWire(file, { includeContent: query.include_content, folderNameToStrip: folder.name }));
      },
    );

  };
}
