import { identityToWire } from '../identities/identity-wire.js';
import { sourceToWire } from '../folders/folder-wire.js';
import { fileViewLimitsOf, type StoredMessage } from '@engram/core';
import type { Block, FileAgent, Tool } from '@engram/db';
import type { AgentSecret, AgentView } from './agent-views.js';
import type { ContextWindowOverview } from './context-window-service.js';
import type { AgentWire, ContextWindowWire, FileBlockWire, MemoryWire } from '../../contracts/v1/agents.js';
import type { BlockWire } from '../../contracts/v1/blocks.js';
import type { EmbeddingConfigWire, LlmConfigWire } from '../../contracts/v1/models.js';
import type { InternalMessageWire } from '../../contracts/v1/internal-messages.js';
import type { ToolWire } from '../../contracts/v1/tools.js';
import { groupToWire } from '../groups/group-wire.js';

const iso = (date: Date | null | undefined) => (date ? date.toISOString() : null);

/** The wire `Block` of the public API. */
export function blockToWire(block: Block): BlockWire {
  return {
    id: block.id,
    label: block.label,
    value: block.value,
    limit: block.limit,
    description: block.description,
    metadata: block.metadata,
    read_only: block.readOnly,
    hidden: block.hidden,
    tags: block.tags,
    project_id: block.projectId,
    is_template: block.isTemplate,
    template_name: block.templateName,
    template_id: block.templateId,
    base_template_id: block.baseTemplateId,
    deployment_id: block.deploymentId,
    entity_id: block.entityId,
    preserve_on_migration: block.preserveOnMigration,
    created_by_id: block.createdById,
    last_updated_by_id: block.lastUpdatedById,
  };
}

/** The wire `Tool` of the public API (note `metadata_`, with the underscore). */
export function toolToWire(tool: Tool): ToolWire {
  return {
    id: tool.id,
    // The column holds only the tool types the services write (TOOL_TYPES).
    tool_type: tool.toolType as ToolWire['tool_type'],
    name: tool.name,
    description: tool.description,
    source_type: tool.sourceType,
    source_code: tool.sourceCode,
    json_schema: tool.jsonSchema,
    args_json_schema: tool.argsJsonSchema,
    tags: tool.tags,
    return_char_limit: tool.returnCharLimit,
    pip_requirements: tool.pipRequirements,
    npm_requirements: tool.npmRequirements,
    default_requires_approval: tool.defaultRequiresApproval,
    enable_parallel_execution: tool.enableParallelExecution,
    metadata_: tool.metadata,
    project_id: tool.projectId,
    created_by_id: tool.createdById,
    last_updated_by_id: tool.lastUpdatedById,
  };
}

/**
 * The wire `FileBlock`: the agent's view of one file as a read-only block labelled with the file's name, its
 * window as the value (empty while closed) and the per-file window as the limit. It has no row in `blocks`, so
 * the block-only fields take a block's defaults.
 */
export function fileBlockToWire(file: FileAgent, perFileViewWindowCharLimit: number): FileBlockWire {
  return {
    // The `files_agents` row's id: stable across reads, where the reference server makes up a new one each time.
    id: file.id,
    label: file.fileName,
    value: file.isOpen ? (file.visibleContent ?? '') : '',
    limit: perFileViewWindowCharLimit,
    description: null,
    metadata: {},
    read_only: true,
    hidden: null,
    tags: [],
    project_id: null,
    is_template: false,
    template_name: null,
    template_id: null,
    base_template_id: null,
    deployment_id: null,
    entity_id: null,
    preserve_on_migration: false,
    created_by_id: null,
    last_updated_by_id: null,
    file_id: file.fileId,
    source_id: file.sourceId,
    is_open: file.isOpen,
    last_accessed_at: iso(file.lastAccessedAt),
  };
}

/** The deprecated `memory` field and `GET /core-memory`: the blocks and, on the agent, its files as file blocks. */
function fileLimitsOf(agent: AgentView['agent']) {
  return fileViewLimitsOf({
    maxFilesOpen: agent.maxFilesOpen,
    perFileViewWindowCharLimit: agent.perFileViewWindowCharLimit,
    contextWindow: agent.llmConfig.context_window,
  });
}

/** The deprecated `memory` of an agent: its blocks, and its files as file blocks. */
export function memoryToWire(view: AgentView): MemoryWire {
  const { perFileViewWindowCharLimit } = fileLimitsOf(view.agent);
  return {
    agent_type: agentTypeOf(view.agent),
    blocks: view.blocks.map(blockToWire),
    file_blocks: view.files.map((file) => fileBlockToWire(file, perFileViewWindowCharLimit)),
    git_enabled: false,
    prompt_template: '',
  };
}

