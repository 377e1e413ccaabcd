import { z } from 'zod';
import { STOP_REASONS } from '@engram/core';
import { blockFields, BlockResponse } from './blocks.js';
import { SourceResponse } from './folders.js';
import { GroupResponse } from './groups.js';
import { IdentityResponse } from './identities.js';
import { EmbeddingConfigResponse, LlmConfigResponse, ResponseFormat } from './models.js';
import { InternalMessageResponse } from './internal-messages.js';
import { ToolResponse } from './tools.js';
import { AGENT_TYPES, Metadata, ToolRuleSchema } from './agent-config.js';

export const AgentType = z.enum(AGENT_TYPES);

/**
 * The wire `FileBlock`: the agent's view of one file as a read-only block labelled with the file's name, its
 * window as the value.
 */
export const FileBlockResponse = z
  .object({ ...blockFields, file_id: z.string(), source_id: z.string(), is_open: z.boolean(), last_accessed_at: z.string().nullable() })
  .meta({ id: 'FileBlock' });

/** The deprecated `memory` of an agent and `GET /agents/{id}/core-memory`: its blocks, and its files as file blocks. */
export const MemoryResponse = z
  .object({
    agent_type: AgentType,
    blocks: z.array(BlockResponse),
    file_blocks: z.array(FileBlockResponse),
    git_enabled: z.boolean(),
    prompt_template: z.string(),
  })
  .meta({ id: 'Memory' });

/** One of the agent's secrets (`AgentEnvironmentVariable`), its value masked. */
const AgentSecret = z.object({ agent_id: z.string(), key: z.string(), value: z.string(), description: z.string().nullable() });

/**
 * The wire `AgentState`. Relationship fields not asked for with `include` are empty lists (the managed group
 * null), and the template fields are set on agents built from one.
 */
export const AgentResponse = z
  .object({
    id: z.string(),
    name: z.string(),
    system: z.string(),
    agent_type: AgentType,
    description: z.string().nullable(),
    metadata: Metadata.nullable(),
    llm_config: LlmConfigResponse,
    embedding_config: EmbeddingConfigResponse.nullable(),
    model: z.string().nullable(),
    embedding: z.string().nullable(),
    response_format: ResponseFormat.nullable(),
    memory: MemoryResponse,
    blocks: z.array(BlockResponse),
    tools: z.array(ToolResponse),
    sources: z.array(SourceResponse),
    tags: z.array(z.string()),
    identities: z.array(IdentityResponse),
    identity_ids: z.array(z.string()),
    managed_group: GroupResponse.nullable(),
    multi_agent_group: GroupResponse.nullable(),
    tool_rules: z.array(ToolRuleSchema),
    message_ids: z.array(z.string()),
    message_buffer_autoclear: z.boolean(),
    enable_sleeptime: z.boolean(),
    hidden: z.boolean().nullable(),
    project_id: z.string().nullable(),
    template_id: z.string().nullable(),
    base_template_id: z.string().nullable(),
    deployment_id: z.string().nullable(),
    entity_id: z.string().nullable(),
    last_run_completion: z.string().nullable(),
    last_run_duration_ms: z.number().int().nullable(),
    last_stop_reason: z.enum(STOP_REASONS).nullable(),
    timezone: z.string(),
    max_files_open: z.number().int(),
    per_file_view_window_char_limit: z.number().int(),
    secrets: z.array(AgentSecret),
    tool_exec_environment_variables: z.array(AgentSecret),
    created_at: z.string().nullable(),
    updated_at: z.string().nullable(),
    created_by_id: z.string().nullable(),
    last_updated_by_id: z.string().nullable(),
  })
  .meta({ id: 'AgentState' });

export type AgentWire = z.infer<typeof AgentResponse>;
export type MemoryWire = z.infer<typeof MemoryResponse>;
export type FileBlockWire = z.infer<typeof FileBlockResponse>;

const FunctionDefinition = z.object({
  type: z.literal('function'),
  function: z.object({ name: z.string(), description: z.string(), parameters: z.record(z.string(), z.unknown()) }),
});

/** `ContextWindowOverview`: what fills the agent's context window, part by part, with token estimates. */
export const ContextWindowResponse = z.object({
  context_window_size_max: z.number().int(),
  context_window_size_current: z.number().int(),
  num_messages: z.number().int(),
  num_archival_memory: z.number().int(),
  num_recall_memory: z.number().int(),
  num_tokens_external_memory_summary: z.number().int(),
  external_memory_summary: z.string(),
  num_tokens_system: z.number().int(),
  system_prompt: z.string(),
  num_tokens_core_memory: z.number().int(),
  core_memory: z.string(),
  num_tokens_summary_memory: z.number().int(),
  summary_memory: z.string().nullable(),
  num_tokens_functions_definitions: z.number().int(),
  functions_definitions: z.array(FunctionDefinition),
  num_tokens_messages: z.number().int(),
  messages: z.array(InternalMessageResponse),
});

export type ContextWindowWire = z.infer<typeof ContextWindowResponse>;
