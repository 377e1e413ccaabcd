import { DEFAULT_BLOCK_LIMIT } from '@engram/core';
import { z } from 'zod';
import { UnprocessableError } from '../../errors.js';
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
import { DEFAULT_RETURN_CHAR_LIMIT } from '../tools/tool-service.js';

/**
 * The agent file: one JSON document holding agents and everything they use, so it can be imported into any
 * organization. This schema is the format's single definition: export writes it, import reads it.
 *
 * - `id`s are file-local (`agent-0`, `block-0`, `tool-0`, by position on export) and only link entries to each
 *   other. Import always creates new rows, so one file can be imported any number of times, anywhere.
 * - Nothing names the organization, project, users or server rows it came from, so exporting an imported agent
 *   gives the same document again; only `created_at` (the export time) differs.
 * - Built-in tools travel by name and bind to the importing organization's own built-in tools; custom tools carry
 *   their source. Blocks shared by several agents in the file stay shared.
 * - `messages` is the agent's history in order, without the compiled system message: that one is derived from
 *   `system`, the blocks, tools and rules, and is rebuilt on import. `in_context_message_indices` lists, in
 *   context order, the messages in the context window (all of them when left out).
 * - Secrets never leave the server: `tool_exec_environment_variables` names the keys only; the values are
 *   given again at import (`secrets`, `env_vars_json`).
 * - `groups`, `files`, `sources` and `mcp_servers` belong to the format, but Engram neither exports nor
 *   imports them yet; a file that has any is refused rather than imported in part.
 * - `metadata` records the format version and the Engram version that wrote the file.
 * - Unknown fields are ignored, so a file from a newer server still imports here; tool rules are the
 *   exception, checked as strictly as on agent create, since the agent loop acts on them.
 */

const FileId = z.string().min(1);

const notSupportedYet = (what: string) =>
  z
    .array(z.unknown())
    .max(0, `${what} in agent files cannot be imported by this server yet; remove them to import the rest`)
    .default([]);

const isKnownTimezone = (timezone: string) => {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: timezone });
    return true;
  } catch {
    return false;
  }
};

const ContentPartSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('text'), text: z.string() }),
  z.looseObject({ type: z.literal('reasoning'), reasoning: z.string() }),
  z.looseObject({ type: z.literal('redacted_reasoning'), data: z.string() }),
  z.looseObject({ type: z.literal('image'), source: z.record(z.string(), z.unknown()) }),
]);

const MessageSchema = z.object({
  role: z.enum(['system', 'user', 'assistant', 'tool', 'approval', 'summary']),
  // Hand-written files may give plain text.
  content: z.union([z.string().transform((text) => [{ type: 'text' as const, text }]), z.array(ContentPartSchema)]),
  name: z.string().nullable().default(null),
  otid: z.string().nullable().default(null),
  model: z.string().nullable().default(null),
  tool_calls: z
    .array(z.object({ id: z.string(), type: z.literal('function'), function: z.object({ name: z.string(), arguments: z.string() }) }))
    .nullable()
    .default(null),
  tool_call_id: z.string().nullable().default(null),
  tool_returns: z
    .array(
      z.looseObject({
        tool_call_id: z.string(),
        status: z.enum(['success', 'error']),
        func_response: z.string(),
        stdout: z.array(z.string()).nullish(),
        stderr: z.array(z.string()).nullish(),
      }),
    )
    .nullable()
    .default(null),
  approvals: z
    .array(z.looseObject({ type: z.enum(['approval', 'tool']), tool_call_id: z.string() }))
    .nullable()
    .default(null),
  is_err: z.boolean().nullable().default(null),
  created_at: z.iso.datetime({ offset: true }).optional(),
});

const BlockSchema = z.object({
  id: FileId,
  label: z.string().min(1),
  value: z.string(),
  limit: z.number().int().positive().default(DEFAULT_BLOCK_LIMIT),
  description: z.string().nullable().default(null),
  read_only: z.boolean().default(false),
  hidden: z.boolean().nullable().default(null),
  metadata: Metadata.default({}),
  tags: z.array(z.string()).default([]),
});

