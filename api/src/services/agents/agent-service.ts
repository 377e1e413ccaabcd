import {
  DEFAULT_BLOCK_DESCRIPTIONS,
  DEFAULT_BLOCK_LIMIT,
  DEFAULT_SYSTEM_PROMPTS,
  defaultToolNamesFor,
  defaultToolRulesFor,
  fileViewLimitsOf,
  MULTI_AGENT_TOOL_NAMES,
  type AgentType,
  type ToolRule,
} from '@engram/core';
import {
  Agent,
  AgentBlock,
  ConversationBlock,
  AgentTool,
  Block,
  Identity,
  IdentityAgent,
  Message,
  SharedChatConversation,
  Tool,
  applyFileViewLimits,
  ensureBaseTools,
  fileViewLimitsOfAgent,
  newId,
  recompileSystemMessage,
  VISIBLE_AGENT,
  type AgentHiddenKind,
  type ContentPart,
  type Database,
  type EmbeddingConfig,
  type LlmConfig,
  type SecretBox,
} from '@engram/db';
import type { Knex } from 'knex';
import { BadRequestError, ConflictError, NotFoundError, UnprocessableError } from '../../errors.js';
import type { RequestContext } from '../../http/request-context.js';
import type { ModelService } from '../models/model-service.js';
import type { OrganizationService } from '../tenancy/organizations.js';
import type { SleeptimeGroups } from '../groups/types.js';
import type { TierLimitGuard } from '../tenancy/tier-limits.js';
import { blockLimitError } from '../blocks/block-limit.js';
import { attachFolders, replaceFolders } from './agent-folders-service.js';
import { generateAgentName, isValidAgentName } from './agent-names.js';
import { EVERY_RELATIONSHIP, findAgent, loadAgentView, loadAgentViews, type AgentInclude, type AgentView } from './agent-views.js';
import { keysetPage, type PageRequest } from '../shared/paging.js';

export const DEFAULT_AGENT_TYPE: AgentType = 'letta_v1_agent';

export type MemoryBlockInput = {
  label: string;
  value: string;
  limit?: number | undefined;
  description?: string | null | undefined;
  read_only?: boolean | undefined;
  hidden?: boolean | null | undefined;
  metadata?: Record<string, unknown> | null | undefined;
  tags?: string[] | null | undefined;
  preserve_on_migration?: boolean | null | undefined;
};

export type InitialMessageInput = {
  role: 'user' | 'system' | 'assistant';
  content: string | Array<{ type: string; [key: string]: unknown }>;
  name?: string | null | undefined;
  otid?: string | null | undefined;
  sender_id?: string | null | undefined;
  group_id?: string | null | undefined;
  batch_item_id?: string | null | undefined;
};

/** The provider-discriminated `model_settings`: only the generation knobs every provider shares apply here. */
export type ModelSettingsInput = {
  temperature?: number | undefined;
  max_output_tokens?: number | undefined;
  parallel_tool_calls?: boolean | undefined;
};

/** The model fields create and update share. */
type ModelInput = {
  model?: string | null | undefined;
  llm_config?: LlmConfig | null | undefined;
  embedding?: string | null | undefined;
  embedding_config?: EmbeddingConfig | null | undefined;
  context_window_limit?: number | null | undefined;
  max_tokens?: number | null | undefined;
  model_settings?: ModelSettingsInput | null | undefined;
  parallel_tool_calls?: boolean | null | undefined;
};

/** The request fields of agent create that Engram acts on (snake_case, as on the wire). */
export type CreateAgentInput = ModelInput & {
  name?: string | undefined;
  agent_type?: AgentType | undefined;
  system?: string | null | undefined;
  description?: string | null | undefined;
  metadata?: Record<string, unknown> | null | undefined;
  tags?: string[] | null | undefined;
  memory_blocks?: MemoryBlockInput[] | null | undefined;
  block_ids?: string[] | null | undefined;
  tool_ids?: string[] | null | undefined;
  tools?: string[] | null | undefined;
  /** Folders to attach at creation; `source_ids` is the deprecated spelling. */
  folder_ids?: string[] | null | undefined;
  source_ids?: string[] | null | undefined;
  include_base_tools?: boolean | undefined;
  include_base_tool_rules?: boolean | null | undefined;
  tool_rules?: ToolRule[] | null | undefined;
  timezone?: string | null | undefined;
  message_buffer_autoclear?: boolean | undefined;
  initial_message_sequence?: InitialMessageInput[] | null | undefined;
  project_id?: string | null | undefined;
  project?: string | null | undefined;
  secrets?: Record<string, string> | null | undefined;
  tool_exec_environment_variables?: Record<string, string> | null | undefined;
  max_files_open?: number | null | undefined;
  per_file_view_window_char_limit?: number | null | undefined;
  hidden?: boolean | null | undefined;
  response_format?: Record<string, unknown> | null | undefined;
  /** Identities of the organization the agent is linked to; an unknown one is a 404. */
  identity_ids?: string[] | null | undefined;
  /** Attach the multi-agent tools (send_message_to_agent_and_wait_for_reply, …). */
  include_multi_agent_tools?: boolean | undefined;
  /** Give the agent a sleep-time agent of its own, in a sleeptime group it manages. */
  enable_sleeptime?: boolean | null | undefined;
  /** Set by the template service for an agent it builds from a template version. */
  templateOrigin?: TemplateOrigin | undefined;
  /** Set by the services that make agents the platform hides (never from a request): see `hidden.ts` in `@engram/db`. */
  hiddenKind?: AgentHiddenKind | undefined;
};

