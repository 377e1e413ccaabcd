import { TenantModel } from './base-model.js';
import type { EmbeddingConfig } from './agent.js';

/** A folder of files (the deprecated routes call it a source). */
export class Source extends TenantModel {
  static override tableName = 'sources';
  static override jsonAttributes = ['metadata', 'embeddingConfig'];
  declare id: string;
  declare name: string;
  declare description: string | null;
  declare instructions: string | null;
  declare metadata: Record<string, unknown>;
  declare embeddingConfig: EmbeddingConfig;
  declare vectorDbProvider: 'native';
  declare createdById: string | null;
  declare lastUpdatedById: string | null;
}

export const FILE_PROCESSING_STATUSES = ['pending', 'parsing', 'embedding', 'completed', 'error'] as const;
export type FileProcessingStatus = (typeof FILE_PROCESSING_STATUSES)[number];

/** A file uploaded into a folder, with where its ingestion stands. */
export class SourceFile extends TenantModel {
  static override tableName = 'files';
  declare id: string;
  declare sourceId: string;
  /** `<folder name>/<file name>`. */
  declare fileName: string;
  declare originalFileName: string;
  declare filePath: string | null;
  declare fileType: string;
  /** A bigint column: node-postgres reads it as a string. */
  declare fileSize: string | number;
  declare fileCreationDate: Date | null;
  declare fileLastModifiedDate: Date | null;
  declare processingStatus: FileProcessingStatus;
  declare errorMessage: string | null;
  declare totalChunks: number | null;
  declare chunksEmbedded: number | null;
  declare content: string | null;
}

/** The bytes of an upload, read only by ingestion. */
export class FileUpload extends TenantModel {
  static override tableName = 'file_uploads';
  static override hasTimestamps = false;
  static override idColumn = 'fileId';
  declare fileId: string;
  declare data: Buffer;
}

/** Which agents use a folder. */
export class SourceAgent extends TenantModel {
  static override tableName = 'sources_agents';
  static override hasTimestamps = false;
  static override idColumn = ['sourceId', 'agentId'];
  declare sourceId: string;
  declare agentId: string;
}

/** An agent's view of one file of an attached folder: open or closed, and what its prompt shows. */
export class FileAgent extends TenantModel {
  static override tableName = 'files_agents';
  declare id: string;
  declare agentId: string;
  declare fileId: string;
  declare sourceId: string;
  declare fileName: string;
  declare isOpen: boolean;
  declare visibleContent: string | null;
  declare startLine: number | null;
  declare endLine: number | null;
  declare lastAccessedAt: Date;
}
