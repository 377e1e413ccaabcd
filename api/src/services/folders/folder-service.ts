import {
  Agent,
  FileAgent,
  FileUpload,
  Passage,
  Source,
  SourceAgent,
  SourceFile,
  detachFolderFromAgent,
  newId,
  recompileSystemMessage,
  type Database,
  type EmbeddingConfig,
  type FileProcessingStatus,
  VISIBLE_AGENT,
} from '@engram/db';
import { LOCAL_EMBEDDING_CONFIG, LOCAL_EMBEDDING_HANDLE } from '@engram/integrations/archival';
import { ACCEPTED_EXTENSIONS, fileTypeFor } from '@engram/integrations/files';
import type { FileIngestionClient } from '@engram/temporal/client';
import type { Knex } from 'knex';
import { UniqueViolationError } from 'objection';
import { BadRequestError, ConflictError, NotFoundError, PayloadTooLargeError, UnsupportedMediaTypeError } from '../../errors.js';
import type { RequestContext } from '../../http/request-context.js';
import { keysetPage, type PageRequest } from '../shared/paging.js';
import type { ModelService } from '../models/model-service.js';
import { folderFileName, sanitizeUploadedName } from './file-names.js';
import type { FolderStats } from './types.js';
import type { TierLimitGuard } from '../tenancy/tier-limits.js';

/** `POST /folders` and `POST /sources`. */
export type CreateFolderInput = {
  name: string;
  description?: string | null | undefined;
  instructions?: string | null | undefined;
  metadata?: Record<string, unknown> | null | undefined;
  /** An embedding model handle; `engram/hashed-ngram-256` names the built-in local embedder. */
  embedding?: string | null | undefined;
  embedding_chunk_size?: number | null | undefined;
  embedding_config?: EmbeddingConfig | null | undefined;
};

export type UpdateFolderInput = {
  name?: string | null | undefined;
  description?: string | null | undefined;
  instructions?: string | null | undefined;
  metadata?: Record<string, unknown> | null | undefined;
  embedding_config?: EmbeddingConfig | null | undefined;
};

/** What to do when the folder already has a file of the uploaded name. */
export const DUPLICATE_HANDLING = ['suffix', 'skip', 'error', 'replace'] as const;
export type DuplicateHandling = (typeof DUPLICATE_HANDLING)[number];

export type UploadInput = {
  /** The name the client gave the file part. */
  uploadedName: string;
  /** The content type the client gave the file part. */
  declaredMime: string;
  data: Buffer;
  duplicateHandling: DuplicateHandling;
  /** The `name` query parameter: kept as the file's name instead of the uploaded one. */
  nameOverride?: string | undefined;
};

/** `skipped`: the folder already had the file and `duplicate_handling=skip` returned it untouched. */
export type UploadResult = { file: SourceFile; skipped: boolean };

export type FolderServiceDeps = {
  db: Database;
  models: Pick<ModelService, 'resolveEmbeddingConfig'>;
  fileIngestion: Pick<FileIngestionClient, 'start' | 'progress'>;
  /** The tier's data-source, storage and upload limits, enforced while billing is on. */
  limits: Pick<TierLimitGuard, 'assertWithinLimit' | 'assertFileUpload'>;
};

const IN_PROGRESS: ReadonlySet<FileProcessingStatus> = new Set(['pending', 'parsing', 'embedding']);
/** An ingestion writes its file's row at each batch, every second or so; a minute of silence is worth a look. */
const STALLED_AFTER_MS = 60_000;

/** Every column of `files` but the parsed text, which listings read only when asked to. */
const FILE_COLUMNS_WITHOUT_CONTENT = [
  'id',
  'organization_id',
  'source_id',
  'file_name',
  'original_file_name',
  'file_path',
  'file_type',
  'file_size',
  'file_creation_date',
  'file_last_modified_date',
  'processing_status',
  'error_message',
  'total_chunks',
  'chunks_embedded',
  'created_at',
  'updated_at',
].map((column) => `files.${column}`);

export async function findFolder(db: Knex, organizationId: string, folderId: string): Promise<Source> {
  const folder = await Source.query(db).forOrg(organizationId).findById(folderId);
  if (!folder) throw new NotFoundError('Folder');
  return folder;
}

