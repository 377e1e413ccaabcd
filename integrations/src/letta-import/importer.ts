import { DEFAULT_SYSTEM_PROMPTS, type AgentType } from '@engram/core';
import {
  Agent,
  AgentBlock,
  AgentTool,
  Block,
  Conversation,
  Group,
  GroupAgent,
  GroupBlock,
  Identity,
  IdentityAgent,
  IdentityBlock,
  LettaImport,
  LettaImportAgent,
  McpServer,
  Message,
  Passage,
  Source,
  // A folder's link to an agent; `SourceAgent` here is the source server's agent.
  SourceAgent as FolderAgent,
  SourceFile,
  FileUpload,
  Tool,
  derivedId,
  derivedUuid,
  ensureBaseTools,
  newId,
  newMcpServerId,
  recompileSystemMessage,
  type ContentPart,
  type Database,
  type EmbeddingConfig,
  type GroupManagerType,
  type IdentityProperty,
  type IdentityType,
  type LettaImportPlan,
  type LettaImportProblem,
  type LlmConfig,
  type McpServerType,
  type SecretBox,
  type ToolJsonSchema,
} from '@engram/db';
import type { Knex } from 'knex';
import { archiveForInsert } from '../archival/agent-archives.js';
import type { NewPassage, PassageStore } from '../archival/passage-store.js';
import { unitVector } from '../archival/vectors.js';
import { LOCAL_EMBEDDING_CONFIG } from '../archival/local-embedder.js';
import { fileTypeFor } from '../files/file-types.js';
import type { EgressPolicy } from '../egress/index.js';
import { createMapping, type Mapping } from './mapping.js';
import { rebuildMessages, type RebuiltMessage } from './messages.js';
import { createLettaSource, type LettaSource } from './source.js';
import type { SourceAgent, SourceBlock, SourceIdentity, SourceMcpServer, SourceTool } from './source-types.js';

export type LettaImporterDeps = {
  db: Database;
  secrets: SecretBox;
  egress: Pick<EgressPolicy, 'fetchFor'>;
  passages: Pick<PassageStore, 'prepare' | 'write'>;
  /** Requests a second towards a source (default 10). */
  requestsPerSecond?: number;
};

export type ImportRef = { organizationId: string; importId: string };

/** Messages and passages read per request (and written per transaction). */
const MESSAGE_PAGE = 500;
const PASSAGE_PAGE = 200;

const AGENT_TYPES = new Set(Object.keys(DEFAULT_SYSTEM_PROMPTS));
const IDENTITY_TYPES = new Set<IdentityType>(['org', 'user', 'other']);
/** Those a group can be created with here (`voice_sleeptime` and `swarm` are refused, as on create). */
const MANAGER_TYPES = new Set<string>(['round_robin', 'supervisor', 'dynamic', 'sleeptime']);

/** Letta's tool types that are the platform's own: an agent binds to this server's tool of the same name. */
const isBuiltInTool = (tool: SourceTool) => (tool.tool_type ?? 'custom').startsWith('letta_');

function blocksOf(agent: SourceAgent): SourceBlock[] {
  return agent.blocks ?? agent.memory?.blocks ?? [];
}

/** The problems of a run, kept unique: a retried step reports the same problem once. */
async function recordProblems(db: Knex, ref: ImportRef, problems: LettaImportProblem[]): Promise<void> {
  if (problems.length === 0) return;
  await db.transaction(async (trx) => {
    const row = await LettaImport.query(trx).forOrg(ref.organizationId).findById(ref.importId).forUpdate();
    if (!row) return;
    const key = (problem: LettaImportProblem) => `${problem.kind}\u0000${problem.sourceId}\u0000${problem.reason}`;
    const known = new Set(row.problems.map(key));
    const fresh = problems.filter((problem) => !known.has(key(problem)) && known.add(key(problem)));
    if (fresh.length > 0) await row.$query(trx).patch({ problems: [...row.problems, ...fresh] });
  });
}

/**
 * Moves an organization from a server speaking the Letta `/v1` API into one of this server's organizations, in
 * steps a workflow calls one after another. Every step is safe to repeat: targets are found through the mapping
 * table before anything is created, and messages and passages get ids derived from their source ids, so a page
 * written again lands on the rows it wrote before.
 */
