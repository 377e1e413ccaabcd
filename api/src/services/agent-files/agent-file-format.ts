import { DEFAULT_BLOCK_LIMIT } from '@engram/core';
import { z } from 'zod';
import { UnprocessableError, type UnprocessableIssue } from '../../errors.js';
import {
  AGENT_TYPES,
  EmbeddingConfigSchema,
  LlmConfigSchema,
  Metadata,
  ResponseFormatSchema,
  ToolRuleSchema,
} from '../../contracts/v1/agent-config.js';
import { isValidAgentName } from '../agents/agent-names.js';
import { EnvironmentVariableName, PipRequirementSchema } from '../sandbox/sandbox-settings.js';
import { DEFAULT_RETURN_CHAR_LIMIT } from '../tools/return-char-limit.js';

/**
 * The agent file (`.af`): one JSON document holding agents and everything they use, so it can be imported into
 * any organization. This module is the format's single definition: export writes it, import reads it.
 *
 * It reads both forms Letta has written, and is as tolerant as Letta's own exporters were:
 * - the current multi-entity file (`agents`, `blocks`, `tools`, `groups`, `files`, `sources`, `mcp_servers`,
 *   `metadata.revision_id`), whose `id`s are file-local and only link entries to each other;
 * - the legacy single-agent file (the agent at the top level with `core_memory`, its tools inline, `messages`
 *   with naive timestamps and `in_context_message_indices`, tool returns without `tool_call_id`);
 * - either one as a JSON string holding the document (an older exporter double-encoded it);
 * - null wherever a list, flag or map is absent; environment variables as an object or a list of entries;
 *   timestamps without a zone, read as UTC; `metadata_` for `metadata`.
 * Where Letta's own files hold what Letta allowed and Engram would refuse, the import goes on with a warning
 * instead (a block value over its limit raises the limit; a child rule without its children is left out;
 * skills, which Engram lacks, are left out). Everything else is strict: a broken link, a bad tool rule or a
 * malformed timestamp is a 422 that lists every problem with its path inside the file. Unknown fields are
 * ignored, so a file from a newer server still imports.
 *
 * The compiled system message is derived from `system`, the blocks, tools and rules, so it is dropped on read
 * and rebuilt on import. Secrets never leave the server: export writes the variables' names with empty values.
 */

const FileId = z.string().min(1);

/** Letta writes null where a list is empty or a flag unset; both mean the default here. */
const list = <T extends z.ZodType>(item: T) =>
  z
    .array(item)
    .nullish()
    .transform((value) => value ?? []);
const flag = (fallback: boolean) =>
  z
    .boolean()
    .nullish()
    .transform((value) => value ?? fallback);
const optional = <T extends z.ZodType>(schema: T) =>
  schema.nullish().transform((value): z.output<T> | null => (value ?? null) as z.output<T> | null);
const MetadataOrEmpty = Metadata.nullish().transform((value) => value ?? {});

const HAS_ZONE = /(?:Z|[+-]\d\d:?\d\d)$/i;

/** ISO 8601 with or without a zone (Python's `isoformat()` of a naive datetime), as a UTC ISO string. */
export const FileTimestamp = z.iso
  .datetime({ offset: true, local: true })
  .transform((text) => new Date(HAS_ZONE.test(text) ? text : `${text}Z`).toISOString());

/** Letta renamed `metadata` to `metadata_` on some entities and back on others; either spelling is read. */
const withMetadataAlias = (raw: unknown) =>
  isObject(raw) && raw.metadata === undefined && raw.metadata_ !== undefined ? { ...raw, metadata: raw.metadata_ } : raw;

const isKnownTimezone = (timezone: string) => {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: timezone });
    return true;
  } catch {
    return false;
  }
};

/** `{ "NAME": "value" }` (Letta's current exporter) or `[{ key, value, description }]` (its legacy one and Engram's first). */
const EnvironmentVariablesSchema = z.preprocess(
  (raw) => (isObject(raw) ? Object.entries(raw).map(([key, value]) => ({ key, value })) : raw),
  list(
    z.object({
      key: EnvironmentVariableName,
      value: z
        .string()
        .nullish()
        .transform((value) => value ?? ''),
      description: optional(z.string()),
    }),
  ),
);

const ContentPartSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('text'), text: z.string() }),
  z.looseObject({ type: z.literal('reasoning'), reasoning: z.string() }),
  z.looseObject({ type: z.literal('redacted_reasoning'), data: z.string() }),
  z.looseObject({ type: z.literal('omitted_reasoning') }),
  z.looseObject({ type: z.literal('image'), source: z.record(z.string(), z.unknown()) }),
]);

const ToolCallSchema = z.object({
  id: z.string(),
  type: z.literal('function').default('function'),
  function: z.object({ name: z.string(), arguments: z.string() }),
});

const ToolReturnSchema = z.looseObject({
  /** Legacy files leave it out: it is the message's own `tool_call_id`. */
  tool_call_id: z.string().optional(),
  status: z.enum(['success', 'error']),
  /** Legacy files leave it out: it is the message's text. */
  func_response: z.string().nullish(),
  stdout: z.array(z.string()).nullish(),
  stderr: z.array(z.string()).nullish(),
});

const MessageSchema = z
  .object({
    /** File-local; `in_context_message_ids` refers to it. */
    id: z.string().optional(),
    role: z.enum(['system', 'user', 'assistant', 'tool', 'approval', 'summary']),
    // Hand-written files may give plain text.
    content: z
      .union([z.string().transform((text) => [{ type: 'text' as const, text }]), z.array(ContentPartSchema)])
      .nullish()
      .transform((value) => value ?? []),
    name: optional(z.string()),
    otid: optional(z.string()),
    model: optional(z.string()),
    tool_calls: optional(z.array(ToolCallSchema)),
    tool_call_id: optional(z.string()),
    tool_returns: optional(z.array(ToolReturnSchema)),
    approvals: optional(z.array(z.looseObject({ type: z.enum(['approval', 'tool']), tool_call_id: z.string() }))),
    approve: optional(z.boolean()),
    approval_request_id: optional(z.string()),
    denial_reason: optional(z.string()),
    is_err: optional(z.boolean()),
    created_at: FileTimestamp.optional(),
    /** Legacy files mark the context window on each message when they give no indices. */
    in_context: z.boolean().nullish(),
  })
  .transform(({ in_context: _inContext, ...message }, ctx) => {
    if (!message.tool_returns) return { ...message, tool_returns: null };
    const text = message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
    const tool_returns = message.tool_returns.map((returned, index) => {
      const toolCallId = returned.tool_call_id ?? message.tool_call_id;
      if (!toolCallId) {
        ctx.addIssue({ code: 'custom', path: ['tool_returns', index, 'tool_call_id'], message: 'A tool return needs the tool_call_id it answers' });
      }
      return { ...returned, tool_call_id: toolCallId ?? '', func_response: returned.func_response ?? text };
    });
    return { ...message, tool_returns };
  });

const BlockSchema = z.preprocess(
  withMetadataAlias,
  z.object({
    id: FileId,
    label: z.string().min(1),
    value: z.string(),
    limit: z
      .number()
      .int()
      .positive()
      .nullish()
      .transform((value) => value ?? DEFAULT_BLOCK_LIMIT),
    description: optional(z.string()),
    read_only: flag(false),
    hidden: optional(z.boolean()),
    metadata: MetadataOrEmpty,
    tags: list(z.string()),
  }),
);

const ToolSchema = z.preprocess(
  withMetadataAlias,
  z.object({
    id: FileId,
    name: z.string().min(1),
    tool_type: z
      .string()
      .nullish()
      .transform((value) => value ?? 'custom'),
    source_type: z
      .string()
      .nullish()
      .transform((value) => value ?? 'python'),
    source_code: optional(z.string()),
    json_schema: optional(Metadata),
    args_json_schema: optional(Metadata),
    description: optional(z.string()),
    tags: list(z.string()),
    return_char_limit: z
      .number()
      .int()
      .min(1)
      .max(1_000_000)
      .nullish()
      .transform((value) => value ?? DEFAULT_RETURN_CHAR_LIMIT),
    pip_requirements: optional(z.array(PipRequirementSchema)),
    npm_requirements: optional(z.array(z.object({ name: z.string().min(1), version: z.string().nullish() }))),
    default_requires_approval: optional(z.boolean()),
    enable_parallel_execution: flag(false),
    metadata: MetadataOrEmpty,
  }),
);

