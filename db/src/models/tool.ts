import { TenantModel } from './base-model.js';

export type ToolJsonSchema = {
  name: string;
  description?: string;
  parameters: { type: 'object'; properties: Record<string, unknown>; required?: string[] };
  [key: string]: unknown;
};

export class Tool extends TenantModel {
  static override tableName = 'tools';
  static override jsonAttributes = ['jsonSchema', 'argsJsonSchema', 'pipRequirements', 'npmRequirements', 'metadata'];
  declare id: string;
  declare projectId: string | null;
  declare name: string;
  declare toolType: string;
  declare description: string | null;
  declare sourceType: string;
  declare sourceCode: string | null;
  declare jsonSchema: ToolJsonSchema;
  declare argsJsonSchema: Record<string, unknown> | null;
  declare tags: string[];
  declare returnCharLimit: number;
  declare pipRequirements: Array<{ name: string; version?: string | null }> | null;
  declare npmRequirements: Array<{ name: string; version?: string | null }> | null;
  declare defaultRequiresApproval: boolean | null;
  declare enableParallelExecution: boolean;
  declare metadata: Record<string, unknown>;
  declare createdById: string | null;
  declare lastUpdatedById: string | null;
}

export class AgentTool extends TenantModel {
  static override tableName = 'agent_tools';
  static override hasTimestamps = false;
  static override idColumn = ['agentId', 'toolId'];
  declare agentId: string;
  declare toolId: string;
}
