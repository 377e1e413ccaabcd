import { z } from 'zod';
import { FILE_PROCESSING_STATUSES } from '@engram/db';
import { Metadata } from './agent-config.js';
import { EmbeddingConfigResponse } from './models.js';

const folderFields = {
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  instructions: z.string().nullable(),
  metadata: Metadata,
  embedding_config: EmbeddingConfigResponse,
  organization_id: z.string(),
  created_at: z.string().nullable(),
  updated_at: z.string().nullable(),
  created_by_id: z.string().nullable(),
  last_updated_by_id: z.string().nullable(),
};

/** The wire `Folder`. */
export const FolderResponse = z.object(folderFields).meta({ id: 'Folder' });

/** The wire `Source` of the deprecated `/sources` routes (and an agent's `sources`): a folder that also names its vector store. */
export const SourceResponse = z.object({ ...folderFields, vector_db_provider: z.literal('native') }).meta({ id: 'Source' });

export type FolderWire = z.infer<typeof FolderResponse>;
export type SourceWire = z.infer<typeof SourceResponse>;

/** The wire `FileMetadata`: a file of a folder and where its ingestion stands. */
export const FileMetadataResponse = z
  .object({
    id: z.string(),
    source_id: z.string(),
    file_name: z.string(),
    original_file_name: z.string(),
    file_path: z.string().nullable(),
    file_type: z.string(),
    file_size: z.number().int(),
    file_creation_date: z.string().nullable(),
    file_last_modified_date: z.string().nullable(),
    processing_status: z.enum(FILE_PROCESSING_STATUSES),
    error_message: z.string().nullable(),
    total_chunks: z.number().int().nullable(),
    chunks_embedded: z.number().int().nullable(),
    content: z.string().nullable(),
    organization_id: z.string(),
    created_at: z.string().nullable(),
    updated_at: z.string().nullable(),
  })
  .meta({ id: 'FileMetadata' });

export type FileMetadataWire = z.infer<typeof FileMetadataResponse>;

/** The wire `OrganizationSourcesStats` of `GET /folders/metadata`. */
export const FolderStatsResponse = z.object({
  total_sources: z.number().int(),
  total_files: z.number().int(),
  total_size: z.number().int(),
  sources: z.array(
    z.object({
      source_id: z.string(),
      source_name: z.string(),
      file_count: z.number().int(),
      total_size: z.number().int(),
      files: z.array(z.object({ file_id: z.string(), file_name: z.string(), file_size: z.number().int() })),
    }),
  ),
});

export type FolderStatsWire = z.infer<typeof FolderStatsResponse>;

/** An item of `GET /agents/{id}/files`: the agent's view of one file of its folders. */
export const AgentFileResponse = z.object({
  id: z.string(),
  file_id: z.string(),
  file_name: z.string(),
  folder_id: z.string(),
  folder_name: z.string(),
  is_open: z.boolean(),
  last_accessed_at: z.string().nullable(),
  visible_content: z.string().nullable(),
  start_line: z.number().int().nullable(),
  end_line: z.number().int().nullable(),
});

export type AgentFileWire = z.infer<typeof AgentFileResponse>;

/** `GET /agents/{id}/files`: one page of the agent's files, with the cursor of the next. */
export const AgentFilesPageResponse = z.object({ files: z.array(AgentFileResponse), next_cursor: z.string().nullable(), has_more: z.boolean() });