const ToolSchema = z.object({
  id: FileId,
  name: z.string().min(1),
  tool_type: z.string().default('custom'),
  source_type: z.string().default('python'),
  source_code: z.string().nullable().default(null),
  json_schema: Metadata.nullable().default(null),
  args_json_schema: Metadata.nullable().default(null),
  description: z.string().nullable().default(null),
  tags: z.array(z.string()).default([]),
  return_char_limit: z.number().int().min(1).max(1_000_000).default(DEFAULT_RETURN_CHAR_LIMIT),
  pip_requirements: z.array(PipRequirementSchema).nullable().default(null),
  npm_requirements: z
    .array(z.object({ name: z.string().min(1), version: z.string().nullish() }))
    .nullable()
    .default(null),
  default_requires_approval: z.boolean().nullable().default(null),
  enable_parallel_execution: z.boolean().default(false),
  metadata: Metadata.default({}),
});

const AgentSchema = z.object({
  id: FileId,
  name: z.string().min(1).refine(isValidAgentName, 'An agent name may only contain letters, digits, spaces, dashes, underscores and apostrophes'),
  agent_type: z.enum(AGENT_TYPES).default('letta_v1_agent'),
  /** The prompt template; the agent type's default prompt when left out. */
  system: z.string().optional(),
  description: z.string().nullable().default(null),
  metadata: Metadata.nullable().default(null),
  llm_config: LlmConfigSchema,
  embedding_config: EmbeddingConfigSchema.nullable().default(null),
  tool_rules: z.array(ToolRuleSchema).default([]),
  tags: z.array(z.string()).default([]),
  timezone: z.string().refine(isKnownTimezone, 'Unknown IANA timezone').default('UTC'),
  message_buffer_autoclear: z.boolean().default(false),
  max_files_open: z.number().int().min(1).max(1000).nullable().default(null),
  per_file_view_window_char_limit: z.number().int().min(1).nullable().default(null),
  hidden: z.boolean().nullable().default(null),
  response_format: ResponseFormatSchema.nullable().default(null),
  /** In prompt order. */
  block_ids: z.array(FileId).default([]),
  tool_ids: z.array(FileId).default([]),
  messages: z.array(MessageSchema).default([]),
  in_context_message_indices: z.array(z.number().int().min(0)).optional(),
  tool_exec_environment_variables: z
    .array(z.object({ key: EnvironmentVariableName, description: z.string().nullable().default(null) }))
    .default([]),
});

type Issue = { path: Array<string | number>; message: string };

/** What a per-entry schema cannot see: links between entries, and rules over the whole file. */
function crossReferenceIssues(file: { agents: AgentEntry[]; blocks: BlockEntry[]; tools: ToolEntry[] }): Issue[] {
  const issues: Issue[] = [];
  const duplicates = (values: string[]) => values.filter((value, index) => values.indexOf(value) !== index);
  for (const [kind, ids] of [
    ['agents', file.agents.map((agent) => agent.id)],
    ['blocks', file.blocks.map((block) => block.id)],
    ['tools', file.tools.map((tool) => tool.id)],
  ] as const) {
    for (const id of new Set(duplicates(ids))) issues.push({ path: [kind], message: `The id '${id}' is used by more than one of ${kind}` });
  }
  for (const name of new Set(duplicates(file.tools.map((tool) => tool.name)))) {
    issues.push({ path: ['tools'], message: `More than one tool is named '${name}'` });
  }
  file.blocks.forEach((block, index) => {
    if (block.value.length > block.limit) {
      issues.push({ path: ['blocks', index, 'value'], message: `Value is ${block.value.length} characters long, over the block's limit of ${block.limit} characters` });
    }
  });
  file.tools.forEach((tool, index) => {
    if (tool.tool_type === 'custom' && !tool.source_code) issues.push({ path: ['tools', index, 'source_code'], message: 'A custom tool needs its source_code' });
  });
  const blocksById = new Map(file.blocks.map((block) => [block.id, block]));
  const toolIds = new Set(file.tools.map((tool) => tool.id));
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
    const seen = new Set<number>();
    agent.in_context_message_indices?.forEach((messageIndex, index) => {
      const path = ['agents', agentIndex, 'in_context_message_indices', index];
      if (messageIndex >= agent.messages.length) issues.push({ path, message: `The agent has no message ${messageIndex} (it has ${agent.messages.length})` });
      if (seen.has(messageIndex)) issues.push({ path, message: `Message ${messageIndex} is listed twice` });
      seen.add(messageIndex);
    });
  });
  return issues;
}

