/* The shapes the console's template routes answer (api/src/routes/console/agent-templates-schema.ts and beside it). */

export type MemoryVariable = { key: string; defaultValue: string | null; type: 'string' };

export type TemplateBlock = {
  label: string;
  value: string;
  limit: number;
  description: string | null;
  readOnly: boolean;
  preserveOnMigration: boolean;
  blockTemplateId: string | null;
};

/** A template's working (or a saved) state. */
export type AgentState = {
  model: string;
  systemPrompt: string;
  toolIds: string[];
  sourceIds: string[];
  tags: string[];
  identityIds: string[];
  agentType: string;
  toolRules: Array<Record<string, unknown>>;
  memoryVariables: MemoryVariable[];
  toolVariables: MemoryVariable[];
  blocks: TemplateBlock[];
  properties: { temperature: number | null; contextWindow: number; maxTokens: number | null };
};

export type AgentTemplate = {
  id: string;
  name: string;
  description: string | null;
  projectId: string;
  entityId: string;
  latestDeployedVersion: string;
  latestDeployedId: string | null;
  hasUnsavedChanges: boolean;
  updatedAt: string;
  agentState: AgentState;
};

export type TemplateVersion = { id: string; version: string; agentTemplateId: string; message: string | null; createdAt: string; agentState: AgentState };

export type Migration = {
  workflowId: string;
  status: 'running' | 'completed' | 'aborted' | 'failed';
  startedAt: string;
  completedAt: string | null;
  templateVersion: string;
  total: number;
  migrated: number;
  failed: number;
  untouched: number;
  failures: Array<{ agentId: string; reason: string }>;
};

export type BlockTemplate = {
  id: string;
  entityId: string;
  label: string;
  value: string;
  limit: number;
  description: string | null;
  preserveOnMigration: boolean;
  readOnly: boolean;
  projectId: string | null;
  createdAt: string;
  updatedAt: string;
};

export type BlockTemplateFields = Pick<BlockTemplate, 'label' | 'value' | 'limit' | 'description' | 'preserveOnMigration' | 'readOnly'>;

export type SimulatedAgent = { id: string; name: string; agentId: string | null; agentTemplateId: string; isCorrupted: boolean; reason: string | null };

export type ReconciliationStrategy = 'preserve-deleted' | 'reconcile-all';

/** What the editor changes in a template's working state. */
export type WorkingStateChange = Partial<{
  systemPrompt: string;
  blocks: TemplateBlock[];
  memoryVariables: MemoryVariable[];
  toolVariables: MemoryVariable[];
  temperature: number;
}>;
