import multipart, { type MultipartFile } from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireContext } from '../../http/auth.js';
import type { AppServices } from '../../services/index.js';
import { passageToWire } from '../../services/archival/archival-wire.js';
import { DUPLICATE_HANDLING, uploadTooLarge, type UploadInput } from '../../services/folders/folder-service.js';
import { fileToWire, folderStatsToWire, folderToWire } from '../../services/folders/folder-wire.js';
import { EmbeddingConfigSchema, Metadata } from '../../contracts/v1/agent-config.js';
import { pageOf, pageQuery } from '../../contracts/shared/paging.js';
import { PassageResponse } from '../../contracts/v1/archives.js';
import { FileMetadataResponse, FolderResponse, FolderStatsResponse } from '../../contracts/v1/folders.js';
import { CountResponse, NoContentResponse, NullResponse } from './shared/common-responses.js';
import { errorResponses } from './shared/error-responses.js';
import { queryBoolean } from '../../contracts/shared/query.js';

export type FolderRouteSettings = { maxUploadBytes: number };

export const FolderParams = z.object({ folder_id: z.string() });

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

const MetadataQuery = z.object({ include_detailed_per_source_metadata: queryBoolean.default(false) });

const UploadQuery = z.object({
  duplicate_handling: z.enum(DUPLICATE_HANDLING).default('suffix'),
  name: z.string().optional(),
});

const FILE_FIELD_REQUIRED = 'file is required: upload the file as a multipart/form-data file field named "file"';

/** A file part as the upload parser leaves it: its bytes with the name and type the client gave. */
const UploadedFile = z.object({ filename: z.string(), mimetype: z.string(), data: z.instanceof(Buffer) }, { error: FILE_FIELD_REQUIRED });

const UploadBody = z.object({ file: UploadedFile });

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

function uploadInput(body: z.infer<typeof UploadBody>, query: z.infer<typeof UploadQuery>): UploadInput {
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
    registerRoutesOfBothNames(app, services, 'folders', 'folder_id');

    app.get(
      '/folders/name/:folder_name',
      {
        schema: {
          tags: ['folders'],
          summary: 'The id of the folder of this name (deprecated: list with ?name=)',
          params: z.object({ folder_name: z.string() }),
          response: { 200: z.string().describe('The folder id'), ...errorResponses(404, 422) },
        },
      },
      // A bare id, sent as the JSON string it is (Fastify would send a returned string as plain text).
      async (request, reply) =>
        reply.type('application/json; charset=utf-8').send(JSON.stringify(await folders.idByName(requireContext(request), request.params.folder_name))),
    );

    app.get(
      '/folders/',
      {
        schema: {
          tags: ['folders'],
          summary: 'List folders',
          querystring: z.object({ name: z.string().optional(), ...pageQuery(50) }),
          response: { 200: z.array(FolderResponse), ...errorResponses(422) },
        },
      },
      async (request) => {
        const { query } = request;
        const found = await folders.list(
          requireContext(request),
          { name: query.name },
          pageOf(query, 'asc'),
        );
        return found.map(folderToWire);
      },
    );

    app.post(
      '/folders/',
      {
        schema: {
          tags: ['folders'],
          summary: 'Create a folder (with the local embedder unless told otherwise)',
          body: CreateFolderBody,
          response: { 200: FolderResponse, ...errorResponses(409, 422) },
        },
      },
      async (request) => folderToWire(await folders.create(requireContext(request), request.body)),
    );

    app.get(
      '/folders/:folder_id',
      {
        schema: {
          tags: ['folders'],
          summary: 'Get a folder',
          params: FolderParams,
          response: { 200: FolderResponse, ...errorResponses(404, 422) },
        },
      },
      async (request) => folderToWire(await folders.get(requireContext(request), request.params.folder_id)),
    );

    app.patch(
      '/folders/:folder_id',
      {
        schema: {
          tags: ['folders'],
          summary: 'Rename a folder or change its description, instructions or metadata',
          params: FolderParams,
          body: UpdateFolderBody,
          response: { 200: FolderResponse, ...errorResponses(404, 409, 422) },
        },
      },
      async (request) => folderToWire(await folders.update(requireContext(request), request.params.folder_id, request.body)),
    );

    app.get(
      '/folders/:folder_id/files',
      {
        schema: {
          tags: ['folders'],
          summary: "A folder's files with their processing status",
          params: FolderParams,
          querystring: z.object({ ...pageQuery(1000), ...IncludeContentQuery }),
          response: { 200: z.array(FileMetadataResponse), ...errorResponses(404, 422) },
        },
      },
      async (request) => {
        const { query } = request;
        const { folder, files } = await folders.listFiles(
          requireContext(request),
          request.params.folder_id,
          pageOf(query, 'desc'),
          query.include_content,
        );
        return files.map((file) => fileToWire(file, { includeContent: query.include_content, folderNameToStrip: folder.name }));
      },
    );

  };
}