async function findFileInFolder(db: Knex, organizationId: string, folderId: string, fileId: string, includeContent: boolean): Promise<SourceFile> {
  const query = SourceFile.query(db).forOrg(organizationId).where({ 'files.id': fileId, 'files.source_id': folderId });
  if (!includeContent) query.select(FILE_COLUMNS_WITHOUT_CONTENT);
  const file = await query.first();
  if (!file) throw new NotFoundError('File');
  return file;
}

/** 52428800 → `50 MB`, 1536 → `1.5 KB`. */
function readableSize(bytes: number): string {
  const [unit, size] = bytes >= 1024 * 1024 ? ['MB', bytes / (1024 * 1024)] : bytes >= 1024 ? ['KB', bytes / 1024] : ['bytes', bytes];
  return `${Math.round(size * 10) / 10} ${unit}`;
}

/** The route refuses an upload past the configured maximum while reading it, before it reaches the service. */
export function uploadTooLarge(maxUploadBytes: number): PayloadTooLargeError {
  return new PayloadTooLargeError(`File is larger than the maximum upload size of ${readableSize(maxUploadBytes)} (${maxUploadBytes} bytes)`);
}

/**
 * `/v1/folders` and the deprecated `/v1/sources`: folders, the files uploaded into them (stored here, then
 * parsed, chunked and embedded by the ingestion workflow), and the chunks that come out.
 */
