import type { TemplateSnapshot } from '@engram/core/templates/snapshot';
import { TenantModel } from './base-model.js';

export class AgentTemplate extends TenantModel {
  static override tableName = 'agent_templates';
  static override jsonAttributes = ['workingSnapshot'];
  declare id: string;
  declare projectId: string;
  declare name: string;
  declare description: string | null;
  declare workingSnapshot: TemplateSnapshot;
  /** The number of the newest saved version; 0 until the first save. */
  declare latestVersion: number;
  /** The id of the template's agent entity: agents made from the template carry it as their `entity_id`. */
  declare entityId: string;
}

export class AgentTemplateVersion extends TenantModel {
  static override tableName = 'agent_template_versions';
  static override jsonAttributes = ['snapshot'];
  declare id: string;
  declare templateId: string;
  declare version: number;
  declare message: string | null;
  declare snapshot: TemplateSnapshot;
}

export class TemplateDeployment extends TenantModel {
  static override tableName = 'template_deployments';
  declare id: string;
  declare projectId: string | null;
  declare templateId: string;
  declare templateVersionId: string;
}

export class BlockTemplate extends TenantModel {
  static override tableName = 'block_templates';
  declare id: string;
  declare projectId: string | null;
  declare label: string;
  declare value: string;
  declare limit: number;
  declare description: string | null;
  declare readOnly: boolean;
  declare preserveOnMigration: boolean;
}

export type TemplateMigrationStatus = 'running' | 'completed' | 'aborted' | 'failed';

export class TemplateMigration extends TenantModel {
  static override tableName = 'template_migrations';
  static override jsonAttributes = ['memoryVariables'];
  declare id: string;
  declare templateId: string;
  declare toVersionId: string;
  declare status: TemplateMigrationStatus;
  declare blockReconciliationStrategy: 'reconcile-all' | 'preserve-deleted';
  declare preserveCoreMemories: boolean;
  declare abortRequested: boolean;
  /** Values for the version's memory variables, for agents that have none of their own. */
  declare memoryVariables: Record<string, string>;
  declare startedAt: Date;
  declare completedAt: Date | null;
}

export type MigrationAgentStatus = 'pending' | 'busy' | 'migrated' | 'failed' | 'untouched';

/** One agent of a migration; its status changes in the same transaction as the agent itself. */
export class TemplateMigrationAgent extends TenantModel {
  static override tableName = 'template_migration_agents';
  static override hasTimestamps = false;
  static override idColumn = ['migrationId', 'agentId'];
  declare migrationId: string;
  declare agentId: string;
  declare status: MigrationAgentStatus;
  declare failureReason: string | null;
  declare migratedAt: Date | null;
}

/** The hidden agent a template's editor chats with, built from the working state with its own memory variables. */
export class SimulatedAgent extends TenantModel {
  static override tableName = 'simulated_agents';
  static override jsonAttributes = ['memoryVariables', 'appliedState'];
  declare id: string;
  declare templateId: string;
  /** Null once the agent is gone (deleted by hand, or never built because the working state could not be). */
  declare agentId: string | null;
  declare name: string;
  declare memoryVariables: Record<string, string>;
  /** The agent's state as last built from the template; what differs from it now was edited on the agent. */
  declare appliedState: TemplateSnapshot | null;
  declare corruptionReason: string | null;
}
