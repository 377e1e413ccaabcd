import multipart, { type MultipartFile } from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireContext } from '../../http/auth.js';
import type { AppServices } from '../../services/index.js';
import { passageToWire } from '../../services/archival/archival-wire.js';
import { DUPLICATE_HANDLING, uploadTooLarge, type UploadInput } from '../../services/folders/folder-service.js';
import { fileToWire, folderStatsToWire, folderToWire } from '../../services/folders/folder-wire.js';
import { EmbeddingConfigSchema, Metadata, pageQuery, queryBoolean } from './agents/schemas.js';

export type FolderRouteSettings = { maxUploadBytes: number };

export const FolderParams = z.object({ folder_id: z.string() });
const FolderFileParams = FolderParams.extend({ file_id: z.string() });

/** The body of `POST /folders`; `POST /sources` asks for the embedding on top. */
export const CreateFolderBody = z.strictObject({
  name: z.string().min(1),
  description: z.string().nullish(),
  instructions: z.string().nullish(),
  metadata: Metadata.nullish(),
  embedding: z.string().nullish(),
  embedding_chunk_size: z.number().int().positive().nullish(),
  embedding_config: EmbeddingConfigSchema.nullish(),
});

export const UpdateFolderBody = z.strictObject({
  name: z.string().min(1).nullish(),
  description: z.string().nullish(),
  instructions: z.string().nullish(),
  metadata: Metadata.nullish(),
  embedding_config: EmbeddingConfigSchema.nullish(),
});

export const MetadataQuery = z.object({ include_detailed_per_source_metadata: queryBoolean.default(false) });

export const UploadQuery = z.object({
  duplicate_handling: z.enum(DUPLICATE_HANDLING).default('suffix'),
  name: z.string().optional(),
});

const FILE_FIELD_REQUIRED = 'file is required: upload the file as a multipart/form-data file field named "file"';

/** A file part as the upload parser leaves it: its bytes with the name and type the client gave. */
const UploadedFile = z.object({ filename: z.string(), mimetype: z.string(), data: z.instanceof(Buffer) }, { error: FILE_FIELD_REQUIRED });

export const UploadBody = z.object({ file: UploadedFile });

export const IncludeContentQuery = { include_content: queryBoolean.default(false) };

/**
 * Multipart parsing for the upload route of the plugin it is registered in (and no other). The file is read
 * into memory whole, refused with 413 as soon as it passes the configured maximum.
 */