export function createFolderService(deps: FolderServiceDeps) {
  const { db } = deps;

  async function embeddingConfigFor(ctx: RequestContext, input: CreateFolderInput): Promise<EmbeddingConfig> {
    if (input.embedding_config) return input.embedding_config;
    const chunkSize = input.embedding_chunk_size ?? undefined;
    const resolved =
      !input.embedding || input.embedding === LOCAL_EMBEDDING_HANDLE ? LOCAL_EMBEDDING_CONFIG : await deps.models.resolveEmbeddingConfig(ctx, input.embedding);
    return chunkSize === undefined ? resolved : { ...resolved, embedding_chunk_size: chunkSize };
  }

  const duplicateName = (name: string) => new ConflictError(`A folder named '${name}' already exists`);

  /** Recompiles the prompts of the agents attached to a folder, whose `<directories>` show it. */
  async function recompileAttachedAgents(trx: Knex, organizationId: string, folderId: string): Promise<void> {
    const attached = await SourceAgent.query(trx).forOrg(organizationId).where({ sourceId: folderId }).orderBy('agentId');
    const now = new Date();
    for (const { agentId } of attached) await recompileSystemMessage(trx, organizationId, agentId, now);
  }

  /** Deletes a file (its chunks and its place in agents' views go with it) and recompiles the prompts that showed it. */
  async function deleteFileRow(trx: Knex, organizationId: string, fileId: string): Promise<void> {
    const viewers = await FileAgent.query(trx).forOrg(organizationId).where({ fileId }).orderBy('agentId').select('agentId');
    await SourceFile.query(trx).forOrg(organizationId).deleteById(fileId);
    const now = new Date();
    for (const { agentId } of viewers) await recompileSystemMessage(trx, organizationId, agentId, now);
  }

  /** The name the next copy of `originalName` gets, skipping names a renamed upload may already hold. */
  async function freeFileName(trx: Knex, organizationId: string, folder: Source, originalName: string): Promise<string> {
    let copies = await SourceFile.query(trx).forOrg(organizationId).where({ sourceId: folder.id, originalFileName: originalName }).resultSize();
    for (;;) {
      const candidate = folderFileName(folder.name, originalName, copies);
      const taken = await SourceFile.query(trx).forOrg(organizationId).where({ sourceId: folder.id, fileName: candidate }).resultSize();
      if (taken === 0) return candidate;
      copies += 1;
    }
  }


  /**
   * A file still in progress whose ingestion workflow is no longer running (an operator terminated it, or
   * it was never started) would stay in progress forever: it is marked `error`, saying so. Only files quiet
   * for a while are looked at, so a file whose workflow is just being started, and the common case of a
   * healthy ingestion, cost no call to Temporal.
   */
  async function closeAbandonedIngestion(file: SourceFile): Promise<SourceFile> {
    if (!IN_PROGRESS.has(file.processingStatus) || Date.now() - file.updatedAt.getTime() < STALLED_AFTER_MS) return file;
    const progress = await deps.fileIngestion.progress(file.id);
    if (progress.running) return file;
    const errorMessage = `Ingestion stopped before the file was ready (its workflow is ${progress.ended.toLowerCase().replaceAll('_', ' ')}); upload the file again.`;
    const closed = await SourceFile.query(db)
      .forOrg(file.organizationId)
      .findById(file.id)
      .whereIn('processing_status', [...IN_PROGRESS])
      .patch({ processingStatus: 'error', errorMessage });
    return closed > 0 ? Object.assign(file, { processingStatus: 'error' as const, errorMessage }) : file;
  }

  return {
    /** Without a page, every folder, oldest first (the deprecated `GET /sources`). */
    async list(ctx: RequestContext, filter: { name?: string | undefined }, page?: PageRequest): Promise<Source[]> {
      const query = Source.query(db).forOrg(ctx.organizationId);
      if (filter.name !== undefined) query.where('sources.name', filter.name);
      if (!page) return query.orderBy([{ column: 'sources.created_at' }, { column: 'sources.id' }]);
      return keysetPage(query, page, { table: 'sources' });
    },

    async count(ctx: RequestContext): Promise<number> {
      return Source.query(db).forOrg(ctx.organizationId).resultSize();
    },

    async get(ctx: RequestContext, folderId: string): Promise<Source> {
      return findFolder(db, ctx.organizationId, folderId);
    },

    async idByName(ctx: RequestContext, name: string): Promise<string> {
      const folder = await Source.query(db).forOrg(ctx.organizationId).findOne({ name });
      if (!folder) throw new NotFoundError('Folder');
      return folder.id;
    },

    async create(ctx: RequestContext, input: CreateFolderInput): Promise<Source> {
      const embeddingConfig = await embeddingConfigFor(ctx, input);
      try {
        return await db.transaction(async (trx) => {
          await deps.limits.assertWithinLimit(trx, ctx.organizationId, 'dataSources');
          return Source.query(trx)
            .insert({
              id: newId('source'),
              organizationId: ctx.organizationId,
              name: input.name,
              description: input.description ?? null,
              instructions: input.instructions ?? null,
              metadata: input.metadata ?? {},
              embeddingConfig,
              vectorDbProvider: 'native',
              createdById: ctx.userId,
              lastUpdatedById: ctx.userId,
            })
            .returning('*');
        });
      } catch (error) {
        if (error instanceof UniqueViolationError) throw duplicateName(input.name);
        throw error;
      }
    },

    /**
     * A rename moves the folder's files to the new `<folder>/` prefix (the paths agents open them by), and
     * every change reaches the prompts of the agents using the folder.
     */
    async update(ctx: RequestContext, folderId: string, input: UpdateFolderInput): Promise<Source> {
      try {
        return await db.transaction(async (trx) => {
          const folder = await Source.query(trx).forOrg(ctx.organizationId).findById(folderId).forUpdate();
          if (!folder) throw new NotFoundError('Folder');
          const embeddingChanges = input.embedding_config && JSON.stringify(input.embedding_config) !== JSON.stringify(folder.embeddingConfig);
          if (embeddingChanges && (await SourceFile.query(trx).forOrg(ctx.organizationId).where({ sourceId: folderId }).resultSize()) > 0) {
            // Its chunks were embedded with the current model; search would compare vectors of two different models.
            throw new BadRequestError('The embedding of a folder that has files cannot change; create a new folder with the new embedding instead');
          }
          const oldName = folder.name;
          const renamed = input.name && input.name !== oldName ? input.name : undefined;
          const updated = await Source.query(trx).forOrg(ctx.organizationId).patchAndFetchById(folderId, {
            ...(renamed ? { name: renamed } : {}),
            ...(input.description !== undefined ? { description: input.description } : {}),
            ...(input.instructions !== undefined ? { instructions: input.instructions } : {}),
            ...(input.metadata ? { metadata: input.metadata } : {}),
            ...(input.embedding_config ? { embeddingConfig: input.embedding_config } : {}),
            lastUpdatedById: ctx.userId,
          });
          if (renamed) {
            const moved = trx.raw('? || substr(file_name, ?)', [`${renamed}/`, oldName.length + 2]);
            const underOldName = (query: Knex.QueryBuilder) =>
              query.where({ organization_id: ctx.organizationId, source_id: folderId }).whereRaw('starts_with(file_name, ?)', [`${oldName}/`]);
            await underOldName(trx('files')).update({ file_name: moved });
            await underOldName(trx('files_agents')).update({ file_name: moved });
            await underOldName(trx('passages')).update({ file_name: moved });
          }
          await recompileAttachedAgents(trx, ctx.organizationId, folderId);
          return updated;
        });
      } catch (error) {
        if (error instanceof UniqueViolationError) throw duplicateName(input.name ?? '');
        throw error;
      }
    },

    /** Detaches the folder from its agents (their prompts and file tools follow), then deletes it with its files and chunks. */
    async delete(ctx: RequestContext, folderId: string): Promise<void> {
      await db.transaction(async (trx) => {
        await findFolder(trx, ctx.organizationId, folderId);
        const attached = await SourceAgent.query(trx).forOrg(ctx.organizationId).where({ sourceId: folderId }).orderBy('agentId');
        const now = new Date();
        for (const { agentId } of attached) await detachFolderFromAgent(trx, ctx.organizationId, agentId, folderId, now);
        await Source.query(trx).forOrg(ctx.organizationId).deleteById(folderId);
      });
    },

    async listAgentIds(ctx: RequestContext, folderId: string, page: PageRequest): Promise<string[]> {
      await findFolder(db, ctx.organizationId, folderId);
      const query = Agent.query(db)
        .forOrg(ctx.organizationId)
        .whereRaw(VISIBLE_AGENT)
        .whereExists(SourceAgent.query(db).whereColumn('sources_agents.agent_id', 'agents.id').where('sources_agents.source_id', folderId))
        .select('agents.id', 'agents.created_at');
      return (await keysetPage(query, page, { table: 'agents' })).map((agent) => agent.id);
    },

    async listPassages(ctx: RequestContext, folderId: string, page: PageRequest): Promise<Passage[]> {
      await findFolder(db, ctx.organizationId, folderId);
      return keysetPage(Passage.query(db).forOrg(ctx.organizationId).where('passages.source_id', folderId), page, { table: 'passages' });
    },

    /** `checkStatusUpdates`: files whose ingestion ended without closing them are marked `error` first. */
    async listFiles(
      ctx: RequestContext,
      folderId: string,
      page: PageRequest,
      includeContent: boolean,
      checkStatusUpdates = true,
    ): Promise<{ folder: Source; files: SourceFile[] }> {
      const folder = await findFolder(db, ctx.organizationId, folderId);
      const query = SourceFile.query(db).forOrg(ctx.organizationId).where('files.source_id', folderId);
      if (!includeContent) query.select(FILE_COLUMNS_WITHOUT_CONTENT);
      const files = await keysetPage(query, page, { table: 'files' });
      return { folder, files: checkStatusUpdates ? await Promise.all(files.map((file) => closeAbandonedIngestion(file))) : files };
    },

    async getFile(ctx: RequestContext, folderId: string, fileId: string, includeContent: boolean): Promise<{ folder: Source; file: SourceFile }> {
      const folder = await findFolder(db, ctx.organizationId, folderId);
      return { folder, file: await closeAbandonedIngestion(await findFileInFolder(db, ctx.organizationId, folderId, fileId, includeContent)) };
    },

    async deleteFile(ctx: RequestContext, folderId: string, fileId: string): Promise<void> {
      await db.transaction(async (trx) => {
        await findFolder(trx, ctx.organizationId, folderId);
        await findFileInFolder(trx, ctx.organizationId, folderId, fileId, false);
        await deleteFileRow(trx, ctx.organizationId, fileId);
      });
    },

    /** Every folder of the organization with its file count and size, by name; per-file detail when asked for. */
    async stats(ctx: RequestContext, detailed: boolean): Promise<FolderStats[]> {
      const rows = (await Source.query(db)
        .forOrg(ctx.organizationId)
        .leftJoin('files', 'files.source_id', 'sources.id')
        .groupBy('sources.id', 'sources.name')
        .orderBy([{ column: 'sources.name' }, { column: 'sources.id' }])
        .select('sources.id', 'sources.name', db.raw('count(files.id)::int as file_count'), db.raw('coalesce(sum(files.file_size), 0)::bigint as total_size'))) as unknown as Array<{
        id: string;
        name: string;
        fileCount: number;
        totalSize: string;
      }>;
      const filesByFolder = new Map<string, NonNullable<FolderStats['files']>>();
      if (detailed) {
        const files = await SourceFile.query(db)
          .forOrg(ctx.organizationId)
          .orderBy([{ column: 'files.file_name' }, { column: 'files.id' }])
          .select('files.id', 'files.source_id', 'files.file_name', 'files.file_size');
        for (const file of files) {
          const list = filesByFolder.get(file.sourceId) ?? [];
          list.push({ fileId: file.id, fileName: file.fileName, fileSize: Number(file.fileSize) });
          filesByFolder.set(file.sourceId, list);
        }
      }
      return rows.map((row) => ({
        sourceId: row.id,
        sourceName: row.name,
        fileCount: row.fileCount,
        totalSize: Number(row.totalSize),
        ...(detailed ? { files: filesByFolder.get(row.id) ?? [] } : {}),
      }));
    },

    /**
     * Stores the upload (row and bytes in one transaction, status `parsing`) and starts its ingestion, returning
     * at once. A file that cannot be ingested because the workflow would not start is kept, marked `error`.
     */
    async upload(ctx: RequestContext, folderId: string, input: UploadInput): Promise<UploadResult> {
      const fileType = fileTypeFor(input.uploadedName, input.declaredMime);
      if (!fileType) {
        throw new UnsupportedMediaTypeError(
          `Unsupported file type: ${input.declaredMime || 'unknown'} (filename: ${input.uploadedName}). ` +
            `Supported types: PDF, text and Markdown, JSON and other data formats, and code files (${ACCEPTED_EXTENSIONS.join(', ')}).`,
        );
      }
      const originalName = input.nameOverride?.trim() || sanitizeUploadedName(input.uploadedName);
      if (!originalName) throw new BadRequestError(`The uploaded file has no usable name (${JSON.stringify(input.uploadedName)}); pass one with the name query parameter`);

      const stored = await db.transaction(async (trx): Promise<UploadResult> => {
        // Uploads into one folder take turns, so two copies of a name never pick the same suffix.
        const folder = await Source.query(trx).forOrg(ctx.organizationId).findById(folderId).forUpdate();
        if (!folder) throw new NotFoundError('Folder');
        const existing = await SourceFile.query(trx)
          .forOrg(ctx.organizationId)
          .where({ sourceId: folderId, originalFileName: originalName })
          .orderBy([{ column: 'createdAt' }, { column: 'id' }])
          .select(FILE_COLUMNS_WITHOUT_CONTENT)
          .first();
        if (existing && input.duplicateHandling === 'error') {
          throw new BadRequestError(`File '${originalName}' already exists in folder '${folder.name}'`);
        }
        if (existing && input.duplicateHandling === 'skip') return { file: existing, skipped: true };
        if (existing && input.duplicateHandling === 'replace') await deleteFileRow(trx, ctx.organizationId, existing.id);
        await deps.limits.assertFileUpload(trx, ctx.organizationId, input.data.length);

        const file = await SourceFile.query(trx)
          .insert({
            id: newId('file'),
            organizationId: ctx.organizationId,
            sourceId: folderId,
            fileName: await freeFileName(trx, ctx.organizationId, folder, originalName),
            originalFileName: originalName,
            filePath: null,
            fileType: fileType.mime,
            fileSize: input.data.length,
            fileCreationDate: null,
            fileLastModifiedDate: null,
            processingStatus: 'parsing',
            errorMessage: null,
            totalChunks: null,
            chunksEmbedded: null,
            content: null,
          })
          .returning('*');
        await FileUpload.query(trx).insert({ fileId: file.id, organizationId: ctx.organizationId, data: input.data });
        return { file, skipped: false };
      });
      if (stored.skipped) return stored;

      try {
        await deps.fileIngestion.start({ organizationId: ctx.organizationId, fileId: stored.file.id });
        return stored;
      } catch (error) {
        const message = `File processing could not be started: ${error instanceof Error ? error.message : String(error)}`;
        const failed = await SourceFile.query(db)
          .forOrg(ctx.organizationId)
          .patchAndFetchById(stored.file.id, { processingStatus: 'error', errorMessage: message });
        return { file: failed, skipped: false };
      }
    },
  };
}

export type FolderService = ReturnType<typeof createFolderService>;