const AgentSchema = z.preprocess(
  withMetadataAlias,
  z.object({
    id: FileId,
    name: z.string().min(1).refine(isValidAgentName, 'An agent name may only contain letters, digits, spaces, dashes, underscores and apostrophes'),
    agent_type: z
      .enum(AGENT_TYPES)
      .nullish()
      .transform((value) => value ?? 'letta_v1_agent'),
    /** The prompt template; the agent type's default prompt when left out. */
    system: z.string().optional(),
    description: optional(z.string()),
    metadata: optional(Metadata),
    llm_config: LlmConfigSchema,
    embedding_config: optional(EmbeddingConfigSchema),
    tool_rules: list(ToolRuleSchema),
    tags: list(z.string()),
    timezone: z
      .string()
      .refine(isKnownTimezone, 'Unknown IANA timezone')
      .nullish()
      .transform((value) => value ?? 'UTC'),
    message_buffer_autoclear: flag(false),
    max_files_open: optional(z.number().int().min(1).max(1000)),
    per_file_view_window_char_limit: optional(z.number().int().min(1)),
    hidden: optional(z.boolean()),
    response_format: optional(ResponseFormatSchema),
    /** In prompt order. */
    block_ids: list(FileId),
    tool_ids: list(FileId),
    source_ids: list(FileId),
    identity_ids: list(FileId),
    messages: list(MessageSchema),
    /** Letta's current form: file-local message ids, in context order. */
    in_context_message_ids: z.array(z.string()).nullish(),
    /** Engram's first form and Letta's legacy one: positions in `messages`. */
    in_context_message_indices: z.array(z.number().int().min(0)).nullish(),
    tool_exec_environment_variables: EnvironmentVariablesSchema,
    secrets: EnvironmentVariablesSchema,
  }),
);

const GroupSchema = z.object({
  id: FileId,
  description: optional(z.string()),
  agent_ids: list(FileId),
  shared_block_ids: list(FileId),
  hidden: optional(z.boolean()),
  manager_config: z
    .looseObject({
      manager_type: z.enum(['round_robin', 'supervisor', 'dynamic', 'sleeptime', 'voice_sleeptime', 'swarm']),
      manager_agent_id: FileId.nullish(),
      termination_token: z.string().nullish(),
      max_turns: z.number().int().min(1).nullish(),
      sleeptime_agent_frequency: z.number().int().min(1).nullish(),
      max_message_buffer_length: z.number().int().min(1).nullish(),
      min_message_buffer_length: z.number().int().min(1).nullish(),
    })
    .nullish()
    .transform((value) => value ?? { manager_type: 'round_robin' as const }),
});

const SourceSchema = z.preprocess(
  withMetadataAlias,
  z.object({
    id: FileId,
    name: z.string().min(1),
    description: optional(z.string()),
    instructions: optional(z.string()),
    metadata: MetadataOrEmpty,
    embedding_config: optional(EmbeddingConfigSchema),
  }),
);

const FileSchema = z.object({
  id: FileId,
  source_id: FileId,
  file_name: z.string().min(1),
  original_file_name: optional(z.string()),
  file_type: optional(z.string()),
  /** The extracted text; a file without it cannot be ingested again. */
  content: optional(z.string()),
});

/**
 * An MCP server as Letta writes it: its transport, and its URL or command. Credentials (auth token, headers,
 * environment) are never in a file; the server is recreated without them and the user is asked for them.
 */
const McpServerSchema = z
  .object({
    id: FileId,
    server_name: z.string().trim().min(1).max(255),
    server_type: z.enum(['stdio', 'sse', 'streamable_http']).nullish(),
    server_url: z.url({ protocol: /^https?$/, error: 'server_url must be an http(s) URL' }).nullish(),
    stdio_config: z.looseObject({ command: z.string().min(1), args: list(z.string()) }).nullish(),
  })
  .transform((server, ctx) => {
    const type = server.server_type ?? (server.stdio_config ? 'stdio' : 'sse');
    if (type === 'stdio' && !server.stdio_config) ctx.addIssue({ code: 'custom', path: ['stdio_config'], message: 'A stdio server needs its stdio_config (command and args)' });
    if (type !== 'stdio' && !server.server_url) ctx.addIssue({ code: 'custom', path: ['server_url'], message: `A ${type} server needs its server_url` });
    return { id: server.id, server_name: server.server_name, server_type: type, server_url: server.server_url ?? null, stdio_config: server.stdio_config ?? null };
  });