export const AgentFileSchema = z
  .object({
    agents: z.array(AgentSchema).min(1),
    blocks: z.array(BlockSchema).default([]),
    tools: z.array(ToolSchema).default([]),
    groups: notSupportedYet('Groups'),
    files: notSupportedYet('Files'),
    sources: notSupportedYet('Sources'),
    mcp_servers: notSupportedYet('MCP servers'),
    metadata: Metadata.default({}),
    created_at: z.iso.datetime({ offset: true }).optional(),
  })
  .superRefine((file, ctx) => {
    for (const issue of crossReferenceIssues(file)) ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
  });

/**
 * The legacy single-agent form: the agent itself at the top level, its blocks under `memory.blocks` and its
 * tools inline. Its history may open with the compiled system message, which is dropped like any compiled prompt.
 */
const LegacyAgentFileSchema = AgentSchema.omit({ id: true, block_ids: true, tool_ids: true }).extend({
  memory: z.object({ blocks: z.array(BlockSchema.omit({ id: true })) }).default({ blocks: [] }),
  tools: z.array(ToolSchema.omit({ id: true })).default([]),
});

export type AgentFile = z.output<typeof AgentFileSchema>;
export type AgentEntry = z.output<typeof AgentSchema>;
export type BlockEntry = z.output<typeof BlockSchema>;
export type ToolEntry = z.output<typeof ToolSchema>;
export type MessageEntry = z.output<typeof MessageSchema>;

export const AGENT_FILE_FORMAT_VERSION = 1;

function fromLegacy(legacy: z.output<typeof LegacyAgentFileSchema>): unknown {
  const { memory, tools, messages, in_context_message_indices: indices, ...agent } = legacy;
  const opensWithCompiledPrompt = messages[0]?.role === 'system';
  const kept = opensWithCompiledPrompt ? messages.slice(1) : messages;
  const keptIndices = opensWithCompiledPrompt ? indices?.filter((index) => index !== 0).map((index) => index - 1) : indices;
  return {
    agents: [
      {
        ...agent,
        id: 'agent-0',
        block_ids: memory.blocks.map((_, index) => `block-${index}`),
        tool_ids: tools.map((_, index) => `tool-${index}`),
        messages: kept,
        in_context_message_indices: keptIndices,
      },
    ],
    blocks: memory.blocks.map((block, index) => ({ ...block, id: `block-${index}` })),
    tools: tools.map((tool, index) => ({ ...tool, id: `tool-${index}` })),
  };
}

const FILE_LOC = ['body', 'file'];

/** The first problem, located inside the file; a count of the others, since `UnprocessableError` carries one. */
function unprocessable(error: z.ZodError): UnprocessableError {
  const [first, ...rest] = error.issues;
  const path = (first?.path ?? []).map((segment) => (typeof segment === 'symbol' ? String(segment) : segment));
  const more = rest.length > 0 ? ` (and ${rest.length} more problem${rest.length === 1 ? '' : 's'})` : '';
  return new UnprocessableError([...FILE_LOC, ...path], `${first?.message ?? 'Invalid agent file'}${more}`);
}

const isObject = (json: unknown): json is Record<string, unknown> => typeof json === 'object' && json !== null && !Array.isArray(json);

/** Reads an uploaded agent file, in the current or the legacy form; anything else is a 422 naming the first problem. */
export function parseAgentFile(content: Buffer): AgentFile {
  let json: unknown;
  try {
    json = JSON.parse(content.toString('utf8'));
  } catch (error) {
    throw new UnprocessableError(FILE_LOC, `The file is not valid JSON: ${(error as Error).message}`, 'json_invalid');
  }
  if (!isObject(json) || (!('agents' in json) && !('llm_config' in json) && !('memory' in json))) {
    throw new UnprocessableError(FILE_LOC, 'Not an agent file: it has no `agents` list, and is not a legacy single agent (with `llm_config` and `memory`)');
  }
  if (!('agents' in json)) {
    const legacy = LegacyAgentFileSchema.safeParse(json);
    if (!legacy.success) throw unprocessable(legacy.error);
    json = fromLegacy(legacy.data);
  }
  const parsed = AgentFileSchema.safeParse(json);
  if (!parsed.success) throw unprocessable(parsed.error);
  return parsed.data;
}
