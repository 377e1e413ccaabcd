import { DEFAULT_SYSTEM_PROMPTS } from '@engram/core';
import {
  Agent,
  AgentBlock,
  AgentTool,
  Block,
  Identity,
  IdentityAgent,
  McpServer,
  Message,
  Source,
  SourceAgent,
  SourceFile,
  Tool,
  newMcpServerId,
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
import { MCP_TOOL_TYPE, mcpServerTag, mcpToolLink, type McpStdioPolicy } from '@engram/integrations/mcp';
import { ENGRAM_VERSION } from '../../config.js';
import { AppError, BadRequestError, ConflictError, NotFoundError, UnprocessableError } from '../../errors.js';
import type { RequestContext } from '../../http/request-context.js';
import { blocksByAgent, findAgent, toolsByAgent } from '../agents/agent-views.js';
import { isValidAgentName } from '../agents/agent-names.js';
import type { ModelService } from '../models/model-service.js';
import type { OrganizationService } from '../tenancy/organizations.js';
import type { TierLimitGuard } from '../tenancy/tier-limits.js';
import { resolveToolSchema } from '../tools/tool-schema.js';
import type { GroupService } from '../groups/group-service.js';
import type { FolderService } from '../folders/folder-service.js';
import { attachFolders } from '../agents/agent-folders-service.js';
import type { ManagerConfigInput } from '../../contracts/v1/groups.js';
import { SUPPORTED_MANAGER_TYPES } from '../../contracts/v1/groups.js';
import {
  AGENT_FILE_FORMAT_VERSION,
  LETTA_REVISION_ID,
  parseAgentFile,
  type AgentFile,
  type BlockEntry,
  type GroupEntry,
  type ImportableAgent,
  type IdentityEntry,
  type FileEntry,
  type ImportWarning,
  type McpServerEntry,
  type MessageEntry,
  type SourceEntry,
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
  groups: Pick<GroupService, 'insertImported'>;
  /** A file's folders are created, and its files uploaded and ingested again, as through the folders API. */
  folders: Pick<FolderService, 'create' | 'upload'>;
  /** Whether the organization may run stdio MCP servers: a file's stdio server is recreated only where it may. */
  mcpStdio: Pick<McpStdioPolicy, 'refusalOf'>;
};

/** What an import created, and what it could not bring over as it was (each with its path in the file). */
export type ImportResult = { agentIds: string[]; warnings: Array<ImportWarning & { agent_id?: string }> };

/** Postgres caps a statement at 65,535 parameters; a message row has about fifteen. */
const MESSAGE_INSERT_BATCH = 1000;

const fileId = (kind: 'agent' | 'block' | 'tool' | 'message', index: number) => `${kind}-${index}`;
const fileLoc = (...path: Array<string | number>) => ['body', 'file', ...path];

/** The agent file entry types as export writes them: Letta's field names, where they differ from the parsed form. */
type ExportedTool = Omit<ToolEntry, 'metadata'> & { metadata_: Record<string, unknown> };
type ExportedMessage = Omit<MessageEntry, 'created_at'> & { id: string; created_at: string };
type ExportedAgent = Omit<ImportableAgent, 'messages' | 'in_context_message_indices' | 'tool_exec_environment_variables'> & {
  messages: ExportedMessage[];
  in_context_message_ids: string[];
  /** Names only: values are secrets and never leave the server. */
  tool_exec_environment_variables: Record<string, string>;
  group_ids: string[];
};
export type ExportedAgentFile = {
  agents: ExportedAgent[];
  blocks: BlockEntry[];
  tools: ExportedTool[];
  groups: GroupEntry[];
  files: FileEntry[];
  sources: SourceEntry[];
  mcp_servers: McpServerEntry[];
  identities: Array<IdentityEntry & { id: string }>;
  metadata: Record<string, unknown>;
  created_at: string;
};

function messageToFile(message: Message, index: number): ExportedMessage {
  return {
    id: fileId('message', index),
    role: message.role as MessageEntry['role'],
    content: message.content as MessageEntry['content'],
    name: message.name,
    otid: message.otid,
    model: message.model,
    tool_calls: message.toolCalls,
    tool_call_id: message.toolCallId,
    tool_returns: message.toolReturns as MessageEntry['tool_returns'],
    approvals: message.approvals as MessageEntry['approvals'],
    approve: message.approve,
    approval_request_id: message.approvalRequestId,
    denial_reason: message.denialReason,
    is_err: message.isErr,
    created_at: message.createdAt.toISOString(),
  };
}

/** An MCP server as Letta's file holds it: where it is, never its credentials. */
function mcpServerToFile(server: McpServer, index: number): McpServerEntry {
  return {
    id: `mcp_server-${index}`,
    server_name: server.serverName,
    server_type: server.serverType,
    server_url: server.serverUrl,
    stdio_config: server.serverType === 'stdio' ? { command: server.command ?? '', args: server.args } : null,
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

function toolToFile(tool: Tool, index: number): ExportedTool {
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
    metadata_: tool.metadata,
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

/** Why a tool of the file is not attached here: it is run by a service or server this organization does not have. */
function detachedToolReason(tool: ToolEntry): string {
  if (tool.tool_type === MCP_TOOL_TYPE) {
    return `'${tool.name}' is a tool of an MCP server the file does not carry; add the server under MCP servers and attach the tool to the agent`;
  }
  if (tool.tool_type === 'external_composio') return `'${tool.name}' is a Composio tool, which this server does not run; it was not attached`;
  return `'${tool.name}' is a ${tool.tool_type} tool this server does not provide; it was not attached`;
}

/** The server of an MCP tool: Letta links it in `metadata_.mcp.server_name`, and tags the tool `mcp:<server>`. */
function mcpServerNameOf(tool: ToolEntry): string | undefined {
  const link = tool.metadata.mcp;
  if (typeof link === 'object' && link !== null && typeof (link as { server_name?: unknown }).server_name === 'string') return (link as { server_name: string }).server_name;
  return tool.tags.find((tag) => tag.startsWith('mcp:'))?.slice('mcp:'.length);
}

/** The handle naming a file's model: its own `handle`, else the provider type and model name it was served by. */
const handleOf = (llmConfig: LlmConfig) => llmConfig.handle ?? `${llmConfig.model_endpoint_type}/${llmConfig.model}`;

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
   * replaced by the file's definition only when `overrideExisting` is set. A tool this server cannot run
   * (another server's built-in, an MCP or Composio tool) is left detached, with a warning. Returns database
   * ids by file id.
   */
  async function bindTools(
    trx: Knex,
    ctx: RequestContext,
    tools: ToolEntry[],
    schemas: Map<string, ToolJsonSchema>,
    overrideExisting: boolean,
    mcpServers: Map<string, McpServer>,
    warnings: ImportWarning[],
  ): Promise<Map<string, string>> {
    const baseTools = await ensureBaseTools(trx, ctx.organizationId);
    const ids = new Map<string, string>();
    for (const [index, tool] of tools.entries()) {
      const schema = schemas.get(tool.id);
      const serverName = tool.tool_type === MCP_TOOL_TYPE ? mcpServerNameOf(tool) : undefined;
      const server = serverName === undefined ? undefined : mcpServers.get(serverName);
      if (server) {
        ids.set(tool.id, await bindMcpTool(trx, ctx, index, tool, server));
        continue;
      }
      if (!schema) {
        const builtIn = baseTools.get(tool.name);
        if (builtIn) ids.set(tool.id, builtIn.id);
        else warnings.push({ loc: ['tools', index], msg: detachedToolReason(tool) });
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

  /**
   * The file's MCP servers, recreated without credentials (a file never carries them), or the organization's
   * server of the same name when it has one. Nothing connects to them here: their tools come from the file.
   */
  async function createMcpServers(trx: Knex, ctx: RequestContext, servers: McpServerEntry[], warnings: ImportWarning[]): Promise<Map<string, McpServer>> {
    const byName = new Map<string, McpServer>();
    for (const [index, entry] of servers.entries()) {
      const existing = await McpServer.query(trx).forOrg(ctx.organizationId).findOne({ serverName: entry.server_name });
      if (existing) {
        byName.set(entry.server_name, existing);
        continue;
      }
      const refusal = entry.server_type === 'stdio' ? deps.mcpStdio.refusalOf(ctx.organizationId) : null;
      if (refusal) {
        warnings.push({ loc: ['mcp_servers', index], msg: `MCP server '${entry.server_name}' was left out, its tools detached: ${refusal}` });
        continue;
      }
      const transport =
        entry.server_type === 'stdio'
          ? { serverType: 'stdio' as const, command: entry.stdio_config!.command, args: entry.stdio_config!.args, serverUrl: null }
          : { serverType: entry.server_type, command: null, args: [], serverUrl: entry.server_url };
      const created = await McpServer.query(trx)
        .insert({
          id: newMcpServerId(),
          organizationId: ctx.organizationId,
          serverName: entry.server_name,
          ...transport,
          envEnc: null,
          authHeader: null,
          authTokenEnc: null,
          customHeadersEnc: null,
          oauthTokensEnc: null,
          oauthClientInformationEnc: null,
          lastCheckedAt: null,
          lastCheckError: null,
          createdById: ctx.userId,
          lastUpdatedById: ctx.userId,
        })
        .returning('*');
      byName.set(entry.server_name, created);
      warnings.push({
        loc: ['mcp_servers', index],
        msg: `MCP server '${entry.server_name}' was added without credentials, which files never carry; give its ${entry.server_type === 'stdio' ? 'environment' : 'auth token or headers'} under MCP servers if it needs them`,
      });
    }
    return byName;
  }

  /** An MCP tool of the file, registered under its recreated server as the server's own tool sync would. */
  async function bindMcpTool(trx: Knex, ctx: RequestContext, index: number, tool: ToolEntry, server: McpServer): Promise<string> {
    const existing = await Tool.query(trx).forOrg(ctx.organizationId).findOne({ name: tool.name });
    if (existing) {
      if (mcpToolLink(existing.metadata)?.server_id === server.id) return existing.id;
      throw new UnprocessableError(fileLoc('tools', index, 'name'), `MCP tool '${tool.name}' cannot be added: a ${existing.toolType} tool of that name already exists here`);
    }
    const created = await Tool.query(trx).insert({
      id: newId('tool'),
      organizationId: ctx.organizationId,
      projectId: null,
      name: tool.name,
      toolType: MCP_TOOL_TYPE,
      description: tool.description,
      sourceType: 'python',
      sourceCode: null,
      jsonSchema: tool.json_schema as ToolJsonSchema,
      argsJsonSchema: null,
      tags: [mcpServerTag(server.serverName)],
      returnCharLimit: tool.return_char_limit,
      pipRequirements: null,
      npmRequirements: null,
      defaultRequiresApproval: tool.default_requires_approval,
      enableParallelExecution: tool.enable_parallel_execution,
      metadata: { mcp: { server_id: server.id, server_name: server.serverName, tool_name: tool.name } },
      createdById: ctx.userId,
      lastUpdatedById: ctx.userId,
    });
    return created.id;
  }

  /** The file's identities: the project's identity with the same `identifier_key` when there is one, else a new one. */
  async function bindIdentities(trx: Knex, ctx: RequestContext, projectId: string, identities: IdentityEntry[]): Promise<Map<string, string>> {
    const ids = new Map<string, string>();
    for (const identity of identities) {
      const existing = await Identity.query(trx).forOrg(ctx.organizationId).findOne({ projectId, identifierKey: identity.identifier_key });
      const bound =
        existing ??
        (await Identity.query(trx).insert({
          id: newId('identity'),
          organizationId: ctx.organizationId,
          projectId,
          identifierKey: identity.identifier_key,
          name: identity.name,
          identityType: identity.identity_type,
          properties: identity.properties,
        }));
      if (identity.id) ids.set(identity.id, bound.id);
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

  /**
   * The file's variables with the values given at import (`secrets`, `env_vars_json`) over the file's own.
   * Declared keys without a value are kept, empty, so the agent still shows what its tools need.
   */
  function sealedVariables(entry: ImportableAgent, values: Record<string, string>): Agent['toolExecEnvironmentVariables'] {
    const fromFile = new Map(entry.tool_exec_environment_variables.map((variable) => [variable.key, variable]));
    const keys = [...new Set([...fromFile.keys(), ...Object.keys(values)])];
    return keys.map((key) => ({
      key,
      value: secrets.encrypt(values[key] ?? fromFile.get(key)?.value ?? ''),
      description: fromFile.get(key)?.description ?? null,
    }));
  }

  type PlannedAgent = { entry: ImportableAgent; index: number; name: string; llmConfig: LlmConfig; warnings: string[] };

  /** The agent's own warnings are kept in its metadata, where the console and API show them; a clean import leaves none. */
  function metadataWithWarnings(metadata: Record<string, unknown> | null, warnings: string[]): Record<string, unknown> | null {
    const { import_warnings: _previous, ...rest } = metadata ?? {};
    if (warnings.length > 0) return { ...rest, import_warnings: warnings };
    return metadata === null ? null : rest;
  }

  async function createAgent(
    trx: Knex,
    ctx: RequestContext,
    planned: PlannedAgent,
    links: {
      projectId: string;
      embeddingConfig: EmbeddingConfig | undefined;
      blocks: Map<string, Block>;
      toolIds: Map<string, string>;
      identityIds: Map<string, string>;
    },
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
      metadata: metadataWithWarnings(entry.metadata, planned.warnings),
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
    const toolIds = [...new Set(entry.tool_ids.flatMap((toolFileId) => links.toolIds.get(toolFileId) ?? []))];
    if (toolIds.length > 0) await AgentTool.query(trx).insert(toolIds.map((toolId) => ({ agentId, toolId, organizationId: ctx.organizationId })));
    const identityIds = [...new Set(entry.identity_ids.map((identityFileId) => links.identityIds.get(identityFileId)!))];
    if (identityIds.length > 0) {
      await IdentityAgent.query(trx).insert(identityIds.map((identityId) => ({ identityId, agentId, organizationId: ctx.organizationId })));
    }

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
          approve: message.approve,
          approvalRequestId: message.approval_request_id,
          denialReason: message.denial_reason,
          isErr: message.is_err,
          createdAt: message.created_at ? new Date(message.created_at) : now,
        })),
      );
    }
    const inContext = options.stripMessages ? [] : entry.in_context_message_indices;
    await Agent.query(trx)
      .forOrg(ctx.organizationId)
      .findById(agentId)
      .patch({ messageIds: [systemMessageId, ...inContext.map((index) => messageIds[index]!)] });
    await recompileSystemMessage(trx, ctx.organizationId, agentId, now);
    return agentId;
  }

  /** The file's model when this server can run it; otherwise the file's settings are kept and the agent says why. */
  async function plannedModel(ctx: RequestContext, entry: ImportableAgent, options: ImportOptions): Promise<{ llmConfig: LlmConfig; warning?: string }> {
    const limits = { contextWindowLimit: entry.llm_config.context_window, maxTokens: entry.llm_config.max_tokens };
    if (options.model) return { llmConfig: await deps.models.resolveLlmConfig(ctx, options.model, limits) };
    const handle = handleOf(entry.llm_config as LlmConfig);
    try {
      await deps.models.resolveLlmConfig(ctx, handle, limits);
      return { llmConfig: entry.llm_config as LlmConfig };
    } catch (error) {
      if (!(error instanceof BadRequestError)) throw error;
      return {
        llmConfig: entry.llm_config as LlmConfig,
        warning: `The file's model '${handle}' is not available on this server (${error.message}); choose a model for this agent before messaging it`,
      };
    }
  }

  /** Groups of the file, with the agents and shared blocks they name; a manager type this server lacks is left out. */
  async function createGroups(
    trx: Knex,
    ctx: RequestContext,
    groups: GroupEntry[],
    links: { projectId: string; agentIds: Map<string, string>; blocks: Map<string, Block> },
    warnings: ImportWarning[],
  ): Promise<void> {
    for (const [index, group] of groups.entries()) {
      const { manager_type: managerType } = group.manager_config;
      if (!(SUPPORTED_MANAGER_TYPES as readonly string[]).includes(managerType)) {
        warnings.push({ loc: ['groups', index, 'manager_config', 'manager_type'], msg: `A ${managerType} group cannot run on this server; the group was left out, its agents imported` });
        continue;
      }
      const managerAgentId = group.manager_config.manager_agent_id ? links.agentIds.get(group.manager_config.manager_agent_id) : undefined;
      const config = { ...group.manager_config, manager_agent_id: managerAgentId } as ManagerConfigInput;
      try {
        await deps.groups.insertImported(trx, ctx, {
          config,
          description: group.description ?? '',
          projectId: links.projectId,
          hidden: group.hidden,
          agentIds: group.agent_ids.map((agentId) => links.agentIds.get(agentId)!),
          sharedBlockIds: group.shared_block_ids.map((blockId) => links.blocks.get(blockId)!.id),
        });
      } catch (error) {
        if (error instanceof UnprocessableError) throw new UnprocessableError(fileLoc('groups', index, 'manager_config'), error.message);
        throw error;
      }
    }
  }

  /**
   * The file's folders, created anew with their files uploaded again, so the ingestion workflow chunks and
   * embeds them under this server's embedding; then attached to the agents that had them. Runs after the
   * agents are committed, as an upload through the folders API would.
   */
  async function createFolders(ctx: RequestContext, file: AgentFile, agentIds: Map<string, string>, options: ImportOptions, warnings: ImportWarning[]): Promise<void> {
    if (file.sources.length === 0) return;
    const folderIds = new Map<string, string>();
    const reused = new Set<string>();
    for (const [index, source] of file.sources.entries()) {
      const name = options.appendCopySuffix ? `${source.name}_copy` : source.name;
      // A file exported here comes back to its own folder (a duplicate, a shared chat's copy), its files not uploaded twice.
      const existing = await Source.query(db).forOrg(ctx.organizationId).findOne({ name });
      if (existing) {
        folderIds.set(source.id, existing.id);
        reused.add(source.id);
        warnings.push({ loc: ['sources', index], msg: `The organization already has a folder named '${name}'; the agents use it, and the file's copies of its files were not uploaded again` });
        continue;
      }
      const folder = await deps.folders.create(ctx, {
        name,
        description: source.description,
        instructions: source.instructions,
        metadata: source.metadata,
        ...(options.embedding ? { embedding: options.embedding } : { embedding_config: source.embedding_config }),
      }).catch((error: unknown) => {
        if (error instanceof AppError) throw new UnprocessableError(fileLoc('sources', index, 'name'), error.message);
        throw error;
      });
      folderIds.set(source.id, folder.id);
    }
    for (const [index, entry] of file.files.entries()) {
      if (reused.has(entry.source_id)) continue;
      if (entry.content === null) {
        warnings.push({ loc: ['files', index, 'content'], msg: `'${entry.file_name}' carries no content to ingest; it was left out` });
        continue;
      }
      const uploadedName = (entry.original_file_name ?? entry.file_name).split('/').pop()!;
      await deps.folders.upload(ctx, folderIds.get(entry.source_id)!, {
        uploadedName,
        declaredMime: entry.file_type ?? 'text/plain',
        data: Buffer.from(entry.content, 'utf8'),
        duplicateHandling: 'suffix',
      });
    }
    await db.transaction(async (trx) => {
      const now = new Date();
      for (const agent of file.agents) {
        const ids = agent.source_ids.map((sourceId) => folderIds.get(sourceId)!);
        if (ids.length > 0) await attachFolders(trx, ctx.organizationId, agentIds.get(agent.id)!, ids, now);
      }
    });
  }

  return {
    async exportAgent(ctx: RequestContext, agentId: string, options: ExportOptions): Promise<ExportedAgentFile> {
      if (options.legacyFormat) throw new BadRequestError('The legacy agent file format is read on import but no longer written; leave use_legacy_format unset');
      const agent = await findAgent(db, ctx.organizationId, agentId);
      if (options.conversationId !== undefined && options.conversationId !== 'default' && options.conversationId !== agentId) {
        throw new NotFoundError('Conversation');
      }
      // Sequential on purpose: the order of blocks and tools is what makes file ids deterministic.
      const blocks = (await blocksByAgent(db, ctx.organizationId, [agentId])).get(agentId) ?? [];
      const tools = (await toolsByAgent(db, ctx.organizationId, [agentId])).get(agentId) ?? [];
      const history = options.scrubMessages ? [] : await historyOf(agent);
      const fileIds = new Map(history.map((message, index) => [message.id, fileId('message', index)]));
      const serverIds = [...new Set(tools.flatMap((tool) => (tool.toolType === MCP_TOOL_TYPE ? (mcpToolLink(tool.metadata)?.server_id ?? []) : [])))];
      const servers = serverIds.length === 0 ? [] : await McpServer.query(db).forOrg(ctx.organizationId).whereIn('id', serverIds).orderBy('serverName');
      const folders = await Source.query(db)
        .forOrg(ctx.organizationId)
        .whereIn('id', SourceAgent.query(db).forOrg(ctx.organizationId).where({ agentId }).select('sourceId'))
        .orderBy('name');
      const folderFiles = await SourceFile.query(db)
        .forOrg(ctx.organizationId)
        .whereIn('sourceId', folders.map((folder) => folder.id))
        .orderBy([{ column: 'createdAt' }, { column: 'id' }]);
      const sourceIds = new Map(folders.map((folder, index) => [folder.id, `source-${index}`]));
      const identities = await Identity.query(db)
        .forOrg(ctx.organizationId)
        .whereIn('id', IdentityAgent.query(db).forOrg(ctx.organizationId).where({ agentId }).select('identityId'))
        .orderBy('identifierKey');
      const { import_warnings: _warnings, ...metadata } = agent.metadata ?? {};
      return {
        agents: [
          {
            id: fileId('agent', 0),
            name: agent.name,
            agent_type: agent.agentType as ImportableAgent['agent_type'],
            system: agent.system,
            description: agent.description,
            metadata: agent.metadata === null ? null : metadata,
            llm_config: agent.llmConfig as ImportableAgent['llm_config'],
            embedding_config: agent.embeddingConfig as ImportableAgent['embedding_config'],
            tool_rules: agent.toolRules as ImportableAgent['tool_rules'],
            tags: agent.tags,
            timezone: agent.timezone,
            message_buffer_autoclear: agent.messageBufferAutoclear,
            max_files_open: agent.maxFilesOpen,
            per_file_view_window_char_limit: agent.perFileViewWindowCharLimit,
            hidden: agent.hidden,
            response_format: agent.responseFormat as ImportableAgent['response_format'],
            block_ids: blocks.map((_, index) => fileId('block', index)),
            tool_ids: tools.map((_, index) => fileId('tool', index)),
            source_ids: folders.map((folder) => sourceIds.get(folder.id)!),
            identity_ids: identities.map((_, index) => `identity-${index}`),
            group_ids: [],
            messages: history.map(messageToFile),
            in_context_message_ids: agent.messageIds.flatMap((id) => fileIds.get(id) ?? []),
            tool_exec_environment_variables: Object.fromEntries(agent.toolExecEnvironmentVariables.map(({ key }) => [key, ''])),
          },
        ],
        blocks: blocks.map(blockToFile),
        tools: tools.map(toolToFile),
        groups: [],
        files: folderFiles.map((file, index) => ({
          id: `file-${index}`,
          source_id: sourceIds.get(file.sourceId)!,
          file_name: file.fileName,
          original_file_name: file.originalFileName,
          file_type: file.fileType,
          content: file.content,
        })),
        sources: folders.map((folder) => ({
          id: sourceIds.get(folder.id)!,
          name: folder.name,
          description: folder.description,
          instructions: folder.instructions,
          metadata: folder.metadata,
          embedding_config: folder.embeddingConfig as SourceEntry['embedding_config'],
        })),
        mcp_servers: servers.map(mcpServerToFile),
        identities: identities.map((identity, index) => ({
          id: `identity-${index}`,
          identifier_key: identity.identifierKey,
          name: identity.name,
          identity_type: identity.identityType,
          properties: identity.properties,
        })),
        metadata: { revision_id: LETTA_REVISION_ID, format_version: AGENT_FILE_FORMAT_VERSION, engram_version: ENGRAM_VERSION },
        created_at: new Date().toISOString(),
      };
    },

    /**
     * Creates every agent of the file, with its blocks, tools and groups, in one transaction: a file that fails
     * there creates nothing. Its folders follow, their files ingested again in the background.
     */
    async importFile(ctx: RequestContext, content: Buffer, options: ImportOptions): Promise<ImportResult> {
      if (options.name !== undefined && !isValidAgentName(options.name)) {
        throw new UnprocessableError(['body', 'name'], 'An agent name may only contain letters, digits, spaces, dashes, underscores and apostrophes');
      }
      const file = parseAgentFile(content);
      const warnings: ImportResult['warnings'] = [...file.warnings];
      const projectId = await deps.organizations.resolveProject(ctx.organizationId, options.projectId ? { id: options.projectId } : ctx.project);
      const embeddingConfig = options.embedding ? await deps.models.resolveEmbeddingConfig(ctx, options.embedding) : undefined;
      const planned: PlannedAgent[] = [];
      for (const [index, entry] of file.agents.entries()) {
        const name = options.name ?? entry.name;
        const model = await plannedModel(ctx, entry, options);
        const agentWarnings = model.warning ? [model.warning] : [];
        planned.push({ entry, index, name: options.appendCopySuffix ? `${name}_copy` : name, llmConfig: model.llmConfig, warnings: agentWarnings });
      }
      const schemas = await customToolSchemas(file.tools);

      const agentIds = await db.transaction(async (trx) => {
        if (options.countsAgainstAgentLimit !== false) await deps.limits.assertWithinLimit(trx, ctx.organizationId, 'agents', planned.length);
        if (file.blocks.length > 0) await deps.limits.assertWithinLimit(trx, ctx.organizationId, 'blocks', file.blocks.length);
        const mcpServers = await createMcpServers(trx, ctx, file.mcp_servers, warnings);
        const toolWarnings: ImportWarning[] = [];
        const toolIds = await bindTools(trx, ctx, file.tools, schemas, options.overrideExistingTools, mcpServers, toolWarnings);
        warnings.push(...toolWarnings);
        const blocks = await createBlocks(trx, ctx, projectId, file.blocks);
        const identityIds = await bindIdentities(trx, ctx, projectId, file.identities);
        const created = new Map<string, string>();
        for (const agent of planned) {
          const detached = toolWarnings.filter((warning) => agent.entry.tool_ids.includes(file.tools[warning.loc[1] as number]!.id));
          agent.warnings.push(...detached.map((warning) => warning.msg));
          created.set(agent.entry.id, await createAgent(trx, ctx, agent, { projectId, embeddingConfig, blocks, toolIds, identityIds }, options));
        }
        await createGroups(trx, ctx, file.groups, { projectId, agentIds: created, blocks }, warnings);
        return created;
      });
      for (const agent of planned) {
        const agentId = agentIds.get(agent.entry.id)!;
        const unset = agent.entry.tool_exec_environment_variables.filter((variable) => !variable.value && !options.secrets[variable.key]);
        if (unset.length > 0) {
          warnings.push({ loc: ['agents', agent.index, 'tool_exec_environment_variables'], msg: `Give values for ${unset.map((variable) => variable.key).join(', ')} in the agent's tool variables`, agent_id: agentId });
        }
        // A detached tool is reported once, at its path in the file; the agent's own notes list it too.
        for (const msg of agent.warnings) {
          if (!warnings.some((warning) => warning.msg === msg)) warnings.push({ loc: ['agents', agent.index], msg, agent_id: agentId });
        }
      }
      await createFolders(ctx, file, agentIds, options, warnings);
      return { agentIds: planned.map((agent) => agentIds.get(agent.entry.id)!), warnings };
    },
  };
}

export type AgentFileService = ReturnType<typeof createAgentFileService>;
