import { TenantModel } from './base-model.js';

export class Block extends TenantModel {
  static override tableName = 'blocks';
  static override jsonAttributes = ['metadata'];
  declare id: string;
  declare projectId: string | null;
  declare label: string;
  declare value: string;
  declare limit: number;
  declare description: string | null;
  declare readOnly: boolean;
  declare hidden: boolean | null;
  declare metadata: Record<string, unknown>;
  declare tags: string[];
  declare isTemplate: boolean;
  declare templateName: string | null;
  declare templateId: string | null;
  declare baseTemplateId: string | null;
  declare deploymentId: string | null;
  declare entityId: string | null;
  declare preserveOnMigration: boolean;
  declare createdById: string | null;
  declare lastUpdatedById: string | null;
}

/** Which blocks an agent has in core memory, under which label, in prompt order. */
export class AgentBlock extends TenantModel {
  static override tableName = 'agent_blocks';
  static override hasTimestamps = false;
  static override idColumn = ['agentId', 'blockId'];
  declare agentId: string;
  declare blockId: string;
  declare label: string;
  declare position: number;
}
