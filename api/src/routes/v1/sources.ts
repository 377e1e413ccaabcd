import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireContext } from '../../http/auth.js';
import type { AppServices } from '../../services/index.js';
import { passageToWire } from '../../services/archival/archival-wire.js';
import { fileToWire, folderStatsToWire, sourceToWire } from '../../services/folders/folder-wire.js';
import { pageQuery, queryBoolean } from './agents/schemas.js';
import {
  CreateFolderBody,
  IncludeContentQuery,
  MetadataQuery,
  UpdateFolderBody,
  UploadBody,
  UploadQuery,
  registerUploadParsing,
  uploadInput,
  type FolderRouteSettings,
} from './folders.js';

const SourceParams = z.object({ source_id: z.string() });
const SourceFileParams = SourceParams.extend({ file_id: z.string() });

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

    app.get('/sources/count', { schema: { tags: ['sources'], summary: 'Count the sources' } }, async (request) =>
      folders.count(requireContext(request)),
    );

    app.get(
      '/sources/metadata',
      { schema: { tags: ['sources'], summary: 'File counts and sizes of every source', querystring: MetadataQuery } },
      async (request) => {
        const detailed = request.query.include_detailed_per_source_metadata;
        return folderStatsToWire(await folders.stats(requireContext(request), detailed), detailed);
      },
    );

    app.get(
      '/sources/name/:source_name',
      { schema: { tags: ['sources'], summary: 'The id of the source of this name', params: z.object({ source_name: z.string() }) } },
      // A bare id, sent as the JSON string it is (Fastify would send a returned string as plain text).
      async (request, reply) =>
        reply.type('application/json; charset=utf-8').send(JSON.stringify(await folders.idByName(requireContext(request), request.params.source_name))),
    );

    app.get('/sources/', { schema: { tags: ['sources'], summary: 'List every source' } }, async (request) =>
      (await folders.list(requireContext(request), {})).map(sourceToWire),
    );

    app.post('/sources/', { schema: { tags: ['sources'], summary: 'Create a source', body: CreateSourceBody } }, async (request) =>
      sourceToWire(await folders.create(requireContext(request), request.body)),
    );

    app.get(
      '/sources/:source_id',
      { schema: { tags: ['sources'], summary: 'Get a source', params: SourceParams } },
      async (request) => sourceToWire(await folders.get(requireContext(request), request.params.source_id)),
    );

    app.patch(
      '/sources/:source_id',
      { schema: { tags: ['sources'], summary: 'Rename a source or change its description', params: SourceParams, body: UpdateFolderBody } },
      async (request) => sourceToWire(await folders.update(requireContext(request), request.params.source_id, request.body)),
    );

    app.delete(
      '/sources/:source_id',
      { schema: { tags: ['sources'], summary: 'Delete a source with its files, detaching it from its agents', params: SourceParams } },
      async (request) => {
        await folders.delete(requireContext(request), request.params.source_id);
        return null;
      },
    );

    app.post(
      '/sources/:source_id/upload',
      {
        schema: {
          tags: ['sources'],
          summary: 'Upload a file into a source',
          consumes: ['multipart/form-data'],
          params: SourceParams,
          querystring: UploadQuery,
          body: UploadBody,
        },
      },
      async (request, reply) => {
        const { file, skipped } = await folders.upload(requireContext(request), request.params.source_id, uploadInput(request.body, request.query));
        if (skipped) reply.header('x-upload-result', 'skipped');
        return fileToWire(file);
      },
    );

    app.get(
      '/sources/:source_id/agents',
      { schema: { tags: ['sources'], summary: 'The ids of the agents using a source', params: SourceParams, querystring: z.object(pageQuery(50)) } },
      async (request) => {
        const { query } = request;
        return folders.listAgentIds(requireContext(request), request.params.source_id, {
          before: query.before,
          after: query.after,
          limit: query.limit,
          order: query.order ?? 'desc',
        });
      },
    );

    app.get(
      '/sources/:source_id/passages',
      { schema: { tags: ['sources'], summary: "The chunks of a source's files", params: SourceParams, querystring: z.object(pageQuery(100)) } },
      async (request) => {
        const { query } = request;
        const passages = await folders.listPassages(requireContext(request), request.params.source_id, {
          before: query.before,
          after: query.after,
          limit: query.limit,
          order: query.order ?? 'desc',
        });
        return passages.map(passageToWire);
      },
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
            after: z.string().optional(),
            ...IncludeContentQuery,
            // Statuses are written by the ingestion workflow as they change, so there is nothing to refresh.
            check_status_updates: queryBoolean.default(true),
          }),
        },
      },
      async (request) => {
        const { query } = request;
        const { folder, files } = await folders.listFiles(
          requireContext(request),
          request.params.source_id,
          { after: query.after, limit: query.limit, order: 'asc' },
          query.include_content,
        );
        return files.map((file) => fileToWire(file, { includeContent: query.include_content, folderNameToStrip: folder.name }));
      },
    );

    app.get(
      '/sources/:source_id/files/:file_id',
      { schema: { tags: ['sources'], summary: 'The metadata of a file of a source', params: SourceFileParams, querystring: z.object(IncludeContentQuery) } },
      async (request) => {
        const includeContent = request.query.include_content;
        const { folder, file } = await folders.getFile(requireContext(request), request.params.source_id, request.params.file_id, includeContent);
        return fileToWire(file, { includeContent, folderNameToStrip: folder.name });
      },
    );

    app.delete(
      '/sources/:source_id/:file_id',
      { schema: { tags: ['sources'], summary: 'Delete a file of a source', params: SourceFileParams } },
      async (request, reply) => {
        await folders.deleteFile(requireContext(request), request.params.source_id, request.params.file_id);
        return reply.code(204).send();
      },
    );
  };
}
