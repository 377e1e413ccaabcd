import { z } from 'zod';
import { memoryVariablesOf, type TemplateSnapshot } from '@engram/core/templates/snapshot';
import type { AgentTemplateVersion } from '@engram/db';
import type { MigrationView, TemplateView } from '../../services/templates/types.js';
import { ToolRuleSchema } from '../../contracts/v1/agent-config.js';
import { iso } from './schemas.js';

const TemplateBlockSchema = z.object({
  label: z.string().min(1, 'Label is required'),
  value: z.string(),
  limit: z.number().int().min(1, 'Limit must be at least 1'),
  description: z.string().nullable(),
  readOnly: z.boolean(),
  preserveOnMigration: z.boolean(),
  blockTemplateId: z.string().nullable(),
});

/** A memory or tool variable the template declares (spec 000 §3: key, defaultValue, type). */
export const MemoryVariableSchema = z.object({ key: z.string().min(1), defaultValue: z.string().nullable(), type: z.literal('string') });

/** The working (or a saved) state of a template, as the editor shows and edits it (spec 000 §3, template snapshot). */
export const AgentStateSchema = z.object({
  model: z.string(),
  systemPrompt: z.string(),
  toolIds: z.array(z.string()),
  sourceIds: z.array(z.string()),
  tags: z.array(z.string()),
  identityIds: z.array(z.string()),
  agentType: z.string(),
  toolRules: z.array(z.record(z.string(), z.unknown())),
  memoryVariables: z.array(MemoryVariableSchema),
  toolVariables: z.array(MemoryVariableSchema),
  blocks: z.array(TemplateBlockSchema),
  properties: z.object({ temperature: z.number().nullable(), contextWindow: z.number(), maxTokens: z.number().nullable() }),
});

export const AgentTemplateSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  projectId: z.string(),
  /** The id of the template's agent entity (`GET /templates/{templateId}/agents/{entityId}`). */
  entityId: z.string(),
  latestDeployedVersion: z.string(),
  latestDeployedId: z.string().nullable(),
  hasUnsavedChanges: z.boolean(),
  updatedAt: z.string(),
  agentState: AgentStateSchema,
});

export const TemplateVersionSchema = z.object({
  id: z.string(),
  version: z.string(),
  agentTemplateId: z.string(),
  message: z.string().nullable(),
  createdAt: z.string(),
  agentState: AgentStateSchema,
});

/** A saved version as a deployed template (spec 000 §3: id, fullVersion, agentTemplateId, templateName, projectId, createdAt). */
export const DeployedTemplateSchema = z.object({
  id: z.string(),
  fullVersion: z.string(),
  agentTemplateId: z.string(),
  templateName: z.string(),
  projectId: z.string(),
  createdAt: z.string(),
});

export const MigrationSchema = z.object({
  workflowId: z.string(),
  status: z.enum(['running', 'completed', 'aborted', 'failed']),
  startedAt: z.string(),
  completedAt: z.string().nullable(),
  templateVersion: z.string(),
  total: z.number(),
  migrated: z.number(),
  failed: z.number(),
  untouched: z.number(),
  failures: z.array(z.object({ agentId: z.string(), reason: z.string() })),
});

/** Spec 000 §5: 3 to 50 characters, letters, digits, underscore, dash (the service words the messages). */
export const TemplateName = z.string();

export const TemplateParams = z.object({ agentTemplateId: z.string() });
export const SlugParams = z.object({ slug: z.string() });

export const EditWorkingStateBody = z.object({
  systemPrompt: z.string().optional(),
  blocks: z.array(TemplateBlockSchema).optional(),
  memoryVariables: z.array(MemoryVariableSchema).optional(),
  toolVariables: z.array(MemoryVariableSchema).optional(),
  toolIds: z.array(z.string()).optional(),
  toolRules: z.array(ToolRuleSchema).optional(),
  tags: z.array(z.string()).optional(),
  identityIds: z.array(z.string()).optional(),
  temperature: z.number().min(0).max(2).optional(),
});

export const MigrationOptionsBody = z.object({
  blockReconciliationStrategy: z.enum(['reconcile-all', 'preserve-deleted']).default('preserve-deleted'),
  preserveCoreMemories: z.boolean().default(false),
  /** Values of the version's memory variables for the agents that have none of their own. */
  memoryVariables: z.record(z.string(), z.string()).default({}),
});

/** What migrating a template's agents to a version needs: how many move, and the variables some of them have no value for. */
export const MigrationRequirementsSchema = z
  .object({ agents: z.number(), missingMemoryVariables: z.array(z.object({ key: z.string(), agents: z.number() })) })
  .meta({ id: 'MigrationRequirements' });

export function stateToWire(snapshot: TemplateSnapshot): z.infer<typeof AgentStateSchema> {
  const { llmConfig } = snapshot;
  return {
    model: typeof llmConfig.handle === 'string' ? llmConfig.handle : llmConfig.model,
    systemPrompt: snapshot.system,
    toolIds: snapshot.toolIds,
    sourceIds: snapshot.sourceIds,
    tags: snapshot.tags,
    identityIds: snapshot.identityIds,
    agentType: snapshot.agentType,
    toolRules: snapshot.toolRules,
    memoryVariables: memoryVariablesOf(snapshot),
    toolVariables: snapshot.toolVariables,
    blocks: snapshot.blocks,
    properties: {
      temperature: llmConfig.temperature ?? null,
      contextWindow: llmConfig.context_window,
      maxTokens: typeof llmConfig.max_tokens === 'number' ? llmConfig.max_tokens : null,
    },
  };
}

export function templateToWire(view: TemplateView): z.infer<typeof AgentTemplateSchema> {
  const { template } = view;
  return {
    id: template.id,
    name: template.name,
    description: template.description,
    projectId: template.projectId,
    entityId: template.entityId,
    latestDeployedVersion: String(template.latestVersion),
    latestDeployedId: view.latestVersionId,
    hasUnsavedChanges: view.hasUnsavedChanges,
    updatedAt: iso(template.updatedAt),
    agentState: stateToWire(template.workingSnapshot),
  };
}

export function versionToWire(version: AgentTemplateVersion): z.infer<typeof TemplateVersionSchema> {
  return {
    id: version.id,
    version: String(version.version),
    agentTemplateId: version.templateId,
    message: version.message,
    createdAt: iso(version.createdAt),
    agentState: stateToWire(version.snapshot),
  };
}

export function migrationToConsoleWire(view: MigrationView): z.infer<typeof MigrationSchema> {
  return {
    workflowId: view.workflowId,
    status: view.migration.status,
    startedAt: iso(view.migration.startedAt),
    completedAt: view.migration.completedAt ? iso(view.migration.completedAt) : null,
    templateVersion: view.templateVersion,
    total: view.total,
    migrated: view.migrated,
    failed: view.failed,
    untouched: view.untouched,
    failures: view.failures,
  };
}