export function createLettaImporter(deps: LettaImporterDeps) {
  const { db } = deps;

  type Context = { run: LettaImport; source: LettaSource; mapping: Mapping; ref: ImportRef };

  async function open(ref: ImportRef, signal?: AbortSignal): Promise<Context> {
    const run = await LettaImport.query(db).forOrg(ref.organizationId).findById(ref.importId);
    if (!run) throw new Error(`Import ${ref.importId} does not exist`);
    const source = createLettaSource({
      url: run.sourceUrl,
      apiKey: deps.secrets.decrypt(run.apiKeyEnc),
      fetch: deps.egress.fetchFor({ organizationId: ref.organizationId }),
      ...(deps.requestsPerSecond ? { requestsPerSecond: deps.requestsPerSecond } : {}),
      ...(signal ? { signal } : {}),
    });
    return { run, source, mapping: createMapping(db, { organizationId: ref.organizationId, sourceUrl: run.sourceUrl, importId: run.id }), ref };
  }

  /** Counts every message and passage of an agent by reading them page by page (nothing here gives counts). */
  async function countAgent(source: LettaSource, agentId: string): Promise<{ messages: number; passages: number }> {
    let messages = 0;
    for (let after: string | null = null; ; ) {
      const parts = await source.messages(agentId, after, MESSAGE_PAGE);
      if (parts.length === 0) break;
      messages += new Set(parts.map((part) => part.id)).size;
      after = parts[parts.length - 1]!.id;
    }
    let passages = 0;
    for (let after: string | null = null; ; ) {
      const page = await source.passages(agentId, after, PASSAGE_PAGE);
      if (page.length === 0) break;
      passages += page.length;
      after = page[page.length - 1]!.id;
    }
    return { messages, passages };
  }

  /** What cannot come over whatever happens, known from the listing alone (a dry run reports these too). */
  function foreseenProblems(agents: SourceAgent[], tools: SourceTool[]): LettaImportProblem[] {
    const problems: LettaImportProblem[] = [];
    for (const tool of tools) {
      const type = tool.tool_type ?? 'custom';
      if (type !== 'custom' && !isBuiltInTool(tool)) {
        problems.push({ kind: 'tool', sourceId: tool.id, name: tool.name, reason: `A ${type} tool is not copied; agents that use it lose it` });
      }
    }
    for (const agent of agents) {
      const keys = (agent.tool_exec_environment_variables ?? agent.secrets ?? []).map((variable) => variable.key);
      if (keys.length > 0) {
        problems.push({
          kind: 'agent',
          sourceId: agent.id,
          name: agent.name,
          reason: `Secret values are never read from the source; set them again here: ${keys.join(', ')}`,
        });
      }
      if (agent.agent_type && !AGENT_TYPES.has(agent.agent_type)) {
        problems.push({ kind: 'agent', sourceId: agent.id, name: agent.name, reason: `Agent type '${agent.agent_type}' is not supported here; it comes over as letta_v1_agent` });
      }
    }
    return problems;
  }

  async function ensureTool(ctx: Context, tool: SourceTool): Promise<string | null> {
    const existing = await ctx.mapping.find('tool', tool.id);
    if (existing) return existing;
    if (isBuiltInTool(tool)) {
      const builtIn = (await ensureBaseTools(db, ctx.ref.organizationId)).get(tool.name);
      if (!builtIn) {
        await recordProblems(db, ctx.ref, [{ kind: 'tool', sourceId: tool.id, name: tool.name, reason: `The built-in tool '${tool.name}' does not exist here` }]);
        return null;
      }
      return (await ctx.mapping.ensure('tool', tool.id, async () => builtIn.id)).targetId;
    }
    if ((tool.tool_type ?? 'custom') !== 'custom') return null;
    const sameName = await Tool.query(db).forOrg(ctx.ref.organizationId).findOne({ name: tool.name });
    if (sameName) {
      if (sameName.toolType !== 'custom') {
        await recordProblems(db, ctx.ref, [{ kind: 'tool', sourceId: tool.id, name: tool.name, reason: `'${tool.name}' is a built-in tool here; agents use this server's` }]);
      } else {
        await recordProblems(db, ctx.ref, [{ kind: 'tool', sourceId: tool.id, name: tool.name, reason: `A tool named '${tool.name}' already existed here; agents use it as it is` }]);
      }
      return (await ctx.mapping.ensure('tool', tool.id, async () => sameName.id)).targetId;
    }
    const { targetId } = await ctx.mapping.ensure('tool', tool.id, async (trx) => {
      const created = await Tool.query(trx).insert({
        id: newId('tool'),
        organizationId: ctx.ref.organizationId,
        projectId: null,
        name: tool.name,
        toolType: 'custom',
        description: tool.description ?? null,
        sourceType: tool.source_type ?? 'python',
        sourceCode: tool.source_code ?? null,
        jsonSchema: (tool.json_schema ?? { name: tool.name, description: tool.description ?? '', parameters: { type: 'object', properties: {} } }) as ToolJsonSchema,
        argsJsonSchema: tool.args_json_schema ?? null,
        tags: tool.tags ?? [],
        returnCharLimit: tool.return_char_limit ?? 6000,
        pipRequirements: tool.pip_requirements ?? null,
        npmRequirements: tool.npm_requirements ?? null,
        defaultRequiresApproval: tool.default_requires_approval ?? null,
        enableParallelExecution: tool.enable_parallel_execution ?? false,
        metadata: tool.metadata_ ?? {},
        createdById: ctx.run.createdById,
        lastUpdatedById: ctx.run.createdById,
      });
      return created.id;
    });
    return targetId;
  }

  async function ensureIdentity(ctx: Context, identity: SourceIdentity): Promise<string> {
    const sameKey = await Identity.query(db)
      .forOrg(ctx.ref.organizationId)
      .where({ identifierKey: identity.identifier_key, projectId: ctx.run.projectId })
      .first();
    const { targetId } = await ctx.mapping.ensure('identity', identity.id, async (trx) => {
      if (sameKey) return sameKey.id;
      const created = await Identity.query(trx).insert({
        id: newId('identity'),
        organizationId: ctx.ref.organizationId,
        projectId: ctx.run.projectId,
        identifierKey: identity.identifier_key,
        name: identity.name,
        identityType: IDENTITY_TYPES.has(identity.identity_type as IdentityType) ? (identity.identity_type as IdentityType) : 'other',
        properties: (identity.properties ?? []) as IdentityProperty[],
      });
      return created.id;
    });
    return targetId;
  }

  async function ensureBlock(ctx: Context, block: SourceBlock): Promise<string> {
    const { targetId } = await ctx.mapping.ensure('block', block.id, async (trx) => {
      const created = await Block.query(trx).insert({
        id: newId('block'),
        organizationId: ctx.ref.organizationId,
        projectId: ctx.run.projectId,
        label: block.label,
        value: block.value,
        limit: block.limit ?? Math.max(block.value.length, 20000),
        description: block.description ?? null,
        readOnly: block.read_only ?? false,
        hidden: block.hidden ?? null,
        metadata: block.metadata ?? {},
        tags: block.tags ?? [],
        createdById: ctx.run.createdById,
        lastUpdatedById: ctx.run.createdById,
      });
      return created.id;
    });
    return targetId;
  }

  /** The source's name, or (when another agent here has it) the first free `<name>_imported[_n]`. */
  async function freeAgentName(trx: Knex, organizationId: string, name: string): Promise<string> {
    for (let attempt = 0; ; attempt++) {
      const candidate = attempt === 0 ? name : attempt === 1 ? `${name}_imported` : `${name}_imported_${attempt}`;
      if (!(await Agent.query(trx).forOrg(organizationId).findOne({ name: candidate }))) return candidate;
    }
  }

  const systemMessageIdOf = (ctx: Context, sourceAgentId: string) => derivedId('message', ctx.ref.organizationId, ctx.run.sourceUrl, 'system', sourceAgentId);
  const messageIdOf = (ctx: Context, sourceMessageId: string) => derivedId('message', ctx.ref.organizationId, ctx.run.sourceUrl, sourceMessageId);
  const passageIdOf = (ctx: Context, sourcePassageId: string) => `passage-${derivedUuid(ctx.ref.organizationId, ctx.run.sourceUrl, sourcePassageId)}`;

  /** Creates the agent itself with its blocks, tools and identities attached; the history follows page by page. */
  async function ensureAgent(ctx: Context, agent: SourceAgent): Promise<string> {
    const blockIds: Array<{ id: string; label: string }> = [];
    for (const block of blocksOf(agent)) blockIds.push({ id: await ensureBlock(ctx, block), label: block.label });
    const toolIds = new Set<string>();
    for (const tool of agent.tools ?? []) {
      const id = await ensureTool(ctx, tool);
      if (id) toolIds.add(id);
    }
    const identityIds: string[] = [];
    for (const sourceId of agent.identity_ids ?? agent.identities?.map((identity) => identity.id) ?? []) {
      const id = await ctx.mapping.find('identity', sourceId);
      if (id) identityIds.push(id);
    }
    const { targetId } = await ctx.mapping.ensure('agent', agent.id, async (trx) => {
      const agentId = newId('agent');
      const agentType = agent.agent_type && AGENT_TYPES.has(agent.agent_type) ? (agent.agent_type as AgentType) : 'letta_v1_agent';
      const name = await freeAgentName(trx, ctx.ref.organizationId, agent.name);
      if (name !== agent.name) {
        await recordProblems(trx, ctx.ref, [{ kind: 'agent', sourceId: agent.id, name: agent.name, reason: `An agent named '${agent.name}' already existed here; this one is '${name}'` }]);
      }
      await Agent.query(trx).insert({
        id: agentId,
        organizationId: ctx.ref.organizationId,
        projectId: ctx.run.projectId,
        name,
        agentType,
        system: agent.system ?? DEFAULT_SYSTEM_PROMPTS[agentType],
        description: agent.description ?? null,
        llmConfig: agent.llm_config as unknown as LlmConfig,
        embeddingConfig: (agent.embedding_config ?? null) as EmbeddingConfig | null,
        toolRules: agent.tool_rules ?? [],
        tags: agent.tags ?? [],
        metadata: agent.metadata ?? null,
        messageIds: [],
        messageBufferAutoclear: agent.message_buffer_autoclear ?? false,
        timezone: agent.timezone ?? 'UTC',
        maxFilesOpen: agent.max_files_open ?? null,
        perFileViewWindowCharLimit: agent.per_file_view_window_char_limit ?? null,
        hidden: agent.hidden ?? null,
        responseFormat: agent.response_format ?? null,
        // Only the keys: the source never gives values out, and the user sets them again here.
        toolExecEnvironmentVariables: (agent.tool_exec_environment_variables ?? agent.secrets ?? []).map((variable) => ({
          key: variable.key,
          value: deps.secrets.encrypt(''),
          description: variable.description ?? null,
        })),
        createdById: ctx.run.createdById,
        lastUpdatedById: ctx.run.createdById,
      });
      const uniqueBlocks = [...new Map(blockIds.map((block) => [block.label, block])).values()];
      if (uniqueBlocks.length > 0) {
        await AgentBlock.query(trx).insert(
          uniqueBlocks.map((block, position) => ({ agentId, blockId: block.id, organizationId: ctx.ref.organizationId, label: block.label, position })),
        );
      }
      if (toolIds.size > 0) await AgentTool.query(trx).insert([...toolIds].map((toolId) => ({ agentId, toolId, organizationId: ctx.ref.organizationId })));
      if (identityIds.length > 0) {
        await IdentityAgent.query(trx).insert(identityIds.map((identityId) => ({ identityId, agentId, organizationId: ctx.ref.organizationId })));
      }
      const systemMessageId = systemMessageIdOf(ctx, agent.id);
      await Message.query(trx).insert({ id: systemMessageId, organizationId: ctx.ref.organizationId, agentId, role: 'system', content: [] });
      await Agent.query(trx).forOrg(ctx.ref.organizationId).findById(agentId).patch({ messageIds: [systemMessageId] });
      return agentId;
    });
    return targetId;
  }

  /** Copies the history after the agent's cursor, one committed page (and cursor) at a time. */
  async function copyMessages(ctx: Context, agent: SourceAgent, targetId: string, row: LettaImportAgent, heartbeat: () => void): Promise<void> {
    const sourceSystemId = agent.message_ids?.[0];
    const textIsAssistant = (agent.agent_type ?? 'letta_v1_agent') === 'letta_v1_agent';
    let after = row.messagesCursor;
    for (;;) {
      const parts = await ctx.source.messages(agent.id, after, MESSAGE_PAGE);
      if (parts.length === 0) return;
      const rebuilt = rebuildMessages(parts, { textIsAssistant }).filter((message) => message.sourceId !== sourceSystemId);
      const cursor = parts[parts.length - 1]!.id;
      await db.transaction(async (trx) => {
        let inserted = 0;
        if (rebuilt.length > 0) {
          const ids = rebuilt.map((message) => messageIdOf(ctx, message.sourceId));
          // Objection answers an insert with the rows it was given, conflicts or not: count what was there before.
          const existing = await Message.query(trx).forOrg(ctx.ref.organizationId).whereIn('id', ids).resultSize();
          await Message.query(trx)
            .insert(
              rebuilt.map((message, index) => messageRow(message, { id: ids[index]!, organizationId: ctx.ref.organizationId, agentId: targetId, conversationId: null })),
            )
            .onConflict('id')
            .ignore();
          inserted = ids.length - existing;
        }
        await LettaImportAgent.query(trx)
          .forOrg(ctx.ref.organizationId)
          .findById([ctx.ref.importId, agent.id])
          .patch({ messagesCursor: cursor, messagesDone: row.messagesDone + inserted });
        row.messagesDone += inserted;
      });
      after = cursor;
      heartbeat();
    }
  }

  /**
   * Copies archival passages after the agent's cursor into the agent's archive here. A passage's embedding is kept
   * when the source gives one made by the archive's own model at its dimension; any other is embedded again.
   */
  async function copyPassages(ctx: Context, agent: SourceAgent, targetId: string, row: LettaImportAgent, heartbeat: () => void): Promise<void> {
    const target = await Agent.query(db).forOrg(ctx.ref.organizationId).findById(targetId);
    if (!target) return;
    const archive = await db.transaction((trx) => archiveForInsert(trx, target));
    const config = archive.embeddingConfig;
    let after = row.passagesCursor;
    for (;;) {
      const page = await ctx.source.passages(agent.id, after, PASSAGE_PAGE);
      if (page.length === 0) return;
      const passages: NewPassage[] = page.map((passage) => {
        const reusable =
          passage.embedding &&
          passage.embedding_config?.embedding_model === config.embedding_model &&
          passage.embedding_config?.embedding_dim === config.embedding_dim &&
          passage.embedding.length >= config.embedding_dim;
        return {
          id: passageIdOf(ctx, passage.id),
          text: passage.text,
          tags: passage.tags ?? [],
          metadata: passage.metadata ?? {},
          createdAt: passage.created_at ? new Date(passage.created_at) : null,
          createdById: ctx.run.createdById,
          // Letta pads vectors to 4096; the model's own dimension is the leading part.
          ...(reusable ? { vector: unitVector(passage.embedding!.slice(0, config.embedding_dim)) } : {}),
        };
      });
      const prepared = await deps.passages.prepare({ organizationId: ctx.ref.organizationId, archive: { id: archive.id, embeddingConfig: config }, passages });
      const cursor = page[page.length - 1]!.id;
      await db.transaction(async (trx) => {
        const existing = await Passage.query(trx).forOrg(ctx.ref.organizationId).whereIn('id', passages.map((passage) => passage.id!)).resultSize();
        await deps.passages.write(trx, prepared);
        const inserted = passages.length - existing;
        await LettaImportAgent.query(trx)
          .forOrg(ctx.ref.organizationId)
          .findById([ctx.ref.importId, agent.id])
          .patch({ passagesCursor: cursor, passagesDone: row.passagesDone + inserted });
        row.passagesDone += inserted;
      });
      after = cursor;
      heartbeat();
    }
  }

  const MCP_TYPES = new Set<McpServerType>(['stdio', 'sse', 'streamable_http']);

  /**
   * An MCP server by the same name and address, without any credentials: the source never gives tokens, headers or
   * environment values out, so the report asks for them. A server already here by that name is used as it is.
   */
  async function ensureMcpServer(ctx: Context, server: SourceMcpServer): Promise<void> {
    const type = (server.mcp_server_type ?? server.type ?? (server.command ? 'stdio' : 'streamable_http')) as McpServerType;
    if (!MCP_TYPES.has(type)) {
      await recordProblems(db, ctx.ref, [{ kind: 'mcp_server', sourceId: server.id, name: server.server_name, reason: `MCP server type '${type}' is not supported here` }]);
      return;
    }
    const sameName = await McpServer.query(db).forOrg(ctx.ref.organizationId).findOne({ serverName: server.server_name });
    const { created } = await ctx.mapping.ensure('mcp_server', server.id, async (trx) => {
      if (sameName) return sameName.id;
      const inserted = await McpServer.query(trx).insert({
        id: newMcpServerId(),
        organizationId: ctx.ref.organizationId,
        serverName: server.server_name,
        serverType: type,
        serverUrl: type === 'stdio' ? null : (server.server_url ?? null),
        command: type === 'stdio' ? (server.command ?? null) : null,
        args: type === 'stdio' ? (server.args ?? []) : [],
        envEnc: null,
        authHeader: null,
        authTokenEnc: null,
        customHeadersEnc: null,
        oauthTokensEnc: null,
        oauthClientInformationEnc: null,
        lastCheckedAt: null,
        lastCheckError: null,
        createdById: ctx.run.createdById,
        lastUpdatedById: ctx.run.createdById,
      });
      return inserted.id;
    });
    if (created && !sameName) {
      await recordProblems(db, ctx.ref, [
        { kind: 'mcp_server', sourceId: server.id, name: server.server_name, reason: 'Recreated without credentials (the source never gives them out): add its token, headers or environment again' },
      ]);
    }
  }

  /**
   * The agent's other conversations, each with its own messages (those it inherited from the agent's history are
   * the agent's rows, as on the source) and its context window; written again after a crash, they land on the same
   * rows (derived ids), so a conversation needs no cursor of its own.
   */
  async function copyConversations(ctx: Context, agent: SourceAgent, targetId: string, row: LettaImportAgent): Promise<void> {
    const textIsAssistant = (agent.agent_type ?? 'letta_v1_agent') === 'letta_v1_agent';
    for (const conversation of await ctx.source.conversations(agent.id)) {
      const systemMessageId = derivedId('message', ctx.ref.organizationId, ctx.run.sourceUrl, 'system', conversation.id);
      const { targetId: conversationId } = await ctx.mapping.ensure('conversation', conversation.id, async (trx) => {
        const id = newId('conversation');
        await Conversation.query(trx).insert({
          id,
          organizationId: ctx.ref.organizationId,
          agentId: targetId,
          messageIds: [systemMessageId],
          inheritedMessageIds: [],
          summary: conversation.summary ?? null,
          description: conversation.description ?? null,
          archived: conversation.archived ?? false,
          archivedAt: conversation.archived ? new Date() : null,
          hidden: conversation.hidden ?? false,
          model: conversation.model ?? null,
          modelSettings: conversation.model_settings ?? null,
          contextWindowLimit: conversation.context_window_limit ?? null,
          createdById: ctx.run.createdById,
          lastUpdatedById: ctx.run.createdById,
        } as Partial<Conversation>);
        await Message.query(trx).insert({ id: systemMessageId, organizationId: ctx.ref.organizationId, agentId: targetId, conversationId: id, role: 'system', content: [] } as Partial<Message>);
        return id;
      });
      const inherited: string[] = [];
      for (let after: string | null = null; ; ) {
        const parts = await ctx.source.conversationMessages(conversation.id, after, MESSAGE_PAGE);
        if (parts.length === 0) break;
        after = parts[parts.length - 1]!.id;
        const rebuilt = rebuildMessages(parts, { textIsAssistant });
        const ids = rebuilt.map((message) => messageIdOf(ctx, message.sourceId));
        const agentOwn = new Set(
          (await Message.query(db).forOrg(ctx.ref.organizationId).whereIn('id', ids).whereNull('conversationId').select('id')).map((message) => message.id),
        );
        inherited.push(...ids.filter((id) => agentOwn.has(id)));
        const own = rebuilt.flatMap((message, index) => (agentOwn.has(ids[index]!) ? [] : [{ message, id: ids[index]! }]));
        if (own.length === 0) continue;
        const existing = await Message.query(db).forOrg(ctx.ref.organizationId).whereIn('id', own.map((item) => item.id)).resultSize();
        await Message.query(db)
          .insert(
            own.map(({ message, id }) => messageRow(message, { id, organizationId: ctx.ref.organizationId, agentId: targetId, conversationId })),
          )
          .onConflict('id')
          .ignore();
        const inserted = own.length - existing;
        if (inserted > 0) {
          row.messagesDone += inserted;
          await LettaImportAgent.query(db).forOrg(ctx.ref.organizationId).findById([ctx.ref.importId, agent.id]).patch({ messagesDone: row.messagesDone });
        }
      }
      const window = (conversation.in_context_message_ids ?? []).slice(1).map((id) => messageIdOf(ctx, id));
      const present = new Set(
        window.length > 0 ? (await Message.query(db).forOrg(ctx.ref.organizationId).whereIn('id', window).select('id')).map((message) => message.id) : [],
      );
      await Conversation.query(db)
        .forOrg(ctx.ref.organizationId)
        .findById(conversationId)
        .patch({ messageIds: [systemMessageId, ...window.filter((id) => present.has(id))], inheritedMessageIds: inherited } as Partial<Conversation>);
    }
  }

  /** The context window as the source had it (the ids that came over), then the system prompt compiled here. */
  async function finishAgent(ctx: Context, agent: SourceAgent, targetId: string): Promise<void> {
    const sourceIds = (agent.message_ids ?? []).slice(1);
    const candidates = sourceIds.map((id) => messageIdOf(ctx, id));
    const present = new Set(
      candidates.length > 0
        ? (await Message.query(db).forOrg(ctx.ref.organizationId).where({ agentId: targetId }).whereIn('id', candidates).select('id')).map((message) => message.id)
        : [],
    );
    await db.transaction(async (trx) => {
      await Agent.query(trx)
        .forOrg(ctx.ref.organizationId)
        .findById(targetId)
        .patch({ messageIds: [systemMessageIdOf(ctx, agent.id), ...candidates.filter((id) => present.has(id))] });
      await recompileSystemMessage(trx, ctx.ref.organizationId, targetId, new Date());
      await LettaImportAgent.query(trx).forOrg(ctx.ref.organizationId).findById([ctx.ref.importId, agent.id]).patch({ status: 'done' });
    });
  }

  return {
    /**
     * Reads what the source holds and records it as the run's plan (and, for a real run, its agent queue).
     * A dry run ends here: the plan and the problems foreseen are its report.
     */
    async plan(ref: ImportRef, heartbeat: () => void = () => {}): Promise<{ agents: number; dryRun: boolean }> {
      const ctx = await open(ref);
      const agents = await ctx.source.agents();
      const tools = await ctx.source.tools();
      const identities = await ctx.source.identities();
      const groups = await ctx.source.groups();
      const mcpServers = await ctx.source.mcpServers();
      const folders = await ctx.source.folders();
      let files = 0;
      if (ctx.run.dryRun) for (const folder of folders) files += (await ctx.source.folderFiles(folder.id)).length;
      const blocks = new Set(agents.flatMap((agent) => blocksOf(agent).map((block) => block.id)));
      const planned: LettaImportPlan['agents'] = [];
      let conversations = 0;
      for (const agent of agents) {
        const counts = ctx.run.dryRun ? await countAgent(ctx.source, agent.id) : { messages: 0, passages: 0 };
        if (ctx.run.dryRun) conversations += (await ctx.source.conversations(agent.id)).length;
        planned.push({ sourceId: agent.id, name: agent.name, ...counts });
        heartbeat();
      }
      const plan: LettaImportPlan = {
        agents: planned,
        blocks: blocks.size,
        tools: tools.filter((tool) => (tool.tool_type ?? 'custom') === 'custom').length,
        identities: identities.length,
        groups: groups.length,
        folders: folders.length,
        files,
        mcpServers: mcpServers.length,
        conversations,
      };
      await recordProblems(db, ref, foreseenProblems(agents, tools));
      await db.transaction(async (trx) => {
        await LettaImport.query(trx).forOrg(ref.organizationId).findById(ref.importId).patch({ plan, phase: ctx.run.dryRun ? 'done' : 'shared' });
        if (ctx.run.dryRun || agents.length === 0) return;
        await LettaImportAgent.query(trx)
          .insert(agents.map((agent) => ({ importId: ref.importId, sourceAgentId: agent.id, organizationId: ref.organizationId, name: agent.name, status: 'pending' as const })))
          .onConflict(['import_id', 'source_agent_id'])
          .ignore();
      });
      return { agents: agents.length, dryRun: ctx.run.dryRun };
    },

    /** Tools and identities, which agents refer to; each is looked up in the mapping before it is created. */
    async importShared(ref: ImportRef): Promise<void> {
      const ctx = await open(ref);
      for (const tool of await ctx.source.tools()) await ensureTool(ctx, tool);
      for (const identity of await ctx.source.identities()) await ensureIdentity(ctx, identity);
      for (const server of await ctx.source.mcpServers()) await ensureMcpServer(ctx, server);
      await LettaImport.query(db).forOrg(ref.organizationId).findById(ref.importId).patch({ phase: 'agents' });
    },

    /** Up to `size` pending agents, each whole (its history and passages resumed from their cursors). */
    async importAgentBatch(ref: ImportRef, size: number, heartbeat: () => void = () => {}): Promise<{ pending: number }> {
      const ctx = await open(ref);
      const batch = await LettaImportAgent.query(db).forOrg(ref.organizationId).where({ importId: ref.importId, status: 'pending' }).orderBy('sourceAgentId').limit(size);
      for (const row of batch) {
        try {
          const agent = await ctx.source.agent(row.sourceAgentId);
          const targetId = await ensureAgent(ctx, agent);
          heartbeat();
          await copyMessages(ctx, agent, targetId, row, heartbeat);
          await copyPassages(ctx, agent, targetId, row, heartbeat);
          await copyConversations(ctx, agent, targetId, row);
          await finishAgent(ctx, agent, targetId);
        } catch (error) {
          const status = (error as { status?: number | null }).status;
          // A source that refuses or has lost the agent fails that agent alone; anything else is retried by the workflow.
          if (status === undefined || status === null || status >= 500 || status === 429) throw error;
          await LettaImportAgent.query(db)
            .forOrg(ref.organizationId)
            .findById([ref.importId, row.sourceAgentId])
            .patch({ status: 'failed', failureReason: (error as Error).message });
          await recordProblems(db, ref, [{ kind: 'agent', sourceId: row.sourceAgentId, name: row.name, reason: (error as Error).message }]);
        }
        heartbeat();
      }
      const pending = await LettaImportAgent.query(db).forOrg(ref.organizationId).where({ importId: ref.importId, status: 'pending' }).resultSize();
      return { pending };
    },

    /**
     * Folders with their files. A file comes over as the text the source extracted from it (a PDF as plain text),
     * stored as an upload here; answers the files whose ingestion (chunking and embedding under the folder's
     * embedding here) is still to run, which the workflow starts.
     */
    async importFolders(ref: ImportRef): Promise<{ fileIds: string[] }> {
      const ctx = await open(ref);
      const toIngest: string[] = [];
      for (const folder of await ctx.source.folders()) {
        const sameName = await Source.query(db).forOrg(ref.organizationId).findOne({ name: folder.name });
        const { targetId: folderId, created } = await ctx.mapping.ensure('folder', folder.id, async (trx) => {
          if (sameName) return sameName.id;
          const inserted = await Source.query(trx).insert({
            id: newId('source'),
            organizationId: ref.organizationId,
            name: folder.name,
            description: folder.description ?? null,
            instructions: folder.instructions ?? null,
            metadata: folder.metadata ?? {},
            embeddingConfig: (folder.embedding_config ?? LOCAL_EMBEDDING_CONFIG) as EmbeddingConfig,
            vectorDbProvider: 'native',
            createdById: ctx.run.createdById,
            lastUpdatedById: ctx.run.createdById,
          });
          return inserted.id;
        });
        if (created && sameName) {
          await recordProblems(db, ref, [{ kind: 'folder', sourceId: folder.id, name: folder.name, reason: `A folder named '${folder.name}' already existed here; its files go into it` }]);
        }
        for (const file of await ctx.source.folderFiles(folder.id)) {
          const name = (file.original_file_name ?? file.file_name ?? file.id).split('/').pop()!;
          if (file.content === null || file.content === undefined) {
            await recordProblems(db, ref, [{ kind: 'file', sourceId: file.id, name, reason: 'The source gave no content for this file (not processed there?)' }]);
            continue;
          }
          const declared = fileTypeFor(name, file.file_type);
          // What the source gives is the text it extracted: a binary format's text is stored as plain text.
          const mime = declared && declared.kind !== 'pdf' ? declared.mime : 'text/plain';
          const data = Buffer.from(file.content, 'utf8');
          const { targetId: fileId } = await ctx.mapping.ensure('file', file.id, async (trx) => {
            const taken = await SourceFile.query(trx).forOrg(ref.organizationId).findOne({ sourceId: folderId, fileName: name });
            const inserted = await SourceFile.query(trx).insert({
              id: newId('file'),
              organizationId: ref.organizationId,
              sourceId: folderId,
              fileName: taken ? `${name} (imported ${file.id.slice(-6)})` : name,
              originalFileName: name,
              filePath: null,
              fileType: mime,
              fileSize: data.length,
              fileCreationDate: null,
              fileLastModifiedDate: null,
              processingStatus: 'parsing',
              errorMessage: null,
              totalChunks: null,
              chunksEmbedded: null,
              content: null,
            });
            await FileUpload.query(trx).insert({ fileId: inserted.id, organizationId: ref.organizationId, data });
            return inserted.id;
          });
          const stored = await SourceFile.query(db).forOrg(ref.organizationId).findById(fileId).select('processingStatus');
          if (stored && stored.processingStatus !== 'completed') toIngest.push(fileId);
        }
      }
      return { fileIds: toIngest };
    },

    /** What links agents once they all exist: groups with their shared blocks, folders attached, identities' blocks. */
    async importLinks(ref: ImportRef): Promise<void> {
      const ctx = await open(ref);
      const agents = await ctx.mapping.all('agent');
      const blocks = await ctx.mapping.all('block');
      for (const group of await ctx.source.groups()) {
        const memberIds = (group.agent_ids ?? []).map((id) => agents.get(id));
        const managerId = group.manager_agent_id ? agents.get(group.manager_agent_id) : null;
        if (memberIds.some((id) => id === undefined) || managerId === undefined) {
          await recordProblems(db, ref, [{ kind: 'group', sourceId: group.id, name: group.description ?? null, reason: 'Some of its agents did not come over' }]);
          continue;
        }
        if (!MANAGER_TYPES.has(group.manager_type)) {
          await recordProblems(db, ref, [{ kind: 'group', sourceId: group.id, name: group.description ?? null, reason: `Manager type '${group.manager_type}' is not supported here` }]);
          continue;
        }
        await ctx.mapping.ensure('group', group.id, async (trx) => {
          const groupId = newId('group');
          await Group.query(trx).insert({
            id: groupId,
            organizationId: ref.organizationId,
            projectId: ctx.run.projectId,
            managerType: group.manager_type as GroupManagerType,
            description: group.description ?? '',
            managerAgentId: managerId ?? null,
            terminationToken: group.termination_token ?? null,
            maxTurns: group.max_turns ?? null,
            sleeptimeAgentFrequency: group.sleeptime_agent_frequency ?? null,
            maxMessageBufferLength: group.max_message_buffer_length ?? null,
            minMessageBufferLength: group.min_message_buffer_length ?? null,
            hidden: group.hidden ?? null,
            turnsCounter: 0,
            createdById: ctx.run.createdById,
            lastUpdatedById: ctx.run.createdById,
          } as Partial<Group>);
          const members = memberIds as string[];
          if (members.length > 0) {
            await GroupAgent.query(trx).insert(members.map((agentId, position) => ({ groupId, agentId, organizationId: ref.organizationId, position })));
          }
          const shared = (group.shared_block_ids ?? []).flatMap((id) => blocks.get(id) ?? []);
          if (shared.length > 0) await GroupBlock.query(trx).insert(shared.map((blockId) => ({ groupId, blockId, organizationId: ref.organizationId })));
          return groupId;
        });
      }
      const folders = await ctx.mapping.all('folder');
      for (const [sourceAgentId, agentId] of agents) {
        const agent = await ctx.source.agent(sourceAgentId).catch(() => null);
        const sourceIds = (agent?.sources ?? []).flatMap((folder) => folders.get(folder.id) ?? []);
        if (sourceIds.length === 0) continue;
        await FolderAgent.query(db)
          .insert(sourceIds.map((sourceId) => ({ sourceId, agentId, organizationId: ref.organizationId })))
          .onConflict(['source_id', 'agent_id'])
          .ignore();
      }
      for (const identity of await ctx.source.identities()) {
        const identityId = await ctx.mapping.find('identity', identity.id);
        const blockIds = (identity.block_ids ?? []).flatMap((id) => blocks.get(id) ?? []);
        if (!identityId || blockIds.length === 0) continue;
        await IdentityBlock.query(db)
          .insert(blockIds.map((blockId) => ({ identityId, blockId, organizationId: ref.organizationId })))
          .onConflict(['identity_id', 'block_id'])
          .ignore();
      }
      await LettaImport.query(db).forOrg(ref.organizationId).findById(ref.importId).patch({ phase: 'links' });
    },

    /** Closes the run: completed (with its problems), or failed with the reason that stopped it. */
    async finish(ref: ImportRef, failure?: string): Promise<void> {
      await LettaImport.query(db)
        .forOrg(ref.organizationId)
        .findById(ref.importId)
        .whereNull('completedAt')
        .patch({ status: failure ? 'failed' : 'completed', phase: 'done', error: failure ?? null, completedAt: new Date() });
    },
  };
}