export async function registerUploadParsing(app: FastifyInstance, settings: FolderRouteSettings): Promise<void> {
  await app.register(multipart, {
    attachFieldsToBody: 'keyValues',
    limits: { fileSize: settings.maxUploadBytes, files: 1 },
    async onFile(part: MultipartFile & { value?: unknown }) {
      try {
        part.value = { filename: part.filename, mimetype: part.mimetype, data: await part.toBuffer() };
      } catch (error) {
        if ((error as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') throw uploadTooLarge(settings.maxUploadBytes);
        throw error;
      }
    },
  });
}

export function uploadInput(body: z.infer<typeof UploadBody>, query: z.infer<typeof UploadQuery>): UploadInput {
  return {
    uploadedName: body.file.filename,
    declaredMime: body.file.mimetype,
    data: body.file.data,
    duplicateHandling: query.duplicate_handling,
    nameOverride: query.name,
  };
}

/** `/v1/folders`: folders of files that agents read, search and open. */
export function folderRoutes(services: AppServices, settings: FolderRouteSettings): FastifyPluginAsyncZod {
  const { folders } = services;
  return async (app) => {
    await registerUploadParsing(app, settings);

    app.get('/folders/count', { schema: { tags: ['folders'], summary: 'Count the folders' } }, async (request) =>
      folders.count(requireContext(request)),
    );

    app.get(
      '/folders/metadata',
      { schema: { tags: ['folders'], summary: 'File counts and sizes of every folder', querystring: MetadataQuery } },
      async (request) => {
        const detailed = request.query.include_detailed_per_source_metadata;
        return folderStatsToWire(await folders.stats(requireContext(request), detailed), detailed);
      },
    );

    app.get(
      '/folders/name/:folder_name',
      { schema: { tags: ['folders'], summary: 'The id of the folder of this name (deprecated: list with ?name=)', params: z.object({ folder_name: z.string() }) } },
      // A bare id, sent as the JSON string it is (Fastify would send a returned string as plain text).
      async (request, reply) =>
        reply.type('application/json; charset=utf-8').send(JSON.stringify(await folders.idByName(requireContext(request), request.params.folder_name))),
    );

    app.get(
      '/folders/',
      { schema: { tags: ['folders'], summary: 'List folders', querystring: z.object({ name: z.string().optional(), ...pageQuery(50) }) } },
      async (request) => {
        const { query } = request;
        const found = await folders.list(
          requireContext(request),
          { name: query.name },
          { before: query.before, after: query.after, limit: query.limit, order: query.order ?? 'asc' },
        );
        return found.map(folderToWire);
      },
    );

    app.post(
      '/folders/',
      { schema: { tags: ['folders'], summary: 'Create a folder (with the local embedder unless told otherwise)', body: CreateFolderBody } },
      async (request) => folderToWire(await folders.create(requireContext(request), request.body)),
    );

    app.get(
      '/folders/:folder_id',
      { schema: { tags: ['folders'], summary: 'Get a folder', params: FolderParams } },
      async (request) => folderToWire(await folders.get(requireContext(request), request.params.folder_id)),
    );

    app.patch(
      '/folders/:folder_id',
      { schema: { tags: ['folders'], summary: 'Rename a folder or change its description, instructions or metadata', params: FolderParams, body: UpdateFolderBody } },
      async (request) => folderToWire(await folders.update(requireContext(request), request.params.folder_id, request.body)),
    );

    app.delete(
      '/folders/:folder_id',
      { schema: { tags: ['folders'], summary: 'Delete a folder with its files, detaching it from its agents', params: FolderParams } },
      async (request) => {
        await folders.delete(requireContext(request), request.params.folder_id);
        return null;
      },
    );

    app.post(
      '/folders/:folder_id/upload',
      {
        schema: {
          tags: ['folders'],
          summary: 'Upload a file into a folder; it is parsed, chunked and embedded in the background',
          consumes: ['multipart/form-data'],
          params: FolderParams,
          querystring: UploadQuery,
          body: UploadBody,
        },
      },
      async (request, reply) => {
        const { file, skipped } = await folders.upload(requireContext(request), request.params.folder_id, uploadInput(request.body, request.query));
        if (skipped) reply.header('x-upload-result', 'skipped');
        return fileToWire(file);
      },
    );

    app.get(
      '/folders/:folder_id/agents',
      { schema: { tags: ['folders'], summary: 'The ids of the agents using a folder', params: FolderParams, querystring: z.object(pageQuery(50)) } },
      async (request) => {
        const { query } = request;
        return folders.listAgentIds(requireContext(request), request.params.folder_id, {
          before: query.before,
          after: query.after,
          limit: query.limit,
          order: query.order ?? 'desc',
        });
      },
    );

    app.get(
      '/folders/:folder_id/passages',
      { schema: { tags: ['folders'], summary: "The chunks of a folder's files", params: FolderParams, querystring: z.object(pageQuery(100)) } },
      async (request) => {
        const { query } = request;
        const passages = await folders.listPassages(requireContext(request), request.params.folder_id, {
          before: query.before,
          after: query.after,
          limit: query.limit,
          order: query.order ?? 'desc',
        });
        return passages.map(passageToWire);
      },
    );

    app.get(
      '/folders/:folder_id/files',
      {
        schema: {
          tags: ['folders'],
          summary: "A folder's files with their processing status",
          params: FolderParams,
          querystring: z.object({ ...pageQuery(1000), ...IncludeContentQuery }),
        },
      },
      async (request) => {
        const { query } = request;
        const { folder, files } = await folders.listFiles(
          requireContext(request),
          request.params.folder_id,
          { before: query.before, after: query.after, limit: query.limit, order: query.order ?? 'desc' },
          query.include_content,
        );
        return files.map((file) => fileToWire(file, { includeContent: query.include_content, folderNameToStrip: folder.name }));
      },
    );

    app.get(
      '/folders/:folder_id/files/:file_id',
      { schema: { tags: ['folders'], summary: 'A file of a folder', params: FolderFileParams, querystring: z.object(IncludeContentQuery) } },
      async (request) => {
        const includeContent = request.query.include_content;
        const { folder, file } = await folders.getFile(requireContext(request), request.params.folder_id, request.params.file_id, includeContent);
        return fileToWire(file, { includeContent, folderNameToStrip: folder.name });
      },
    );

    app.delete(
      '/folders/:folder_id/:file_id',
      { schema: { tags: ['folders'], summary: 'Delete a file with its chunks, closing it in every agent', params: FolderFileParams } },
      async (request, reply) => {
        await folders.deleteFile(requireContext(request), request.params.folder_id, request.params.file_id);
        return reply.code(204).send();
      },
    );
  };
}