/**
 * Someone the agents act for. Letta's legacy file lists the agent's identities at the top level; Engram's export
 * does too, with ids the agents' `identity_ids` name. An identity is matched by its `identifier_key` on import.
 */
const IdentitySchema = z.object({
  id: FileId.optional(),
  identifier_key: z.string().min(1),
  name: z.string().min(1),
  identity_type: z
    .enum(['org', 'user', 'other'])
    .nullish()
    .transform((value) => value ?? 'other'),
  properties: list(
    z.discriminatedUnion('type', [
      z.object({ key: z.string().min(1), type: z.literal('string'), value: z.string() }),
      z.object({ key: z.string().min(1), type: z.literal('number'), value: z.number() }),
      z.object({ key: z.string().min(1), type: z.literal('boolean'), value: z.boolean() }),
      z.object({ key: z.string().min(1), type: z.literal('json'), value: z.record(z.string(), z.unknown()) }),
    ]),
  ),
});

type Issue = { path: Array<string | number>; message: string };

type ParsedFile = z.output<typeof CurrentFileSchema>;

/** What a per-entry schema cannot see: links between entries, and rules over the whole file. */
function crossReferenceIssues(file: ParsedFile): Issue[] {
  const issues: Issue[] = [];
  const duplicates = (values: string[]) => values.filter((value, index) => values.indexOf(value) !== index);
  for (const [kind, ids] of [
    ['agents', file.agents.map((agent) => agent.id)],
    ['blocks', file.blocks.map((block) => block.id)],
    ['tools', file.tools.map((tool) => tool.id)],
    ['groups', file.groups.map((group) => group.id)],
    ['sources', file.sources.map((source) => source.id)],
    ['files', file.files.map((entry) => entry.id)],
    ['mcp_servers', file.mcp_servers.map((server) => server.id)],
  ] as const) {
    for (const id of new Set(duplicates(ids))) issues.push({ path: [kind], message: `The id '${id}' is used by more than one of ${kind}` });
  }
  for (const name of new Set(duplicates(file.tools.map((tool) => tool.name)))) {
    issues.push({ path: ['tools'], message: `More than one tool is named '${name}'` });
  }
  for (const name of new Set(duplicates(file.mcp_servers.map((server) => server.server_name)))) {
    issues.push({ path: ['mcp_servers'], message: `More than one MCP server is named '${name}'` });
  }
  file.tools.forEach((tool, index) => {
    if (tool.tool_type === 'custom' && !tool.source_code) issues.push({ path: ['tools', index, 'source_code'], message: 'A custom tool needs its source_code' });
  });
  const blocksById = new Map(file.blocks.map((block) => [block.id, block]));
  const toolIds = new Set(file.tools.map((tool) => tool.id));
  const agentIds = new Set(file.agents.map((agent) => agent.id));
  const sourceIds = new Set(file.sources.map((source) => source.id));
  const identityIds = new Set(file.identities.flatMap((identity) => identity.id ?? []));
  file.agents.forEach((agent, agentIndex) => {
    const labels = new Set<string>();
    agent.block_ids.forEach((blockId, index) => {
      const path = ['agents', agentIndex, 'block_ids', index];
      const block = blocksById.get(blockId);
      if (!block) issues.push({ path, message: `No block has the id '${blockId}'` });
      else if (labels.has(block.label)) issues.push({ path, message: `The agent has more than one block labelled '${block.label}'` });
      else labels.add(block.label);
    });
    agent.tool_ids.forEach((toolId, index) => {
      if (!toolIds.has(toolId)) issues.push({ path: ['agents', agentIndex, 'tool_ids', index], message: `No tool has the id '${toolId}'` });
    });
    agent.identity_ids.forEach((identityId, index) => {
      if (!identityIds.has(identityId)) issues.push({ path: ['agents', agentIndex, 'identity_ids', index], message: `No identity has the id '${identityId}'` });
    });
    agent.source_ids.forEach((sourceId, index) => {
      if (!sourceIds.has(sourceId)) issues.push({ path: ['agents', agentIndex, 'source_ids', index], message: `No source has the id '${sourceId}'` });
    });
    const messageIds = new Map(agent.messages.flatMap((message, index) => (message.id ? [[message.id, index] as const] : [])));
    agent.in_context_message_ids?.forEach((messageId, index) => {
      if (!messageIds.has(messageId)) {
        issues.push({ path: ['agents', agentIndex, 'in_context_message_ids', index], message: `The agent has no message with the id '${messageId}'` });
      }
    });
    const seen = new Set<number>();
    agent.in_context_message_indices?.forEach((messageIndex, index) => {
      const path = ['agents', agentIndex, 'in_context_message_indices', index];
      if (messageIndex >= agent.messages.length) issues.push({ path, message: `The agent has no message ${messageIndex} (it has ${agent.messages.length})` });
      if (seen.has(messageIndex)) issues.push({ path, message: `Message ${messageIndex} is listed twice` });
      seen.add(messageIndex);
    });
  });
  file.groups.forEach((group, groupIndex) => {
    group.agent_ids.forEach((agentId, index) => {
      if (!agentIds.has(agentId)) issues.push({ path: ['groups', groupIndex, 'agent_ids', index], message: `No agent has the id '${agentId}'` });
    });
    const manager = group.manager_config.manager_agent_id;
    if (manager && !agentIds.has(manager)) {
      issues.push({ path: ['groups', groupIndex, 'manager_config', 'manager_agent_id'], message: `No agent has the id '${manager}'` });
    }
    group.shared_block_ids.forEach((blockId, index) => {
      if (!blocksById.has(blockId)) issues.push({ path: ['groups', groupIndex, 'shared_block_ids', index], message: `No block has the id '${blockId}'` });
    });
  });
  file.files.forEach((entry, index) => {
    if (!sourceIds.has(entry.source_id)) issues.push({ path: ['files', index, 'source_id'], message: `No source has the id '${entry.source_id}'` });
  });
  return issues;
}