export type LettaImporter = ReturnType<typeof createLettaImporter>;

/** What a run has written so far, counted from its mappings and agent rows. */
export async function importProgress(db: Knex, ref: ImportRef) {
  const agents = await LettaImportAgent.query(db).forOrg(ref.organizationId).where({ importId: ref.importId });
  const created: Array<{ kind: string; count: string }> = await db('letta_import_mappings')
    .where({ organization_id: ref.organizationId, import_id: ref.importId })
    .groupBy('kind')
    .select('kind')
    .count('source_id as count');
  return {
    agentsTotal: agents.length,
    agentsDone: agents.filter((agent) => agent.status === 'done').length,
    agentsFailed: agents.filter((agent) => agent.status === 'failed').length,
    messages: agents.reduce((sum, agent) => sum + agent.messagesDone, 0),
    passages: agents.reduce((sum, agent) => sum + agent.passagesDone, 0),
    created: Object.fromEntries(created.map((row) => [row.kind, Number(row.count)])) as Record<string, number>,
  };
}

/** A rebuilt source message as the row it becomes here, in the agent's history or in one of its conversations. */
function messageRow(message: RebuiltMessage, place: { id: string; organizationId: string; agentId: string; conversationId: string | null }) {
  return {
    ...place,
    role: message.role,
    content: message.content as ContentPart[],
    name: message.name,
    otid: message.otid,
    senderId: message.senderId,
    toolCalls: message.toolCalls,
    toolCallId: message.toolCallId,
    toolReturns: message.toolReturns,
    approvals: message.approvals,
    approve: message.approve,
    approvalRequestId: message.approvalRequestId,
    denialReason: message.denialReason,
    isErr: message.isErr,
    createdAt: message.createdAt,
  };
}
