import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { RETRYABLE_MODEL_ERRORS } from '@engram/core';
import { FileUpload, Source, SourceFile, type Database, type SecretBox } from '@engram/db';
import { openFileInAttachedAgents } from '@engram/db/queries/file-agents';
import type { Knex } from 'knex';
import { createEmbedder, createPassageStore } from '@engram/integrations/archival';
import {
  chunkingOptions,
  chunkPassageId,
  chunkStyleFor,
  chunkText,
  extractFileText,
  FileParseError,
  fileTypeFor,
  planChunkBatches,
  type ChunkCursor,
  type ChunkingOptions,
} from '@engram/integrations/files';
import { classifyProviderError, ModelCallError, type BaseProviderConfig } from '@engram/integrations/llm';
import type { EgressPolicy } from '@engram/integrations/egress';
import { whileHeartbeating } from '../heartbeat.js';

export type FileIngestionDeps = { db: Database; baseProviders: BaseProviderConfig[]; secrets: SecretBox; egress: Pick<EgressPolicy, 'fetchFor'> };

export type FileRef = { organizationId: string; fileId: string };

/** A run of consecutive chunks embedded by one activity call: where it starts, and how many. */
export type ChunkBatch = ChunkCursor & { count: number };

/** Every step ends this way when the file (or its folder) was deleted meanwhile: the workflow stops quietly. */
export type FileDeleted = { outcome: 'file_deleted' };

/**
 * Chunks embedded per activity call. Large enough that per-call overhead (reading the text back, one
 * transaction) is small beside the embedding, small enough that a retried batch redoes little.
 */
export const CHUNKS_PER_BATCH = 128;

const HEARTBEAT_EVERY_MS = 2000;
const FOREIGN_KEY_VIOLATION = '23503';


const isForeignKeyViolation = (error: unknown) => (error as { code?: string } | null)?.code === FOREIGN_KEY_VIOLATION;

/**
 * The activities of `fileIngestionWorkflow`: parse an upload into the file's content, plan its chunks,
 * embed them batch by batch as passages of the folder, and record the outcome on the file.
 */