/** Where an agent built from a template came from; its migrations re-apply `memoryVariables`. */
export type TemplateOrigin = {
  templateId: string;
  /** The template the agent's template was derived from; the template itself unless said. */
  baseTemplateId?: string | undefined;
  templateVersionId: string | null;
  deploymentId: string | null;
  /** The template entity the agent is an instance of. */
  entityId: string;
  memoryVariables: Record<string, string>;
};

export type UpdateAgentInput = ModelInput & {
  name?: string | null | undefined;
  system?: string | null | undefined;
  description?: string | null | undefined;
  metadata?: Record<string, unknown> | null | undefined;
  tags?: string[] | null | undefined;
  block_ids?: string[] | null | undefined;
  tool_ids?: string[] | null | undefined;
  tool_rules?: ToolRule[] | null | undefined;
  message_ids?: string[] | null | undefined;
  /** The folders the agent is to have, exactly; `source_ids` is the deprecated spelling, and both together are joined. */
  folder_ids?: string[] | null | undefined;
  source_ids?: string[] | null | undefined;
  timezone?: string | null | undefined;
  message_buffer_autoclear?: boolean | null | undefined;
  project_id?: string | null | undefined;
  secrets?: Record<string, string> | null | undefined;
  tool_exec_environment_variables?: Record<string, string> | null | undefined;
  max_files_open?: number | null | undefined;
  per_file_view_window_char_limit?: number | null | undefined;
  hidden?: boolean | null | undefined;
  response_format?: Record<string, unknown> | null | undefined;
  last_run_completion?: string | null | undefined;
  last_run_duration_ms?: number | null | undefined;
  last_stop_reason?: string | null | undefined;
  enable_sleeptime?: boolean | null | undefined;
};

/** A create request checked and resolved: what `insertAgent` writes. */
type PreparedAgent = {
  agentId: string;
  input: CreateAgentInput;
  agentType: AgentType;
  name: string;
  llmConfig: LlmConfig;
  embeddingConfig: EmbeddingConfig | null;
  projectId: string | null;
  memoryBlocks: MemoryBlockInput[];
};

export type AgentFilter = {
  name?: string | undefined;
  tags?: string[] | undefined;
  matchAllTags?: boolean | undefined;
  queryText?: string | undefined;
  projectId?: string | undefined;
  createdById?: string | undefined;
  lastStopReason?: string | undefined;
  identityId?: string | undefined;
  identifierKeys?: string[] | undefined;
  templateId?: string | undefined;
  baseTemplateId?: string | undefined;
};

export type AgentOrderBy = 'created_at' | 'updated_at' | 'last_run_completion';

const SORT_KEYS: Record<AgentOrderBy, (alias: string) => string> = {
  created_at: (alias) => `${alias}.created_at`,
  updated_at: (alias) => `${alias}.updated_at`,
  // Agents that never ran sort as the oldest, so paging by this key stays total.
  last_run_completion: (alias) => `coalesce(${alias}.last_run_completion, '-infinity'::timestamptz)`,
};

export type AgentServiceDeps = {
  db: Database;
  secrets: SecretBox;
  models: Pick<ModelService, 'resolveLlmConfig' | 'resolveEmbeddingConfig'>;
  organizations: Pick<OrganizationService, 'resolveProject'>;
  /** Tier limits (agents, their memory blocks), enforced while billing is on. */
  limits: Pick<TierLimitGuard, 'assertWithinLimit'>;
  /** The sleeptime group an agent's `enable_sleeptime` makes and removes (services/groups). */
  sleeptimeGroups: SleeptimeGroups;
};