const CurrentFileSchema = z.object({
  agents: z.array(AgentSchema).min(1),
  blocks: list(BlockSchema),
  tools: list(ToolSchema),
  groups: list(GroupSchema),
  files: list(FileSchema),
  sources: list(SourceSchema),
  mcp_servers: list(McpServerSchema),
  identities: list(IdentitySchema),
  metadata: MetadataOrEmpty,
  created_at: FileTimestamp.nullish(),
});

/**
 * The legacy single-agent file: the agent at the top level, its blocks under `core_memory` (or, as Engram's
 * first exporter wrote them, `memory.blocks`) and its tools inline, without ids.
 */
function fromLegacy(legacy: Record<string, unknown>): Record<string, unknown> {
  const { core_memory: coreMemory, memory, tools, identities, ...agent } = legacy;
  const blockList = coreMemory ?? (isObject(memory) ? memory.blocks : undefined) ?? [];
  const toolList = tools ?? [];
  const withIds = (entries: unknown, kind: string) =>
    Array.isArray(entries) ? entries.map((entry, index) => (isObject(entry) ? { ...entry, id: `${kind}-${index}` } : entry)) : entries;
  return {
    agents: [
      {
        ...agent,
        id: 'agent-0',
        block_ids: Array.isArray(blockList) ? blockList.map((_, index) => `block-${index}`) : [],
        tool_ids: Array.isArray(toolList) ? toolList.map((_, index) => `tool-${index}`) : [],
        // The legacy file's identities are all the agent's own.
        identity_ids: Array.isArray(identities) ? identities.map((_, index) => `identity-${index}`) : [],
      },
    ],
    blocks: withIds(blockList, 'block'),
    tools: withIds(toolList, 'tool'),
    identities: withIds(identities ?? [], 'identity'),
  };
}

/** Where the legacy file's entries ended up, so that a 422 names the path the user sees in their file. */
function legacyPath(path: Array<string | number>): Array<string | number> {
  const [kind, index, ...rest] = path;
  if (kind === 'agents' && index === 0) {
    if (rest[0] === 'block_ids') return ['core_memory', ...rest.slice(1)];
    if (rest[0] === 'tool_ids') return ['tools', ...rest.slice(1)];
    return rest;
  }
  if (kind === 'blocks') return ['core_memory', ...(index === undefined ? [] : [index]), ...rest];
  return path;
}

export type AgentEntry = z.output<typeof AgentSchema>;
export type BlockEntry = z.output<typeof BlockSchema>;
export type ToolEntry = z.output<typeof ToolSchema>;
export type MessageEntry = z.output<typeof MessageSchema>;
export type GroupEntry = z.output<typeof GroupSchema>;
export type SourceEntry = z.output<typeof SourceSchema>;
export type FileEntry = z.output<typeof FileSchema>;
export type McpServerEntry = z.output<typeof McpServerSchema>;
export type IdentityEntry = z.output<typeof IdentitySchema>;

