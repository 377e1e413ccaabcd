import { DEFAULT_SYSTEM_PROMPTS } from '@engram/core';
import {
  Agent,
  AgentBlock,
  AgentTool,
  Block,
  Message,
  Tool,
  ensureBaseTools,
  newId,
  recompileSystemMessage,
  type ContentPart,
  type Database,
  type EmbeddingConfig,
  type LlmConfig,
  type SecretBox,
  type ToolJsonSchema,
} from '@engram/db';
import type { Knex } from 'knex';
import { UniqueViolationError } from 'objection';
import { ENGRAM_VERSION } from '../../config.js';
import { AppError, BadRequestError, ConflictError, NotFoundError, UnprocessableError } from '../../errors.js';
import type { RequestContext } from '../../http/request-context.js';
import { blocksByAgent, findAgent, toolsByAgent } from '../agents/agent-views.js';
import { isValidAgentName } from '../agents/agent-names.js';
import type { ModelService } from '../models/model-service.js';
import type { OrganizationService } from '../tenancy/organizations.js';
import type { TierLimitGuard } from '../tenancy/tier-limits.js';
import { resolveToolSchema } from '../tools/tool-schema.js';
import {
  AGENT_FILE_FORMAT_VERSION,
  parseAgentFile,
  type AgentEntry,
  type AgentFile,
  type BlockEntry,
  type MessageEntry,
  type ToolEntry,
} from './agent-file-format.js';

export type ExportOptions = {
  scrubMessages: boolean;
  /** Engram agents have one conversation, so only `default` (or the agent's own id) names one. */
  conversationId?: string | undefined;
  legacyFormat: boolean;
};

export type ImportOptions = {
  /** Replaces the name of every imported agent. */
  name?: string | undefined;
  appendCopySuffix: boolean;
  /** Whether a custom tool the organization already has by name takes the file's definition, or stays as it is. */
  overrideExistingTools: boolean;
  stripMessages: boolean;
  /** A model handle replacing the file's model, keeping its context window and max tokens. */
  model?: string | undefined;
  embedding?: string | undefined;
  projectId?: string | undefined;
  /** Values for the agents' tool secrets, sealed before they are stored. */
  secrets: Record<string, string>;
  /** False for a shared chat's copy of its agent for a visitor, which the tier's agent limit does not count. */
  countsAgainstAgentLimit?: boolean | undefined;
};

export type AgentFileServiceDeps = {
  db: Database;
  secrets: SecretBox;
  models: Pick<ModelService, 'resolveLlmConfig' | 'resolveEmbeddingConfig'>;
  organizations: Pick<OrganizationService, 'resolveProject'>;
  /** The tier's agent and block limits, enforced while billing is on. */
  limits: Pick<TierLimitGuard, 'assertWithinLimit'>;
};

/** Postgres caps a statement at 65,535 parameters; a message row has about fifteen. */
const MESSAGE_INSERT_BATCH = 1000;

const fileId = (kind: 'agent' | 'block' | 'tool', index: number) => `${kind}-${index}`;
const fileLoc = (...path: Array<string | number>) => ['body', 'file', ...path];

function messageToFile(message: Message): MessageEntry {
  return {
    role: message.role,
    content: message.content as MessageEntry['content'],
    name: message.name,
    otid: message.otid,
    model: message.model,
    tool_calls: message.toolCalls,
    tool_call_id: message.toolCallId,
    tool_returns: message.toolReturns,
    approvals: message.approvals as MessageEntry['approvals'],
    is_err: message.isErr,
    created_at: message.createdAt.toISOString(),
  };
}

function blockToFile(block: Block, index: number): BlockEntry {
  return {
    id: fileId('block', index),
    label: block.label,
    value: block.value,
    limit: block.limit,
    description: block.description,
    read_only: block.readOnly,
    hidden: block.hidden,
    metadata: block.metadata,
    tags: block.tags,
  };
}

function toolToFile(tool: Tool, index: number): ToolEntry {
  return {
    id: fileId('tool', index),
    name: tool.name,
    tool_type: tool.toolType,
    source_type: tool.sourceType,
    source_code: tool.sourceCode,
    json_schema: tool.jsonSchema,
    args_json_schema: tool.argsJsonSchema,
    description: tool.description,
    tags: tool.tags,
    return_char_limit: tool.returnCharLimit,
    pip_requirements: tool.pipRequirements,
    npm_requirements: tool.npmRequirements,
    default_requires_approval: tool.defaultRequiresApproval,
    enable_parallel_execution: tool.enableParallelExecution,
    metadata: tool.metadata,
  };
}