/** The block a sleep-time agent keeps for itself, beside the blocks it shares with its primary agent. */
const SLEEPTIME_PERSONA =
  'I am a sleep-time agent: I reflect on my primary agent\'s conversations in the background and keep the memory we share accurate, concise and well organized.';

function stripNullBytes(value: string): string {
  return value.replaceAll('\u0000', '');
}

function assertTimezone(timezone: string): void {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: timezone });
  } catch {
    throw new UnprocessableError(['body', 'timezone'], `Unknown IANA timezone '${timezone}'`);
  }
}

function assertAgentName(name: string): void {
  if (!isValidAgentName(name)) {
    throw new BadRequestError(`Agent name '${name}' may only contain letters, digits, spaces, dashes, underscores and apostrophes`);
  }
}

function assertHandle(field: 'model' | 'embedding', handle: string): void {
  if (!handle.includes('/')) throw new BadRequestError(`The ${field} handle '${handle}' must have the form provider/model-name`);
}

function sealedSecrets(secrets: SecretBox, input: Record<string, string>): Agent['toolExecEnvironmentVariables'] {
  return Object.entries(input).map(([key, value]) => ({ key, value: secrets.encrypt(value), description: null }));
}

function messageContent(content: InitialMessageInput['content']): ContentPart[] {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : content.map((part) => ({ ...part }));
}

/** `config` with the generation knobs of `model_settings` that are set (a conversation's overrides use it too). */
export function withModelSettings(config: LlmConfig, settings: ModelSettingsInput): LlmConfig {
  return {
    ...config,
    ...(settings.temperature !== undefined ? { temperature: settings.temperature } : {}),
    ...(settings.max_output_tokens !== undefined ? { max_tokens: settings.max_output_tokens } : {}),
    ...(settings.parallel_tool_calls !== undefined ? { parallel_tool_calls: settings.parallel_tool_calls } : {}),
  };
}

function applyModelSettings(config: LlmConfig, input: ModelInput): LlmConfig {
  const withSettings = withModelSettings(config, input.model_settings ?? {});
  return input.parallel_tool_calls != null ? { ...withSettings, parallel_tool_calls: input.parallel_tool_calls } : withSettings;
}

/** The user's rules, plus the base rules for tools the user set no rule of the same kind for. */
function mergeToolRules(userRules: ToolRule[], baseRules: ToolRule[]): ToolRule[] {
  const covered = new Set(userRules.map((rule) => `${rule.type}:${rule.tool_name}`));
  return [...userRules, ...baseRules.filter((rule) => !covered.has(`${rule.type}:${rule.tool_name}`))];
}