type ZodApp = Parameters<FastifyPluginAsyncZod>[0];

/**
 * The routes `/v1/folders` and its deprecated name `/v1/sources` share but for the path's noun and the name
 * of the id parameter.
 */
export function registerRoutesOfBothNames(app: ZodApp, services: AppServices, noun: 'folders' | 'sources', idParam: 'folder_id' | 'source_id'): void {
  const { folders } = services;
  const one = noun === 'folders' ? 'folder' : 'source';
  const Params = z.object({ [idParam]: z.string() } as Record<typeof idParam, z.ZodString>);
  const FileParams = Params.extend({ file_id: z.string() });
  const idOf = (params: Record<string, string>) => params[idParam]!;
  const tags = [noun];

  app.get(`/${noun}/count`, { schema: { tags, summary: `Count the ${noun}`, response: { 200: CountResponse } } }, async (request) => folders.count(requireContext(request)));

  app.get(
    `/${noun}/metadata`,
    {
      schema: {
        tags,
        summary: `File counts and sizes of every ${one}`,
        querystring: MetadataQuery,
        response: { 200: FolderStatsResponse, ...errorResponses(422) },
      },
    },
    async (request) => {
      const detailed = request.query.include_detailed_per_source_metadata;
      return folderStatsToWire(await folders.stats(requireContext(request), detailed), detailed);
    },
  );

  app.delete(
    `/${noun}/:${idParam}`,
    {
      schema: {
        tags,
        summary: `Delete a ${one} with its files, detaching it from its agents`,
        params: Params,
        response: { 200: NullResponse, ...errorResponses(404, 422) },
      },
    },
    async (request) => {
      await folders.delete(requireContext(request), idOf(request.params));
      return null;
    },
  );

  app.post(
    `/${noun}/:${idParam}/upload`,
    {
      schema: {
        tags,
        summary: `Upload a file into a ${one}; it is parsed, chunked and embedded in the background`,
        consumes: ['multipart/form-data'],
        params: Params,
        querystring: UploadQuery,
        body: UploadBody,
        response: { 200: FileMetadataResponse, ...errorResponses(404, 409, 422) },
      },
    },
    async (request, reply) => {
      const { file, skipped } = await folders.upload(requireContext(request), idOf(request.params), uploadInput(request.body, request.query));
      if (skipped) reply.header('x-upload-result', 'skipped');
      return fileToWire(file);
    },
  );

  app.get(
    `/${noun}/:${idParam}/agents`,
    {
      schema: {
        tags,
        summary: `The ids of the agents using a ${one}`,
        params: Params,
        querystring: z.object(pageQuery(50)),
        response: { 200: z.array(z.string()), ...errorResponses(404, 422) },
      },
    },
    async (request) => {
      const { query } = request;
      return folders.listAgentIds(requireContext(request), idOf(request.params), pageOf(query, 'desc'));
    },
  );

  app.get(
    `/${noun}/:${idParam}/passages`,
    {
      schema: {
        tags,
        summary: `The chunks of a ${one}'s files`,
        params: Params,
        querystring: z.object(pageQuery(100)),
        response: { 200: z.array(PassageResponse), ...errorResponses(404, 422) },
      },
    },
    async (request) => {
      const { query } = request;
      const passages = await folders.listPassages(requireContext(request), idOf(request.params), pageOf(query, 'desc'));
      return passages.map(passageToWire);
    },
  );

  app.get(
    `/${noun}/:${idParam}/files/:file_id`,
    {
      schema: {
        tags,
        summary: `A file of a ${one}`,
        params: FileParams,
        querystring: z.object(IncludeContentQuery),
        response: { 200: FileMetadataResponse, ...errorResponses(404, 422) },
      },
    },
    async (request) => {
      const includeContent = request.query.include_content;
      const { folder, file } = await folders.getFile(requireContext(request), idOf(request.params), request.params.file_id, includeContent);
      return fileToWire(file, { includeContent, folderNameToStrip: folder.name });
    },
  );

  app.delete(
    `/${noun}/:${idParam}/:file_id`,
    {
      schema: {
        tags,
        summary: 'Delete a file with its chunks, closing it in every agent',
        params: FileParams,
        response: { 204: NoContentResponse, ...errorResponses(404, 422) },
      },
    },
    async (request, reply) => {
      await folders.deleteFile(requireContext(request), idOf(request.params), request.params.file_id);
      return reply.code(204).send();
    },
  );
}
