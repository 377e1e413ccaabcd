import { randomUUID } from 'node:crypto';
import { TenantModel } from './base-model.js';
import type { EmbeddingConfig } from './agent.js';

/** A collection of archival passages, shared by the agents attached to it. */
export class Archive extends TenantModel {
  static override tableName = 'archives';
  static override jsonAttributes = ['embeddingConfig', 'metadata'];
  declare id: string;
  declare name: string;
  declare description: string | null;
  declare embeddingConfig: EmbeddingConfig;
  declare vectorDbProvider: 'native';
  declare metadata: Record<string, unknown>;
  declare createdById: string | null;
  declare lastUpdatedById: string | null;

  static newId(): string {
    return `archive-${randomUUID()}`;
  }
}

/** Which agents use an archive; `isOwner` marks the archive created for the agent itself. */
export class ArchiveAgent extends TenantModel {
  static override tableName = 'archives_agents';
  static override hasTimestamps = false;
  static override idColumn = ['archiveId', 'agentId'];
  declare archiveId: string;
  declare agentId: string;
  declare isOwner: boolean;
}
