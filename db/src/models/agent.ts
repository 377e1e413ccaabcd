import { TenantModel } from './base-model.js';
import type { AgentHiddenKind } from './hidden.js';

export type LlmConfig = {
  model: string;
  model_endpoint_type: string;
  model_endpoint?: string | null;
  provider_name?: string | null;
  provider_category?: string | null;
  model_wrapper?: string | null;
  context_window: number;
  handle?: string | null;
  temperature?: number | null;
  max_tokens?: number | null;
  enable_reasoner?: boolean | null;
  reasoning_effort?: string | null;
  max_reasoning_tokens?: number | null;
  frequency_penalty?: number | null;
  parallel_tool_calls?: boolean | null;
  put_inner_thoughts_in_kwargs?: boolean | null;
  [key: string]: unknown;
};

export type EmbeddingConfig = {
  embedding_endpoint_type: string;
  embedding_endpoint?: string | null;
  embedding_model: string;
  embedding_dim: number;
  embedding_chunk_size?: number | null;
  handle?: string | null;
  batch_size?: number | null;
  [key: string]: unknown;
};

export type ToolRule = { type: string; tool_name: string; [key: string]: unknown };

export class Agent extends TenantModel {
  static override tableName = 'agents';
  static override jsonAttributes = ['llmConfig', 'embeddingConfig', 'toolRules', 'metadata', 'responseFormat', 'toolExecEnvironmentVariables', 'memoryVariables'];
  declare id: string;
  declare projectId: string | null;
  declare name: string;
  declare agentType: string;
  declare system: string;
  declare description: string | null;
  declare llmConfig: LlmConfig;
  declare embeddingConfig: EmbeddingConfig | null;
  declare toolRules: ToolRule[];
  declare tags: string[];
  declare metadata: Record<string, unknown> | null;
  declare messageIds: string[];
  declare messageBufferAutoclear: boolean;
  /** A sleep-time agent of its own manages its memory (the group it manages, `managed_group`). */
  declare enableSleeptime: boolean;
  declare timezone: string;
  declare maxFilesOpen: number | null;
  declare perFileViewWindowCharLimit: number | null;
  declare hidden: boolean | null;
  /** Set on the agents the platform hides (a template's simulated agent, an evaluation's, a visitor's copy); see `hidden.ts`. */
  declare hiddenKind: AgentHiddenKind | null;
  declare responseFormat: Record<string, unknown> | null;
  declare toolExecEnvironmentVariables: Array<{ key: string; value: string; description?: string | null }>;
  declare lastRunCompletion: Date | null;
  declare lastRunDurationMs: string | number | null;
  declare lastStopReason: string | null;
  declare createdById: string | null;
  declare lastUpdatedById: string | null;
  /** The template (and version, deployment, memory variables) an agent was created from, or null. */
  declare templateId: string | null;
  declare baseTemplateId: string | null;
  declare templateVersionId: string | null;
  declare deploymentId: string | null;
  /** The template entity it was made from (`AgentTemplate.entityId`), or whatever an internal-templates call named. */
  declare entityId: string | null;
  declare memoryVariables: Record<string, string> | null;
}