/** The columns a custom tool takes from its file entry, on create and on override alike. */
function customToolColumns(tool: ToolEntry, jsonSchema: ToolJsonSchema) {
  return {
    name: jsonSchema.name,
    toolType: 'custom',
    description: tool.description,
    sourceType: tool.source_type,
    sourceCode: tool.source_code,
    jsonSchema,
    argsJsonSchema: tool.args_json_schema,
    tags: tool.tags,
    returnCharLimit: tool.return_char_limit,
    pipRequirements: tool.pip_requirements,
    npmRequirements: tool.npm_requirements,
    defaultRequiresApproval: tool.default_requires_approval,
    enableParallelExecution: tool.enable_parallel_execution,
    metadata: tool.metadata,
  };
}

/** Each custom tool's JSON schema, checked like a tool created through the API; a bad one is a 422 on the file. */
async function customToolSchemas(tools: ToolEntry[]): Promise<Map<string, ToolJsonSchema>> {
  const schemas = new Map<string, ToolJsonSchema>();
  for (const [index, tool] of tools.entries()) {
    if (tool.tool_type !== 'custom') continue;
    let schema: ToolJsonSchema;
    try {
      schema = await resolveToolSchema({
        sourceCode: tool.source_code ?? '',
        sourceType: tool.source_type,
        jsonSchema: tool.json_schema,
        argsJsonSchema: tool.args_json_schema,
      });
    } catch (error) {
      if (error instanceof AppError) throw new UnprocessableError(fileLoc('tools', index), error.message);
      throw error;
    }
    if (schema.name !== tool.name) {
      throw new UnprocessableError(fileLoc('tools', index, 'name'), `The tool's json_schema names it '${schema.name}', not '${tool.name}'`);
    }
    schemas.set(tool.id, schema);
  }
  return schemas;
}