export function createFileIngestionActivities(deps: FileIngestionDeps) {
  const { db } = deps;
  const passages = createPassageStore({ db, embedder: createEmbedder(deps) });

  const loadFile = (ref: FileRef, runner: Knex = db) => SourceFile.query(runner).forOrg(ref.organizationId).findById(ref.fileId);

  /** The file with its folder's embedding config and how its text is chunked; undefined when either is gone. */
  async function loadForChunking(ref: FileRef) {
    const file = await loadFile(ref);
    if (!file) return undefined;
    const source = await Source.query(db).forOrg(ref.organizationId).findById(file.sourceId).select('id', 'embeddingConfig');
    if (!source) return undefined;
    const kind = fileTypeFor(file.originalFileName, file.fileType)?.kind ?? 'text';
    const options: ChunkingOptions = chunkingOptions({ chunkTokens: source.embeddingConfig?.embedding_chunk_size, style: chunkStyleFor(kind) });
    return { file, source, options };
  }

  function embeddingFailure(error: unknown): ApplicationFailure {
    const classified = error instanceof ModelCallError ? error : classifyProviderError(error);
    return ApplicationFailure.create({
      type: classified.kind,
      message: `Embedding the file's chunks failed: ${classified.message}`,
      nonRetryable: !RETRYABLE_MODEL_ERRORS.has(classified.kind),
    });
  }

  return {
    /**
     * Extracts the upload's text into `files.content` and, in the same transaction, opens the file in
     * every agent its folder is attached to. An unreadable file fails without retries.
     */
    async parseUploadedFile(ref: FileRef): Promise<{ outcome: 'parsed'; characters: number } | FileDeleted> {
      return whileHeartbeating(HEARTBEAT_EVERY_MS, async () => {
        const file = await loadFile(ref);
        const upload = file && (await FileUpload.query(db).forOrg(ref.organizationId).findById(ref.fileId));
        if (!file || !upload) return { outcome: 'file_deleted' as const };
        const kind = fileTypeFor(file.originalFileName, file.fileType)?.kind;
        if (!kind) {
          throw ApplicationFailure.nonRetryable(`Files of type '${file.fileType}' cannot be ingested.`, 'unsupported_file_type');
        }
        let content: string;
        try {
          content = await extractFileText(upload.data, kind);
        } catch (error) {
          if (error instanceof FileParseError) throw ApplicationFailure.nonRetryable(error.message, 'file_parse_error');
          throw error;
        }
        return db.transaction(async (trx) => {
          const updated = await SourceFile.query(trx)
            .forOrg(ref.organizationId)
            .findById(ref.fileId)
            .patch({ content, processingStatus: 'parsing', errorMessage: null });
          if (updated === 0) return { outcome: 'file_deleted' as const };
          await openFileInAttachedAgents(trx, ref.organizationId, ref.fileId, new Date());
          return { outcome: 'parsed' as const, characters: content.length };
        });
      });
    },

    /**
     * Chunks the content and records how many chunks there are (status `embedding`). Only where each
     * batch starts is returned: the chunks themselves are recomputed by the batch that embeds them.
     */
    async chunkParsedFile(ref: FileRef): Promise<{ outcome: 'chunked'; totalChunks: number; batches: ChunkBatch[] } | FileDeleted> {
      return whileHeartbeating(HEARTBEAT_EVERY_MS, async () => {
        const loaded = await loadForChunking(ref);
        if (!loaded) return { outcome: 'file_deleted' as const };
        const { totalChunks, batches } = planChunkBatches(loaded.file.content ?? '', loaded.options, CHUNKS_PER_BATCH);
        const updated = await SourceFile.query(db)
          .forOrg(ref.organizationId)
          .findById(ref.fileId)
          .patch({ processingStatus: 'embedding', totalChunks, chunksEmbedded: 0 });
        if (updated === 0) return { outcome: 'file_deleted' as const };
        return { outcome: 'chunked' as const, totalChunks, batches };
      });
    },

    /**
     * Embeds one batch of chunks and writes them as passages under ids derived from the file and chunk
     * index (a retry writes nothing twice), then records how many chunks of the file are embedded.
     */
    async embedFileChunks(input: FileRef & ChunkBatch): Promise<{ outcome: 'embedded'; chunksEmbedded: number } | FileDeleted> {
      return whileHeartbeating(HEARTBEAT_EVERY_MS, async () => {
        const loaded = await loadForChunking(input);
        if (!loaded) return { outcome: 'file_deleted' as const };
        const { file, source, options } = loaded;
        const chunks = [...chunkText(file.content ?? '', options, { index: input.index, start: input.start }, input.count)];
        if (chunks.length !== input.count) {
          throw ApplicationFailure.nonRetryable("The file's text changed while it was being ingested.", 'file_changed');
        }
        let prepared;
        try {
          prepared = await passages.prepareFileChunks({
            organizationId: input.organizationId,
            file: { sourceId: file.sourceId, fileId: file.id, fileName: file.fileName },
            embeddingConfig: source.embeddingConfig,
            // Dated after the file, one millisecond apart, so a file's chunks list in order.
            chunks: chunks.map((chunk) => ({
              id: chunkPassageId(file.id, chunk.index),
              text: chunk.text,
              metadata: { chunk_index: chunk.index },
              createdAt: new Date(new Date(file.createdAt).getTime() + chunk.index),
            })),
            signal: Context.current().cancellationSignal,
          });
        } catch (error) {
          throw embeddingFailure(error);
        }
        try {
          return await db.transaction(async (trx) => {
            await passages.writeFileChunks(trx, prepared);
            // Batches of one file commit one at a time from here on, so each counts the others' committed chunks.
            const locked = await SourceFile.query(trx).forOrg(input.organizationId).findById(input.fileId).select('id').forNoKeyUpdate();
            if (!locked) return { outcome: 'file_deleted' as const };
            const chunksEmbedded = await countChunks(trx, input);
            await SourceFile.query(trx).forOrg(input.organizationId).findById(input.fileId).patch({ chunksEmbedded });
            return { outcome: 'embedded' as const, chunksEmbedded };
          });
        } catch (error) {
          if (isForeignKeyViolation(error)) return { outcome: 'file_deleted' as const };
          throw error;
        }
      });
    },

    /** Marks the file completed, with the number of its chunks actually stored. */
    async completeFileIngestion(ref: FileRef): Promise<{ outcome: 'completed' } | FileDeleted> {
      const chunksEmbedded = await countChunks(db, ref);
      const updated = await SourceFile.query(db)
        .forOrg(ref.organizationId)
        .findById(ref.fileId)
        .patch({ processingStatus: 'completed', chunksEmbedded, errorMessage: null });
      return updated === 0 ? { outcome: 'file_deleted' } : { outcome: 'completed' };
    },

    /** Marks the file failed with the reason; a file deleted meanwhile needs nothing. */
    async markFileIngestionFailed(input: FileRef & { message: string }): Promise<void> {
      await SourceFile.query(db).forOrg(input.organizationId).findById(input.fileId).patch({ processingStatus: 'error', errorMessage: input.message });
    },
  };
}

async function countChunks(runner: Knex, ref: FileRef): Promise<number> {
  const [row] = await runner('passages').where({ organization_id: ref.organizationId, file_id: ref.fileId }).count<Array<{ count: string }>>('* as count');
  return Number(row?.count ?? 0);
}

export type FileIngestionActivities = ReturnType<typeof createFileIngestionActivities>;