export function createAgentService(deps: AgentServiceDeps) {
  const { db, secrets } = deps;

  /** The llm_config a request asks for, or undefined when it names no model at all. */
  async function requestedLlmConfig(ctx: RequestContext, input: ModelInput, current?: LlmConfig): Promise<LlmConfig | undefined> {
    const overrides = { contextWindowLimit: input.context_window_limit, maxTokens: input.max_tokens };
    let config: LlmConfig | undefined;
    if (input.model) {
      assertHandle('model', input.model);
      config = await deps.models.resolveLlmConfig(ctx, input.model, overrides);
    } else {
      const base = input.llm_config ?? current;
      if (base) {
        config = {
          ...base,
          context_window: input.context_window_limit ?? base.context_window,
          max_tokens: input.max_tokens !== undefined ? input.max_tokens : (base.max_tokens ?? null),
        };
      }
    }
    return config && applyModelSettings(config, input);
  }

  async function requestedEmbeddingConfig(ctx: RequestContext, input: ModelInput): Promise<EmbeddingConfig | null | undefined> {
    if (input.embedding) {
      assertHandle('embedding', input.embedding);
      return deps.models.resolveEmbeddingConfig(ctx, input.embedding);
    }
    return input.embedding_config;
  }

  /** Blocks by id in the organization, in the order asked; an unknown id is a 404. */
  async function existingBlocks(trx: Knex, ctx: RequestContext, blockIds: string[]): Promise<Block[]> {
    const found = await Block.query(trx).forOrg(ctx.organizationId).whereIn('id', blockIds);
    const byId = new Map(found.map((block) => [block.id, block]));
    return blockIds.map((id) => {
      const block = byId.get(id);
      if (!block) throw new NotFoundError(`Block '${id}'`);
      return block;
    });
  }

  async function existingTools(trx: Knex, ctx: RequestContext, toolIds: string[]): Promise<Tool[]> {
    const found = await Tool.query(trx).forOrg(ctx.organizationId).whereIn('id', toolIds);
    const byId = new Map(found.map((tool) => [tool.id, tool]));
    return toolIds.map((id) => {
      const tool = byId.get(id);
      if (!tool) throw new NotFoundError(`Tool '${id}'`);
      return tool;
    });
  }

  /** Tools by name: the built-in ones are created for the organization on first use. */
  async function toolsNamed(trx: Knex, ctx: RequestContext, names: string[], baseTools: Map<string, Tool>): Promise<Tool[]> {
    const custom = await Tool.query(trx).forOrg(ctx.organizationId).whereIn('name', names);
    const byName = new Map([...custom.map((tool) => [tool.name, tool] as const), ...baseTools]);
    return names.map((name) => {
      const tool = byName.get(name);
      if (!tool) throw new NotFoundError(`Tool '${name}'`);
      return tool;
    });
  }

  async function attachBlocks(trx: Knex, ctx: RequestContext, agentId: string, blocks: Block[]): Promise<void> {
    const seen = new Set<string>();
    for (const block of blocks) {
      if (seen.has(block.label)) throw new ConflictError(`The agent already has a block labelled '${block.label}'`);
      seen.add(block.label);
    }
    if (blocks.length === 0) return;
    await AgentBlock.query(trx).insert(
      blocks.map((block, position) => ({ agentId, blockId: block.id, organizationId: ctx.organizationId, label: block.label, position })),
    );
  }

  async function attachTools(trx: Knex, ctx: RequestContext, agentId: string, tools: Tool[]): Promise<void> {
    const unique = [...new Map(tools.map((tool) => [tool.id, tool])).values()];
    if (unique.length === 0) return;
    await AgentTool.query(trx).insert(unique.map((tool) => ({ agentId, toolId: tool.id, organizationId: ctx.organizationId })));
  }

  async function linkIdentities(trx: Knex, ctx: RequestContext, agentId: string, identityIds: string[]): Promise<void> {
    const wanted = [...new Set(identityIds)];
    if (wanted.length === 0) return;
    const found = await Identity.query(trx).forOrg(ctx.organizationId).whereIn('id', wanted).select('id');
    const missing = wanted.find((id) => !found.some((identity) => identity.id === id));
    if (missing) throw new NotFoundError(`Identity '${missing}'`);
    await IdentityAgent.query(trx).insert(wanted.map((identityId) => ({ identityId, agentId, organizationId: ctx.organizationId })));
  }

  /** Writes a new agent whose request was checked: its row, blocks, tools, system message and folders. */
  async function insertAgent(trx: Knex, ctx: RequestContext, prepared: PreparedAgent): Promise<void> {
    const { agentId, input, agentType, name, llmConfig, embeddingConfig, projectId, memoryBlocks } = prepared;
    const now = new Date();
    // A hidden agent is not one of the organization's agents: the agent limit neither counts nor refuses it.
    if (!input.hiddenKind) await deps.limits.assertWithinLimit(trx, ctx.organizationId, 'agents');
    if (memoryBlocks.length > 0 && !input.hiddenKind) await deps.limits.assertWithinLimit(trx, ctx.organizationId, 'blocks', memoryBlocks.length);
    const includeBaseTools = input.include_base_tools ?? true;
    const baseTools = await ensureBaseTools(trx, ctx.organizationId);
    const tools = [
      ...(includeBaseTools ? await toolsNamed(trx, ctx, defaultToolNamesFor(agentType), baseTools) : []),
      ...(await existingTools(trx, ctx, input.tool_ids ?? [])),
      ...(await toolsNamed(trx, ctx, input.tools ?? [], baseTools)),
      ...(input.include_multi_agent_tools ? await toolsNamed(trx, ctx, [...MULTI_AGENT_TOOL_NAMES], baseTools) : []),
    ];
    const baseRules =
      (input.include_base_tool_rules ?? includeBaseTools) ? defaultToolRulesFor(agentType, tools.map((tool) => tool.name)) : [];

    await Agent.query(trx).insert({
      id: agentId,
      organizationId: ctx.organizationId,
      projectId,
      name,
      agentType,
      system: input.system ?? DEFAULT_SYSTEM_PROMPTS[agentType],
      description: input.description ?? null,
      llmConfig,
      embeddingConfig,
      toolRules: mergeToolRules(input.tool_rules ?? [], baseRules),
      tags: input.tags ?? [],
      metadata: input.metadata ?? null,
      messageIds: [],
      messageBufferAutoclear: input.message_buffer_autoclear ?? false,
      timezone: input.timezone ?? 'UTC',
      maxFilesOpen: input.max_files_open ?? null,
      perFileViewWindowCharLimit: input.per_file_view_window_char_limit ?? null,
      hidden: input.hidden ?? null,
      hiddenKind: input.hiddenKind ?? null,
      responseFormat: input.response_format ?? null,
      toolExecEnvironmentVariables: sealedSecrets(secrets, { ...input.tool_exec_environment_variables, ...input.secrets }),
      createdById: ctx.userId,
      lastUpdatedById: ctx.userId,
      ...(input.templateOrigin
        ? {
            templateId: input.templateOrigin.templateId,
            baseTemplateId: input.templateOrigin.baseTemplateId ?? input.templateOrigin.templateId,
            templateVersionId: input.templateOrigin.templateVersionId,
            deploymentId: input.templateOrigin.deploymentId,
            entityId: input.templateOrigin.entityId,
            memoryVariables: input.templateOrigin.memoryVariables,
          }
        : {}),
    });

    const createdBlocks = memoryBlocks.length
      ? await Block.query(trx).insert(
          memoryBlocks.map((block) => ({
            id: newId('block'),
            organizationId: ctx.organizationId,
            projectId,
            label: block.label,
            value: stripNullBytes(block.value),
            limit: block.limit ?? DEFAULT_BLOCK_LIMIT,
            description: block.description ?? DEFAULT_BLOCK_DESCRIPTIONS[block.label] ?? null,
            readOnly: block.read_only ?? false,
            hidden: block.hidden ?? null,
            metadata: block.metadata ?? {},
            tags: block.tags ?? [],
            preserveOnMigration: block.preserve_on_migration ?? false,
            createdById: ctx.userId,
            lastUpdatedById: ctx.userId,
            ...(input.templateOrigin
              ? {
                  templateId: input.templateOrigin.templateId,
                  baseTemplateId: input.templateOrigin.baseTemplateId ?? input.templateOrigin.templateId,
                  deploymentId: input.templateOrigin.deploymentId,
                }
              : {}),
          })),
        )
      : [];
    await attachBlocks(trx, ctx, agentId, [...createdBlocks, ...(await existingBlocks(trx, ctx, input.block_ids ?? []))]);
    await attachTools(trx, ctx, agentId, tools);
    await linkIdentities(trx, ctx, agentId, input.identity_ids ?? []);

    // The system message is compiled below, once blocks and tools are attached.
    const systemMessage = await Message.query(trx).insert({
      id: newId('message'),
      organizationId: ctx.organizationId,
      agentId,
      role: 'system',
      content: [],
    });
    const initialMessages = input.initial_message_sequence?.length
      ? await Message.query(trx).insert(
          input.initial_message_sequence.map((message) => ({
            id: newId('message'),
            organizationId: ctx.organizationId,
            agentId,
            role: message.role,
            content: messageContent(message.content),
            name: message.name ?? null,
            otid: message.otid ?? null,
            senderId: message.sender_id ?? null,
            groupId: message.group_id ?? null,
            batchItemId: message.batch_item_id ?? null,
          })),
        )
      : [];
    await Agent.query(trx)
      .forOrg(ctx.organizationId)
      .findById(agentId)
      .patch({ messageIds: [systemMessage.id, ...initialMessages.map((message) => message.id)] });
    await recompileSystemMessage(trx, ctx.organizationId, agentId, now);
    // After the system message exists: attaching a folder shows its files there.
    await attachFolders(trx, ctx.organizationId, agentId, [...(input.folder_ids ?? []), ...(input.source_ids ?? [])], now);
  }

  /**
   * Gives the agent a sleep-time agent (`<name>-sleeptime`, sharing all its blocks, with a persona block of its
   * own) and the sleeptime group it manages, run every fifth turn, as the reference server does.
   */
  async function enableSleeptime(trx: Knex, ctx: RequestContext, agentId: string): Promise<void> {
    const primary = await Agent.query(trx).forOrg(ctx.organizationId).findById(agentId).forUpdate();
    if (!primary || primary.enableSleeptime) return;
    const shared = (await AgentBlock.query(trx).forOrg(ctx.organizationId).where({ agentId }).orderBy('position')).map((row) => row.blockId);
    const sleeptimeAgentId = newId('agent');
    await insertAgent(trx, ctx, {
      agentId: sleeptimeAgentId,
      input: {
        block_ids: shared,
        include_base_tools: true,
        description: `The sleep-time agent of ${primary.name}: it keeps their shared memory in order between conversations`,
      },
      agentType: 'sleeptime_agent',
      name: `${primary.name}-sleeptime`,
      llmConfig: primary.llmConfig,
      embeddingConfig: primary.embeddingConfig,
      projectId: primary.projectId,
      memoryBlocks: [{ label: 'memory_persona', value: SLEEPTIME_PERSONA }],
    });
    await deps.sleeptimeGroups.createManaged(trx, ctx.organizationId, {
      managerAgentId: agentId,
      sleeptimeAgentId,
      projectId: primary.projectId,
      userId: ctx.userId,
    });
    await primary.$query(trx).patch({ enableSleeptime: true });
  }

  /** Removes the agent's managed sleeptime group and the sleep-time agents it made. */
  async function disableSleeptime(trx: Knex, ctx: RequestContext, agentId: string): Promise<void> {
    const sleeptimeAgentIds = await deps.sleeptimeGroups.removeManaged(trx, ctx.organizationId, agentId);
    for (const sleeptimeAgentId of sleeptimeAgentIds) await deleteAgent(trx, ctx, sleeptimeAgentId);
    await Agent.query(trx).forOrg(ctx.organizationId).findById(agentId).patch({ enableSleeptime: false });
  }

  /**
   * Deletes an agent with its history; its blocks go too, unless another agent still uses them, and so do its
   * conversations' copies of isolated blocks.
   */
  async function deleteAgent(trx: Knex, ctx: RequestContext, agentId: string): Promise<void> {
    const blockIds = (await AgentBlock.query(trx).forOrg(ctx.organizationId).where({ agentId })).map((row) => row.blockId);
    await Block.query(trx)
      .forOrg(ctx.organizationId)
      .whereIn('blocks.id', ConversationBlock.query(trx).join('conversations', 'conversations.id', 'conversation_blocks.conversation_id').where('conversations.agent_id', agentId).select('conversation_blocks.block_id'))
      .delete();
    await Agent.query(trx).forOrg(ctx.organizationId).deleteById(agentId);
    if (blockIds.length === 0) return;
    await Block.query(trx)
      .forOrg(ctx.organizationId)
      .whereIn('blocks.id', blockIds)
      .whereNotExists(AgentBlock.query(trx).whereColumn('agent_blocks.block_id', 'blocks.id'))
      .delete();
  }

  /**
   * Deletes the hidden copies of the agent its shared chat made for its visitors (their conversations go with them),
   * and the visitors' identities no other agent is linked to.
   */
  async function deleteVisitorCopies(trx: Knex, ctx: RequestContext, agentId: string): Promise<void> {
    const conversations = await SharedChatConversation.query(trx)
      .forOrg(ctx.organizationId)
      .join('shared_chats', 'shared_chats.id', 'shared_chat_conversations.chat_id')
      .where('shared_chats.agent_id', agentId)
      .select('shared_chat_conversations.agent_id', 'shared_chat_conversations.identity_id');
    if (conversations.length === 0) return;
    for (const conversation of conversations) await deleteAgent(trx, ctx, conversation.agentId);
    await Identity.query(trx)
      .forOrg(ctx.organizationId)
      .whereIn('identities.id', conversations.map((conversation) => conversation.identityId))
      .whereNotExists(IdentityAgent.query(trx).whereColumn('identity_agents.identity_id', 'identities.id'))
      .delete();
  }

  function filtered(ctx: RequestContext, filter: AgentFilter) {
    const query = Agent.query(db).forOrg(ctx.organizationId).whereRaw(VISIBLE_AGENT);
    if (filter.templateId !== undefined) query.where('agents.template_id', filter.templateId);
    if (filter.baseTemplateId !== undefined) query.where('agents.base_template_id', filter.baseTemplateId);
    if (filter.identityId !== undefined || filter.identifierKeys?.length) {
      query.whereExists((linked) => {
        linked
          .from('identity_agents')
          .join('identities', 'identities.id', 'identity_agents.identity_id')
          .whereRaw('identity_agents.agent_id = agents.id')
          .where('identities.organization_id', ctx.organizationId);
        if (filter.identityId !== undefined) linked.where('identities.id', filter.identityId);
        if (filter.identifierKeys?.length) linked.whereIn('identities.identifier_key', filter.identifierKeys);
      });
    }
    if (filter.name !== undefined) query.where('agents.name', filter.name);
    if (filter.queryText) query.where('agents.name', 'ilike', `%${filter.queryText.replace(/[\\%_]/g, '\\$&')}%`);
    if (filter.projectId !== undefined) query.where('agents.project_id', filter.projectId);
    if (filter.createdById !== undefined) query.where('agents.created_by_id', filter.createdById);
    if (filter.lastStopReason !== undefined) query.where('agents.last_stop_reason', filter.lastStopReason);
    if (filter.tags && filter.tags.length > 0) {
      query.whereRaw(`agents.tags ${filter.matchAllTags ? '@>' : '&&'} ?::text[]`, [filter.tags]);
    }
    return query;
  }

  return {
    async create(ctx: RequestContext, input: CreateAgentInput): Promise<AgentView> {
      const agentType = input.agent_type ?? DEFAULT_AGENT_TYPE;
      const name = input.name ?? generateAgentName();
      assertAgentName(name);
      if (input.timezone) assertTimezone(input.timezone);
      const llmConfig = await requestedLlmConfig(ctx, input);
      if (!llmConfig) throw new BadRequestError('Must specify either model or llm_config');
      const embeddingConfig = (await requestedEmbeddingConfig(ctx, input)) ?? null;
      const projectId = await deps.organizations.resolveProject(
        ctx.organizationId,
        input.project_id ? { id: input.project_id } : input.project ? { slug: input.project } : ctx.project,
      );
      const memoryBlocks = input.memory_blocks ?? [];
      memoryBlocks.forEach((block, index) => {
        const limit = block.limit ?? DEFAULT_BLOCK_LIMIT;
        if (block.value.length > limit) throw blockLimitError(['body', 'memory_blocks', index, 'value'], block.value.length, limit);
      });

      const agentId = newId('agent');
      await db.transaction(async (trx) => {
        await insertAgent(trx, ctx, { agentId, input, agentType, name, llmConfig, embeddingConfig, projectId, memoryBlocks });
        if (input.enable_sleeptime) await enableSleeptime(trx, ctx, agentId);
      });
      return loadAgentView(db, secrets, ctx.organizationId, agentId, EVERY_RELATIONSHIP);
    },

    async list(
      ctx: RequestContext,
      filter: AgentFilter,
      page: PageRequest & { orderBy: AgentOrderBy },
      included: ReadonlySet<AgentInclude>,
    ): Promise<AgentView[]> {
      const agents = await keysetPage(filtered(ctx, filter), page, { table: 'agents', sortKey: SORT_KEYS[page.orderBy] });
      return loadAgentViews(db, secrets, ctx.organizationId, agents, included);
    },

    async count(ctx: RequestContext, filter: AgentFilter): Promise<number> {
      return filtered(ctx, filter).resultSize();
    },

    async get(ctx: RequestContext, agentId: string, included: ReadonlySet<AgentInclude>): Promise<AgentView> {
      return loadAgentView(db, secrets, ctx.organizationId, agentId, included);
    },

    async update(ctx: RequestContext, agentId: string, input: UpdateAgentInput): Promise<AgentView> {
      if (input.name != null) assertAgentName(input.name);
      if (input.timezone) assertTimezone(input.timezone);
      const agent = await findAgent(db, ctx.organizationId, agentId);
      const llmConfig = await requestedLlmConfig(ctx, input, agent.llmConfig);
      const embeddingConfig = await requestedEmbeddingConfig(ctx, input);
      const projectId = input.project_id ? await deps.organizations.resolveProject(ctx.organizationId, { id: input.project_id }) : undefined;
      const secretsInput =
        input.secrets != null || input.tool_exec_environment_variables != null
          ? { ...input.tool_exec_environment_variables, ...input.secrets }
          : undefined;

      const fileLimitsBefore = fileViewLimitsOf({
        maxFilesOpen: agent.maxFilesOpen,
        perFileViewWindowCharLimit: agent.perFileViewWindowCharLimit,
        contextWindow: agent.llmConfig.context_window,
      });
      const folderIds =
        input.folder_ids != null || input.source_ids != null ? [...(input.folder_ids ?? []), ...(input.source_ids ?? [])] : undefined;

      await db.transaction(async (trx) => {
        const now = new Date();
        if (input.message_ids != null) {
          const owned = await Message.query(trx).forOrg(ctx.organizationId).where({ agentId }).whereIn('id', input.message_ids).resultSize();
          if (owned !== new Set(input.message_ids).size) throw new BadRequestError('message_ids must name messages of this agent');
        }
        if (input.block_ids != null) {
          const blocks = await existingBlocks(trx, ctx, input.block_ids);
          await AgentBlock.query(trx).forOrg(ctx.organizationId).where({ agentId }).delete();
          await attachBlocks(trx, ctx, agentId, blocks);
        }
        if (input.tool_ids != null) {
          const tools = await existingTools(trx, ctx, input.tool_ids);
          await AgentTool.query(trx).forOrg(ctx.organizationId).where({ agentId }).delete();
          await attachTools(trx, ctx, agentId, tools);
        }
        await agent.$query(trx).patch({
          ...(input.name != null ? { name: input.name } : {}),
          ...(input.system != null ? { system: input.system } : {}),
          ...(input.description !== undefined ? { description: input.description } : {}),
          ...(input.metadata !== undefined ? { metadata: input.metadata } : {}),
          ...(input.tags != null ? { tags: input.tags } : {}),
          ...(input.tool_rules !== undefined ? { toolRules: input.tool_rules ?? [] } : {}),
          ...(input.message_ids != null ? { messageIds: input.message_ids } : {}),
          ...(input.timezone ? { timezone: input.timezone } : {}),
          ...(input.message_buffer_autoclear != null ? { messageBufferAutoclear: input.message_buffer_autoclear } : {}),
          ...(projectId !== undefined ? { projectId } : {}),
          ...(llmConfig ? { llmConfig } : {}),
          ...(embeddingConfig !== undefined ? { embeddingConfig } : {}),
          ...(secretsInput ? { toolExecEnvironmentVariables: sealedSecrets(secrets, secretsInput) } : {}),
          ...(input.max_files_open !== undefined ? { maxFilesOpen: input.max_files_open } : {}),
          ...(input.per_file_view_window_char_limit !== undefined
            ? { perFileViewWindowCharLimit: input.per_file_view_window_char_limit }
            : {}),
          ...(input.hidden !== undefined ? { hidden: input.hidden } : {}),
          ...(input.response_format !== undefined ? { responseFormat: input.response_format } : {}),
          ...(input.last_run_completion !== undefined
            ? { lastRunCompletion: input.last_run_completion === null ? null : new Date(input.last_run_completion) }
            : {}),
          ...(input.last_run_duration_ms !== undefined ? { lastRunDurationMs: input.last_run_duration_ms } : {}),
          ...(input.last_stop_reason !== undefined ? { lastStopReason: input.last_stop_reason } : {}),
          lastUpdatedById: ctx.userId,
        });
        // After the patch, so newly attached folders open their files within the new limits. Attaching and
        // detaching recompile the system message themselves.
        if (folderIds) await replaceFolders(trx, ctx.organizationId, agentId, folderIds, now);
        // The limits may change without either knob in the request: unset knobs follow the context window.
        const fileLimitsAfter = await fileViewLimitsOfAgent(trx, ctx.organizationId, agentId);
        const fileLimitsChanged =
          fileLimitsAfter !== undefined &&
          (fileLimitsAfter.maxFilesOpen !== fileLimitsBefore.maxFilesOpen ||
            fileLimitsAfter.perFileViewWindowCharLimit !== fileLimitsBefore.perFileViewWindowCharLimit);
        if (fileLimitsChanged) await applyFileViewLimits(trx, ctx.organizationId, agentId);
        // Only what the system prompt shows triggers a recompile: a fresh prompt would also change its timestamp.
        const promptChanged = [input.system, input.tool_rules, input.tool_ids, input.block_ids, input.timezone, input.message_ids].some(
          (field) => field !== undefined,
        );
        if (promptChanged || fileLimitsChanged) await recompileSystemMessage(trx, ctx.organizationId, agentId, now);
        if (input.enable_sleeptime === true && !agent.enableSleeptime) await enableSleeptime(trx, ctx, agentId);
        if (input.enable_sleeptime === false && agent.enableSleeptime) await disableSleeptime(trx, ctx, agentId);
      });
      return loadAgentView(db, secrets, ctx.organizationId, agentId, EVERY_RELATIONSHIP);
    },

    /**
     * Deletes the agent with its history (and its sleep-time agents and its shared chat's visitor copies); its blocks
     * go too, unless another agent still uses them.
     */
    async delete(ctx: RequestContext, agentId: string): Promise<void> {
      await db.transaction(async (trx) => {
        await findAgent(trx, ctx.organizationId, agentId);
        // Its sleep-time agents and its visitors' copies exist only to serve it, so they go with it.
        await disableSleeptime(trx, ctx, agentId);
        await deleteVisitorCopies(trx, ctx, agentId);
        await deleteAgent(trx, ctx, agentId);
      });
    },

    /** Rebuilds message 0 from the agent's current memory, tools and rules; returns the compiled prompt. */
    async recompileSystemMessage(ctx: RequestContext, agentId: string): Promise<string> {
      const compiled = await recompileSystemMessage(db, ctx.organizationId, agentId, new Date());
      if (compiled === undefined) throw new NotFoundError('Agent');
      return compiled;
    },
  };
}

export type AgentService = ReturnType<typeof createAgentService>;