/** Agent files: export one agent as a portable document, and import such documents as new agents. */
export function createAgentFileService(deps: AgentFileServiceDeps) {
  const { db, secrets } = deps;

  /** The history without the compiled system message, which is derived and rebuilt on import. */
  async function historyOf(agent: Agent): Promise<Message[]> {
    const systemMessageId = agent.messageIds[0];
    const rows = await Message.query(db).forOrg(agent.organizationId).where({ agentId: agent.id }).orderBy('sequence');
    return rows.filter((row) => row.id !== systemMessageId);
  }

  /**
   * Built-in tools bind to the organization's own; custom tools are created, or matched by name and then
   * replaced by the file's definition only when `overrideExisting` is set. Returns database ids by file id.
   */
  async function bindTools(
    trx: Knex,
    ctx: RequestContext,
    tools: ToolEntry[],
    schemas: Map<string, ToolJsonSchema>,
    overrideExisting: boolean,
  ): Promise<Map<string, string>> {
    const baseTools = await ensureBaseTools(trx, ctx.organizationId);
    const ids = new Map<string, string>();
    for (const [index, tool] of tools.entries()) {
      const schema = schemas.get(tool.id);
      if (!schema) {
        const builtIn = baseTools.get(tool.name);
        if (!builtIn) throw new UnprocessableError(fileLoc('tools', index), `'${tool.name}' is a ${tool.tool_type} tool, which this server does not provide`);
        ids.set(tool.id, builtIn.id);
        continue;
      }
      const existing = await Tool.query(trx).forOrg(ctx.organizationId).findOne({ name: tool.name });
      if (!existing) {
        const created = await Tool.query(trx)
          .insert({
            id: newId('tool'),
            organizationId: ctx.organizationId,
            projectId: null,
            ...customToolColumns(tool, schema),
            createdById: ctx.userId,
            lastUpdatedById: ctx.userId,
          })
          .catch((error: unknown) => {
            if (error instanceof UniqueViolationError) throw new ConflictError(`A tool named '${tool.name}' was created while importing; import again`);
            throw error;
          });
        ids.set(tool.id, created.id);
        continue;
      }
      if (existing.toolType !== 'custom') {
        throw new UnprocessableError(
          fileLoc('tools', index),
          `'${tool.name}' is a built-in tool (${existing.toolType}) here; the file's custom tool of that name cannot replace it`,
        );
      }
      // The name is unchanged, so no agent's system prompt needs recompiling.
      if (overrideExisting) await existing.$query(trx).patch({ ...customToolColumns(tool, schema), lastUpdatedById: ctx.userId });
      ids.set(tool.id, existing.id);
    }
    return ids;
  }

  async function createBlocks(trx: Knex, ctx: RequestContext, projectId: string, blocks: BlockEntry[]): Promise<Map<string, Block>> {
    if (blocks.length === 0) return new Map();
    const created = await Block.query(trx).insert(
      blocks.map((block) => ({
        id: newId('block'),
        organizationId: ctx.organizationId,
        projectId,
        label: block.label,
        value: block.value,
        limit: block.limit,
        description: block.description,
        readOnly: block.read_only,
        hidden: block.hidden,
        metadata: block.metadata,
        tags: block.tags,
        createdById: ctx.userId,
        lastUpdatedById: ctx.userId,
      })),
    );
    return new Map(blocks.map((block, index) => [block.id, created[index]!]));
  }

  /** Declared keys the import gives no value for are kept, empty, so the agent still shows what its tools need. */
  function sealedVariables(entry: AgentEntry, values: Record<string, string>): Agent['toolExecEnvironmentVariables'] {
    const descriptions = new Map(entry.tool_exec_environment_variables.map((variable) => [variable.key, variable.description]));
    const keys = [...new Set([...descriptions.keys(), ...Object.keys(values)])];
    return keys.map((key) => ({ key, value: secrets.encrypt(values[key] ?? ''), description: descriptions.get(key) ?? null }));
  }

  type PlannedAgent = { entry: AgentEntry; name: string; llmConfig: LlmConfig };

  async function createAgent(
    trx: Knex,
    ctx: RequestContext,
    planned: PlannedAgent,
    links: { projectId: string; embeddingConfig: EmbeddingConfig | undefined; blocks: Map<string, Block>; toolIds: Map<string, string> },
    options: ImportOptions,
  ): Promise<string> {
    const { entry } = planned;
    const agentId = newId('agent');
    await Agent.query(trx).insert({
      id: agentId,
      organizationId: ctx.organizationId,
      projectId: links.projectId,
      name: planned.name,
      agentType: entry.agent_type,
      system: entry.system ?? DEFAULT_SYSTEM_PROMPTS[entry.agent_type],
      description: entry.description,
      llmConfig: planned.llmConfig,
      embeddingConfig: links.embeddingConfig ?? entry.embedding_config,
      toolRules: entry.tool_rules,
      tags: entry.tags,
      metadata: entry.metadata,
      messageIds: [],
      messageBufferAutoclear: entry.message_buffer_autoclear,
      timezone: entry.timezone,
      maxFilesOpen: entry.max_files_open,
      perFileViewWindowCharLimit: entry.per_file_view_window_char_limit,
      hidden: entry.hidden,
      responseFormat: entry.response_format,
      toolExecEnvironmentVariables: sealedVariables(entry, options.secrets),
      createdById: ctx.userId,
      lastUpdatedById: ctx.userId,
    });

    if (entry.block_ids.length > 0) {
      await AgentBlock.query(trx).insert(
        entry.block_ids.map((blockFileId, position) => {
          const block = links.blocks.get(blockFileId)!;
          return { agentId, blockId: block.id, organizationId: ctx.organizationId, label: block.label, position };
        }),
      );
    }
    const toolIds = [...new Set(entry.tool_ids.map((toolFileId) => links.toolIds.get(toolFileId)!))];
    if (toolIds.length > 0) await AgentTool.query(trx).insert(toolIds.map((toolId) => ({ agentId, toolId, organizationId: ctx.organizationId })));

    // The system message comes first so it sorts before the history; it is compiled once everything is attached.
    const systemMessageId = newId('message');
    await Message.query(trx).insert({ id: systemMessageId, organizationId: ctx.organizationId, agentId, role: 'system', content: [] });
    const messages = options.stripMessages ? [] : entry.messages;
    const messageIds = messages.map(() => newId('message'));
    const now = new Date();
    for (let start = 0; start < messages.length; start += MESSAGE_INSERT_BATCH) {
      await Message.query(trx).insert(
        messages.slice(start, start + MESSAGE_INSERT_BATCH).map((message, offset) => ({
          id: messageIds[start + offset]!,
          organizationId: ctx.organizationId,
          agentId,
          role: message.role,
          content: message.content as ContentPart[],
          name: message.name,
          otid: message.otid,
          model: message.model,
          toolCalls: message.tool_calls,
          toolCallId: message.tool_call_id,
          toolReturns: message.tool_returns,
          approvals: message.approvals,
          isErr: message.is_err,
          createdAt: message.created_at ? new Date(message.created_at) : now,
        })),
      );
    }
    const inContext = options.stripMessages ? [] : (entry.in_context_message_indices ?? messages.map((_, index) => index));
    await Agent.query(trx)
      .forOrg(ctx.organizationId)
      .findById(agentId)
      .patch({ messageIds: [systemMessageId, ...inContext.map((index) => messageIds[index]!)] });
    await recompileSystemMessage(trx, ctx.organizationId, agentId, now);
    return agentId;
  }

  return {
    async exportAgent(ctx: RequestContext, agentId: string, options: ExportOptions): Promise<AgentFile> {
      if (options.legacyFormat) throw new BadRequestError('The legacy agent file format is read on import but no longer written; leave use_legacy_format unset');
      const agent = await findAgent(db, ctx.organizationId, agentId);
      if (options.conversationId !== undefined && options.conversationId !== 'default' && options.conversationId !== agentId) {
        throw new NotFoundError('Conversation');
      }
      // Sequential on purpose: the order of blocks and tools is what makes file ids deterministic.
      const blocks = (await blocksByAgent(db, ctx.organizationId, [agentId])).get(agentId) ?? [];
      const tools = (await toolsByAgent(db, ctx.organizationId, [agentId])).get(agentId) ?? [];
      const history = options.scrubMessages ? [] : await historyOf(agent);
      const positions = new Map(history.map((message, index) => [message.id, index]));
      return {
        agents: [
          {
            id: fileId('agent', 0),
            name: agent.name,
            agent_type: agent.agentType as AgentEntry['agent_type'],
            system: agent.system,
            description: agent.description,
            metadata: agent.metadata,
            llm_config: agent.llmConfig as AgentEntry['llm_config'],
            embedding_config: agent.embeddingConfig as AgentEntry['embedding_config'],
            tool_rules: agent.toolRules as AgentEntry['tool_rules'],
            tags: agent.tags,
            timezone: agent.timezone,
            message_buffer_autoclear: agent.messageBufferAutoclear,
            max_files_open: agent.maxFilesOpen,
            per_file_view_window_char_limit: agent.perFileViewWindowCharLimit,
            hidden: agent.hidden,
            response_format: agent.responseFormat as AgentEntry['response_format'],
            block_ids: blocks.map((_, index) => fileId('block', index)),
            tool_ids: tools.map((_, index) => fileId('tool', index)),
            messages: history.map(messageToFile),
            in_context_message_indices: agent.messageIds.flatMap((id) => positions.get(id) ?? []),
            tool_exec_environment_variables: agent.toolExecEnvironmentVariables.map(({ key, description }) => ({ key, description: description ?? null })),
          },
        ],
        blocks: blocks.map(blockToFile),
        tools: tools.map(toolToFile),
        groups: [],
        files: [],
        sources: [],
        mcp_servers: [],
        metadata: { format_version: AGENT_FILE_FORMAT_VERSION, engram_version: ENGRAM_VERSION },
        created_at: new Date().toISOString(),
      };
    },

    /** Creates every agent of the file in one transaction: a file that fails anywhere creates nothing. */
    async importFile(ctx: RequestContext, content: Buffer, options: ImportOptions): Promise<string[]> {
      if (options.name !== undefined && !isValidAgentName(options.name)) {
        throw new UnprocessableError(['body', 'name'], 'An agent name may only contain letters, digits, spaces, dashes, underscores and apostrophes');
      }
      const file = parseAgentFile(content);
      const projectId = await deps.organizations.resolveProject(ctx.organizationId, options.projectId ? { id: options.projectId } : ctx.project);
      const embeddingConfig = options.embedding ? await deps.models.resolveEmbeddingConfig(ctx, options.embedding) : undefined;
      const planned: PlannedAgent[] = [];
      for (const entry of file.agents) {
        const name = options.name ?? entry.name;
        const llmConfig = options.model
          ? await deps.models.resolveLlmConfig(ctx, options.model, {
              contextWindowLimit: entry.llm_config.context_window,
              maxTokens: entry.llm_config.max_tokens,
            })
          : entry.llm_config;
        planned.push({ entry, name: options.appendCopySuffix ? `${name}_copy` : name, llmConfig });
      }
      const schemas = await customToolSchemas(file.tools);

      return db.transaction(async (trx) => {
        if (options.countsAgainstAgentLimit !== false) await deps.limits.assertWithinLimit(trx, ctx.organizationId, 'agents', planned.length);
        if (file.blocks.length > 0) await deps.limits.assertWithinLimit(trx, ctx.organizationId, 'blocks', file.blocks.length);
        const toolIds = await bindTools(trx, ctx, file.tools, schemas, options.overrideExistingTools);
        const blocks = await createBlocks(trx, ctx, projectId, file.blocks);
        const agentIds: string[] = [];
        for (const agent of planned) {
          agentIds.push(await createAgent(trx, ctx, agent, { projectId, embeddingConfig, blocks, toolIds }, options));
        }
        return agentIds;
      });
    },
  };
}

export type AgentFileService = ReturnType<typeof createAgentFileService>;