/** An agent as import uses it: its history without the compiled prompt, and its context window as positions in it. */
export type ImportableAgent = Omit<AgentEntry, 'in_context_message_ids' | 'in_context_message_indices' | 'secrets'> & {
  in_context_message_indices: number[];
};

/** Something the file carried that does not come over as it was, and why; `loc` is its path in the file. */
export type ImportWarning = { loc: Array<string | number>; msg: string };

export type AgentFile = Omit<ParsedFile, 'agents'> & { agents: ImportableAgent[]; warnings: ImportWarning[] };

/** The part each kind of tool rule cannot do without; some of Letta's early exporters left it out. */
const RULE_TARGETS: Record<string, string> = { constrain_child_tools: 'children', parent_last_tool: 'children', conditional: 'child_output_mapping' };

/**
 * Rules a Letta exporter wrote without the tools they lead to: they cannot be followed, so they are left out
 * with a warning rather than refusing the file. Every other defect of a rule is refused as on agent create.
 */
function withoutTargetlessRules(json: Record<string, unknown>, warnings: ImportWarning[]): Record<string, unknown> {
  if (!Array.isArray(json.agents)) return json;
  const agents = json.agents.map((agent, agentIndex) => {
    if (!isObject(agent) || !Array.isArray(agent.tool_rules)) return agent;
    const tool_rules = agent.tool_rules.filter((rule, index) => {
      const needed = isObject(rule) && typeof rule.type === 'string' ? RULE_TARGETS[rule.type] : undefined;
      if (!needed || !isObject(rule) || rule[needed] !== undefined) return true;
      warnings.push({
        loc: ['agents', agentIndex, 'tool_rules', index],
        msg: `The ${String(rule.type)} rule of '${String(rule.tool_name)}' names no ${needed}, so it was left out`,
      });
      return false;
    });
    return { ...agent, tool_rules };
  });
  return { ...json, agents };
}

/** Letta never enforced a block's limit on what its agents wrote, so its files may hold longer values. */
function raiseLimitsToValues(blocks: BlockEntry[], warnings: ImportWarning[]): BlockEntry[] {
  return blocks.map((block, index) => {
    if (block.value.length <= block.limit) return block;
    warnings.push({
      loc: ['blocks', index, 'limit'],
      msg: `Block '${block.label}' holds ${block.value.length} characters, over its limit of ${block.limit}; its limit was raised to ${block.value.length}`,
    });
    return { ...block, limit: block.value.length };
  });
}

export const AGENT_FILE_FORMAT_VERSION = 2;

/**
 * The Letta schema revision of the current agent file format, as its exporter writes it in `metadata.revision_id`
 * (the newest revision of the public gallery's files). Letta's importer reads files of this revision.
 */
export const LETTA_REVISION_ID = '9fa274fb0b83';

/**
 * The context window as positions in the history, without the compiled system message: that is the first
 * message of the window when it is a system message, and the first message of the history when no window is
 * given. Every other system message (a summary, a notice) is history and stays.
 */
function normalizeAgent(agent: AgentEntry, legacyFlags: boolean[] | undefined): ImportableAgent {
  const { in_context_message_ids: ids, in_context_message_indices: indices, secrets, messages, ...rest } = agent;
  const positions = new Map(messages.flatMap((message, index) => (message.id ? [[message.id, index] as const] : [])));
  let window: number[] | undefined =
    ids?.map((id) => positions.get(id)!) ??
    indices ??
    (legacyFlags?.some(Boolean) ? legacyFlags.flatMap((inContext, index) => (inContext ? [index] : [])) : undefined);
  const compiledPrompt = window ? window[0] : messages[0]?.role === 'system' ? 0 : undefined;
  const dropped = compiledPrompt !== undefined && messages[compiledPrompt]?.role === 'system' ? compiledPrompt : undefined;
  const kept = dropped === undefined ? messages : messages.filter((_, index) => index !== dropped);
  const shift = (index: number) => (dropped !== undefined && index > dropped ? index - 1 : index);
  window = window?.filter((index) => index !== dropped).map(shift);
  // Values from `secrets` win over the same names in `tool_exec_environment_variables`, as in Letta.
  const variables = new Map(rest.tool_exec_environment_variables.map((variable) => [variable.key, variable]));
  for (const secret of secrets) variables.set(secret.key, { ...secret, description: secret.description ?? variables.get(secret.key)?.description ?? null });
  return {
    ...rest,
    messages: kept,
    in_context_message_indices: window ?? kept.map((_, index) => index),
    tool_exec_environment_variables: [...variables.values()],
  };
}

