import type { Source, SourceFile } from '@engram/db';
import { withoutFolderPrefix } from './file-names.js';
import type { AgentFileView, FolderStats } from './types.js';
import type { AgentFileWire, FileMetadataWire, FolderStatsWire, FolderWire, SourceWire } from '../../contracts/v1/folders.js';
import type { EmbeddingConfigWire } from '../../contracts/v1/models.js';

const iso = (date: Date | null | undefined) => (date ? date.toISOString() : null);

/** The wire `Folder`. */
export function folderToWire(folder: Source): FolderWire {
  return {
    id: folder.id,
    name: folder.name,
    description: folder.description,
    instructions: folder.instructions,
    metadata: folder.metadata,
    // Checked against the same shape when the folder was created.
    embedding_config: folder.embeddingConfig as EmbeddingConfigWire,
    organization_id: folder.organizationId,
    created_at: iso(folder.createdAt),
    updated_at: iso(folder.updatedAt),
    created_by_id: folder.createdById,
    last_updated_by_id: folder.lastUpdatedById,
  };
}

/** The wire `Source` of the deprecated `/sources` routes: a folder that also names its vector store. */
export function sourceToWire(source: Source): SourceWire {
  return { ...folderToWire(source), vector_db_provider: source.vectorDbProvider };
}

export type FileWireOptions = {
  /** `content` is null unless asked for: it can be large. */
  includeContent?: boolean;
  /** Listings and reads name a file without its `<folder>/` prefix; uploads return the stored name. */
  folderNameToStrip?: string;
};

/** The wire `FileMetadata`. */
export function fileToWire(file: SourceFile, options: FileWireOptions = {}): FileMetadataWire {
  return {
    id: file.id,
    source_id: file.sourceId,
    file_name: options.folderNameToStrip === undefined ? file.fileName : withoutFolderPrefix(file.fileName, options.folderNameToStrip),
    original_file_name: file.originalFileName,
    file_path: file.filePath,
    file_type: file.fileType,
    file_size: Number(file.fileSize),
    file_creation_date: iso(file.fileCreationDate),
    file_last_modified_date: iso(file.fileLastModifiedDate),
    processing_status: file.processingStatus,
    error_message: file.errorMessage,
    total_chunks: file.totalChunks,
    chunks_embedded: file.chunksEmbedded,
    content: options.includeContent ? file.content : null,
    organization_id: file.organizationId,
    created_at: iso(file.createdAt),
    updated_at: iso(file.updatedAt),
  };
}

/** One folder's share of `GET /folders/metadata`. */
/** The wire `OrganizationSourcesStats`: totals always, the per-folder breakdown only when asked for. */
export function folderStatsToWire(stats: FolderStats[], detailed: boolean): FolderStatsWire {
  return {
    total_sources: stats.length,
    total_files: stats.reduce((sum, folder) => sum + folder.fileCount, 0),
    total_size: stats.reduce((sum, folder) => sum + folder.totalSize, 0),
    sources: detailed
      ? stats.map((folder) => ({
          source_id: folder.sourceId,
          source_name: folder.sourceName,
          file_count: folder.fileCount,
          total_size: folder.totalSize,
          files: (folder.files ?? []).map((file) => ({ file_id: file.fileId, file_name: file.fileName, file_size: file.fileSize })),
        }))
      : [],
  };
}

/** An item of `GET /agents/{id}/files`. */
export function agentFileToWire(file: AgentFileView): AgentFileWire {
  return {
    id: file.id,
    file_id: file.fileId,
    file_name: file.fileName,
    folder_id: file.sourceId,
    folder_name: file.folderName,
    is_open: file.isOpen,
    last_accessed_at: iso(file.lastAccessedAt),
    visible_content: file.visibleContent,
    start_line: file.startLine,
    end_line: file.endLine,
  };
}
