import { randomUUID } from 'node:crypto';
import { TenantModel } from './base-model.js';
import type { EmbeddingConfig } from './agent.js';

/**
 * One unit of archival memory (or one chunk of a folder's file). `embedding` is little-endian float32 of
 * unit length; `fts` is a generated tsvector and is never written.
 */
export class Passage extends TenantModel {
  static override tableName = 'passages';
  static override jsonAttributes = ['metadata', 'embeddingConfig'];
  declare id: string;
  declare archiveId: string | null;
  declare sourceId: string | null;
  declare fileId: string | null;
  declare fileName: string | null;
  declare text: string;
  declare tags: string[];
  declare metadata: Record<string, unknown>;
  declare embedding: Buffer | null;
  declare embeddingConfig: EmbeddingConfig | null;
  declare createdById: string | null;
  declare lastUpdatedById: string | null;

  static newId(): string {
    return `passage-${randomUUID()}`;
  }
}

/** The vector-search side of an embedded passage: a narrow row so a signature scan reads little. */
export class PassageVector extends TenantModel {
  static override tableName = 'passage_vectors';
  static override hasTimestamps = false;
  static override idColumn = 'passageId';
  declare passageId: string;
  declare archiveId: string | null;
  declare sourceId: string | null;
  declare embeddingDim: number;
  /** A `bit(1024)`: written as `x` and 256 hex digits, read back as 1024 characters '0'/'1'. */
  declare signature: string;
}