/** The column holds only the agent types create and import accept (AGENT_TYPES). */
const agentTypeOf = (agent: AgentView['agent']) => agent.agentType as AgentWire['agent_type'];

function secretToWire(agentId: string, secret: AgentSecret) {
  return { agent_id: agentId, key: secret.key, value: secret.value, description: secret.description };
}

/** The wire `AgentState`: relationship fields not asked for with `include` are empty, as for 1.0 clients. */
export function agentToWire(view: AgentView): AgentWire {
  const { agent, included } = view;
  const fileLimits = fileLimitsOf(agent);
  const secrets = view.secrets.map((secret) => secretToWire(agent.id, secret));
  return {
    id: agent.id,
    name: agent.name,
    system: agent.system,
    agent_type: agentTypeOf(agent),
    description: agent.description,
    metadata: agent.metadata,
    // The configs, response format, rules and stop reason were checked against these same shapes when written.
    llm_config: agent.llmConfig as LlmConfigWire,
    embedding_config: agent.embeddingConfig as EmbeddingConfigWire | null,
    model: agent.llmConfig.handle ?? null,
    embedding: agent.embeddingConfig?.handle ?? null,
    response_format: agent.responseFormat as AgentWire['response_format'],
    memory: memoryToWire(view),
    blocks: view.blocks.map(blockToWire),
    tools: view.tools.map(toolToWire),
    sources: view.sources.map(sourceToWire),
    tags: included.has('agent.tags') ? agent.tags : [],
    identities: view.identities.map(identityToWire),
    identity_ids: view.identityIds,
    managed_group: view.managedGroup ? groupToWire(view.managedGroup) : null,
    multi_agent_group: view.managedGroup ? groupToWire(view.managedGroup) : null,
    tool_rules: agent.toolRules as AgentWire['tool_rules'],
    message_ids: agent.messageIds,
    message_buffer_autoclear: agent.messageBufferAutoclear,
    enable_sleeptime: agent.enableSleeptime,
    hidden: agent.hidden,
    project_id: agent.projectId,
    template_id: agent.templateId,
    base_template_id: agent.baseTemplateId,
    deployment_id: agent.deploymentId,
    entity_id: agent.entityId,
    last_run_completion: iso(agent.lastRunCompletion),
    last_run_duration_ms: agent.lastRunDurationMs === null ? null : Number(agent.lastRunDurationMs),
    last_stop_reason: agent.lastStopReason as AgentWire['last_stop_reason'],
    timezone: agent.timezone,
    max_files_open: fileLimits.maxFilesOpen,
    per_file_view_window_char_limit: fileLimits.perFileViewWindowCharLimit,
    secrets,
    tool_exec_environment_variables: secrets,
    created_at: iso(agent.createdAt),
    updated_at: iso(agent.updatedAt),
    created_by_id: agent.createdById,
    last_updated_by_id: agent.lastUpdatedById,
  };
}

/** A stored message in the internal `Message` shape the context view lists. */
function contextMessageToWire(message: StoredMessage): InternalMessageWire {
  return {
    id: message.id,
    agent_id: message.agentId,
    role: message.role,
    content: message.content,
    name: message.name,
    otid: message.otid,
    sender_id: message.senderId,
    model: message.model,
    tool_calls: message.toolCalls,
    tool_call_id: message.toolCallId,
    tool_returns: message.toolReturns,
    approvals: message.approvals,
    step_id: message.stepId,
    run_id: message.runId,
    is_err: message.isErr,
    created_at: message.createdAt.toISOString(),
  };
}

export function contextWindowToWire(overview: ContextWindowOverview): ContextWindowWire {
  return {
    context_window_size_max: overview.contextWindowSizeMax,
    context_window_size_current: overview.contextWindowSizeCurrent,
    num_messages: overview.numMessages,
    num_archival_memory: overview.numArchivalMemory,
    num_recall_memory: overview.numRecallMemory,
    num_tokens_external_memory_summary: overview.numTokensExternalMemorySummary,
    external_memory_summary: overview.externalMemorySummary,
    num_tokens_system: overview.numTokensSystem,
    system_prompt: overview.systemPrompt,
    num_tokens_core_memory: overview.numTokensCoreMemory,
    core_memory: overview.coreMemory,
    num_tokens_summary_memory: overview.numTokensSummaryMemory,
    summary_memory: overview.summaryMemory,
    num_tokens_functions_definitions: overview.numTokensFunctionsDefinitions,
    functions_definitions: overview.functionsDefinitions,
    num_tokens_messages: overview.numTokensMessages,
    messages: overview.messages.map(contextMessageToWire),
  };
}