const FILE_LOC = ['body', 'file'];

const isObject = (json: unknown): json is Record<string, unknown> => typeof json === 'object' && json !== null && !Array.isArray(json);

/** Enough to fix a file in one go, bounded so a thoroughly broken upload cannot make a huge response. */
const MAX_REPORTED_ISSUES = 100;

/** Every problem of the file (up to a bound), each located inside it: the 422's `detail` lists them all. */
function fileProblems(issues: UnprocessableIssue[]): UnprocessableError {
  const [first, ...rest] = issues.slice(0, MAX_REPORTED_ISSUES);
  return new UnprocessableError(first!.loc, first!.msg, first!.type, rest);
}

function zodIssues(error: z.ZodError, mapPath: (path: Array<string | number>) => Array<string | number>): UnprocessableError {
  return fileProblems(
    error.issues.map((issue) => ({
      loc: [...FILE_LOC, ...mapPath(issue.path.map((segment) => (typeof segment === 'symbol' ? String(segment) : segment)))],
      msg: issue.message,
      type: issue.code === 'custom' ? 'value_error' : issue.code,
    })),
  );
}

/** The document inside the upload: JSON, or a JSON string holding it. */
function documentOf(content: Buffer): Record<string, unknown> {
  let json: unknown;
  try {
    json = JSON.parse(content.toString('utf8'));
  } catch (error) {
    throw new UnprocessableError(FILE_LOC, `The file is not valid JSON: ${(error as Error).message}`, 'json_invalid');
  }
  if (typeof json === 'string') {
    try {
      json = JSON.parse(json);
    } catch {
      throw new UnprocessableError(FILE_LOC, 'Not an agent file: it is a JSON string, and the string is not an agent file in JSON');
    }
  }
  if (!isObject(json) || (!('agents' in json) && !('llm_config' in json))) {
    throw new UnprocessableError(FILE_LOC, 'Not an agent file: it has no `agents` list, and is not a legacy single agent (with `llm_config`)');
  }
  return json;
}

/** Reads an uploaded agent file, in any form Letta or Engram wrote; anything else is a 422 naming every problem's path. */
export function parseAgentFile(content: Buffer): AgentFile {
  const document = documentOf(content);
  const legacy = !('agents' in document);
  const mapPath = legacy ? legacyPath : (path: Array<string | number>) => path;
  const warnings: ImportWarning[] = [];
  if (Array.isArray(document.skills) && document.skills.length > 0) {
    const names = document.skills.flatMap((skill) => (isObject(skill) && typeof skill.name === 'string' ? [skill.name] : []));
    warnings.push({ loc: ['skills'], msg: `The file's ${document.skills.length} skills (${names.join(', ')}) were left out: this server has no skills` });
  }
  const json = withoutTargetlessRules(legacy ? fromLegacy(document) : document, warnings);
  const parsed = CurrentFileSchema.safeParse(json);
  if (!parsed.success) throw zodIssues(parsed.error, mapPath);
  const issues = crossReferenceIssues(parsed.data);
  if (issues.length > 0) {
    throw fileProblems(issues.map((issue) => ({ loc: [...FILE_LOC, ...mapPath(issue.path)], msg: issue.message, type: 'value_error' })));
  }
  const rawAgents = (json.agents as unknown[]).map((agent) => (isObject(agent) && Array.isArray(agent.messages) ? agent.messages : []));
  const agents = parsed.data.agents.map((agent, index) =>
    normalizeAgent(
      agent,
      legacy ? rawAgents[index]!.map((message) => isObject(message) && message.in_context === true) : undefined,
    ),
  );
  const blocks = raiseLimitsToValues(parsed.data.blocks, warnings);
  return { ...parsed.data, agents, blocks, warnings: warnings.map((warning) => ({ ...warning, loc: mapPath(warning.loc) })) };
}
