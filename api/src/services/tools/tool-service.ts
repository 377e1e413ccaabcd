import { randomUUID } from 'node:crypto';
import { AgentTool, Tool, ensureBaseTools, newId, recompileSystemMessage, type Database, type SecretBox, type ToolJsonSchema } from '@engram/db';
import type { LettaMessage } from '@engram/core';
import { createToolRunner } from '@engram/integrations/tools';
import type { PipRequirement, VenvManager } from '@engram/integrations/sandbox';
import type { Knex } from 'knex';
import { UniqueViolationError } from 'objection';
import { BadRequestError, ConflictError, NotFoundError } from '../../errors.js';
import type { RequestContext } from '../../http/request-context.js';
import { keysetPage, type PageRequest } from '../shared/paging.js';
import type { TierLimitGuard } from '../tenancy/tier-limits.js';
import { generatePythonSchema } from './python-schema.js';
import { firstFunctionName, resolveToolSchema } from './tool-schema.js';
import type { EgressPolicy } from '@engram/integrations/egress';
import { DEFAULT_RETURN_CHAR_LIMIT } from './return-char-limit.js';


export const TOOL_TYPES = [
  'custom',
  'letta_core',
  'letta_memory_core',
  'letta_multi_agent_core',
  'letta_sleeptime_core',
  'letta_voice_sleeptime_core',
  'letta_builtin',
  'letta_files_core',
  'external_langchain',
  'external_composio',
  'external_mcp',
] as const;

/** The writable fields of a tool, named as on the wire. */
export type ToolFields = {
  source_code?: string | null | undefined;
  source_type?: string | null | undefined;
  json_schema?: Record<string, unknown> | null | undefined;
  args_json_schema?: Record<string, unknown> | null | undefined;
  description?: string | null | undefined;
  tags?: string[] | null | undefined;
  return_char_limit?: number | null | undefined;
  pip_requirements?: PipRequirement[] | null | undefined;
  npm_requirements?: PipRequirement[] | null | undefined;
  default_requires_approval?: boolean | null | undefined;
  enable_parallel_execution?: boolean | null | undefined;
  metadata_?: Record<string, unknown> | null | undefined;
};

export type CreateToolInput = ToolFields & { source_code: string };

export type ToolFilter = {
  name?: string | undefined;
  names?: string[] | undefined;
  toolIds?: string[] | undefined;
  search?: string | undefined;
  toolTypes?: string[] | undefined;
  excludeToolTypes?: string[] | undefined;
  returnOnlyLettaTools?: boolean | undefined;
  excludeLettaTools?: boolean | undefined;
};

export type RunToolInput = {
  source_code: string;
  args: Record<string, unknown>;
  env_vars?: Record<string, string> | null | undefined;
  name?: string | null | undefined;
  source_type?: string | null | undefined;
  json_schema?: Record<string, unknown> | null | undefined;
  pip_requirements?: PipRequirement[] | null | undefined;
  npm_requirements?: PipRequirement[] | null | undefined;
};

/** A `tool_return_message` of a tool run outside any agent, with the result fields of a tool execution. */
export type ToolRunMessage = Extract<LettaMessage, { message_type: 'tool_return_message' }> & { func_return: string };

export type ToolServiceDeps = {
  db: Database;
  secrets: SecretBox;
  venvs: VenvManager;
  /** The tier's tool limit, enforced while billing is on. */
  limits: Pick<TierLimitGuard, 'assertWithinLimit'>;
  /** What a tool run whose sandbox config allows the network may reach. */
  egress: EgressPolicy;
};

function checkToolTypes(types: string[] | undefined): void {
  const invalid = (types ?? []).filter((type) => !(TOOL_TYPES as readonly string[]).includes(type));
  if (invalid.length > 0) throw new BadRequestError(`Invalid tool_type: ${invalid.join(', ')}. Valid types: ${TOOL_TYPES.join(', ')}`);
}

export type ToolSearch = { query?: string | null | undefined; tags?: string[] | null | undefined; toolTypes?: string[] | null | undefined; limit: number };

const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;

/** The columns a write sets; fields left out (undefined) keep their value. */
function writableColumns(input: ToolFields) {
  const columns: Partial<Tool> = {};
  if (input.description !== undefined) columns.description = input.description;
  if (input.tags !== undefined) columns.tags = input.tags ?? [];
  if (input.return_char_limit != null) columns.returnCharLimit = input.return_char_limit;
  if (input.pip_requirements !== undefined) columns.pipRequirements = input.pip_requirements;
  if (input.npm_requirements !== undefined) columns.npmRequirements = input.npm_requirements;
  if (input.default_requires_approval !== undefined) columns.defaultRequiresApproval = input.default_requires_approval;
  if (input.enable_parallel_execution != null) columns.enableParallelExecution = input.enable_parallel_execution;
  if (input.metadata_ !== undefined) columns.metadata = input.metadata_ ?? {};
  if (input.args_json_schema !== undefined) columns.argsJsonSchema = input.args_json_schema;
  return columns;
}

/** Custom tools: CRUD, listing, and running source in the organization's sandbox without saving it. */
export function createToolService(deps: ToolServiceDeps) {
  const { db } = deps;
  const runner = createToolRunner(deps);

  async function find(trx: Knex, ctx: RequestContext, toolId: string): Promise<Tool> {
    const tool = await Tool.query(trx).forOrg(ctx.organizationId).findById(toolId);
    if (!tool) throw new NotFoundError('Tool');
    return tool;
  }

  const duplicate = (name: string) => new ConflictError(`A tool named '${name}' already exists in this organization`);

  // Tool names appear in the system prompt of every agent that has the tool.
  async function recompileAgentsUsing(trx: Knex, ctx: RequestContext, toolId: string): Promise<void> {
    const links = await AgentTool.query(trx).forOrg(ctx.organizationId).where({ toolId });
    for (const { agentId } of links) await recompileSystemMessage(trx, ctx.organizationId, agentId, new Date());
  }

  const schemaOf = (input: CreateToolInput, sourceType: string) =>
    resolveToolSchema({ sourceCode: input.source_code, sourceType, jsonSchema: input.json_schema, argsJsonSchema: input.args_json_schema });

  async function insert(ctx: RequestContext, input: CreateToolInput, sourceType: string, jsonSchema: ToolJsonSchema): Promise<Tool> {
    try {
      return await db.transaction(async (trx) => {
        await deps.limits.assertWithinLimit(trx, ctx.organizationId, 'tools');
        return Tool.query(trx)
          .insert({
            id: newId('tool'),
            organizationId: ctx.organizationId,
            projectId: null,
            name: jsonSchema.name,
            toolType: 'custom',
            description: jsonSchema.description ?? null,
            sourceType,
            sourceCode: input.source_code,
            jsonSchema,
            argsJsonSchema: null,
            tags: [],
            returnCharLimit: DEFAULT_RETURN_CHAR_LIMIT,
            pipRequirements: null,
            npmRequirements: null,
            defaultRequiresApproval: null,
            enableParallelExecution: false,
            metadata: {},
            ...writableColumns(input),
            createdById: ctx.userId,
            lastUpdatedById: ctx.userId,
          })
          .returning('*');
      });
    } catch (error) {
      if (error instanceof UniqueViolationError) throw duplicate(jsonSchema.name);
      throw error;
    }
  }

  /** Applies `input` to a tool; a new source (or source type) re-derives the schema, and with it the name. */
  async function applyUpdate(ctx: RequestContext, tool: Tool, input: ToolFields): Promise<Tool> {
    const sourceCode = input.source_code ?? tool.sourceCode;
    const sourceType = input.source_type ?? tool.sourceType;
    const sourceChanged = sourceCode !== tool.sourceCode || sourceType !== tool.sourceType || input.args_json_schema !== undefined;
    let jsonSchema = tool.jsonSchema;
    if (input.json_schema) {
      jsonSchema = await resolveToolSchema({ sourceCode: sourceCode ?? '', sourceType, jsonSchema: input.json_schema });
    } else if (sourceChanged && tool.toolType === 'custom' && sourceType !== 'typescript') {
      jsonSchema = await resolveToolSchema({
        sourceCode: sourceCode ?? '',
        sourceType,
        argsJsonSchema: input.args_json_schema === undefined ? tool.argsJsonSchema : input.args_json_schema,
      });
    }
    try {
      return await db.transaction(async (trx) => {
        const updated = await tool.$query(trx).patchAndFetch({
          ...writableColumns(input),
          sourceCode,
          sourceType,
          jsonSchema,
          name: jsonSchema.name,
          // A schema derived from a new docstring brings its description, unless one is given.
          ...(input.description === undefined && jsonSchema !== tool.jsonSchema ? { description: jsonSchema.description ?? null } : {}),
          lastUpdatedById: ctx.userId,
        });
        if (updated.name !== tool.name) await recompileAgentsUsing(trx, ctx, tool.id);
        return updated;
      });
    } catch (error) {
      if (error instanceof UniqueViolationError) throw duplicate(jsonSchema.name);
      throw error;
    }
  }

  function filtered(ctx: RequestContext, filter: ToolFilter) {
    checkToolTypes(filter.toolTypes);
    checkToolTypes(filter.excludeToolTypes);
    const query = Tool.query(db).forOrg(ctx.organizationId);
    if (filter.name !== undefined) query.where('tools.name', filter.name);
    if (filter.names !== undefined) query.whereIn('tools.name', filter.names);
    if (filter.toolIds !== undefined) query.whereIn('tools.id', filter.toolIds);
    if (filter.search) query.whereRaw('tools.name ilike ?', [likePattern(filter.search)]);
    if (filter.toolTypes !== undefined) query.whereIn('tools.tool_type', filter.toolTypes);
    if (filter.excludeToolTypes !== undefined) query.whereNotIn('tools.tool_type', filter.excludeToolTypes);
    if (filter.returnOnlyLettaTools) query.whereRaw(`tools.tool_type like 'letta\\_%'`);
    if (filter.excludeLettaTools) query.whereRaw(`tools.tool_type not like 'letta\\_%'`);
    return query;
  }

  return {
    /** Lists the organization's tools; its built-in tools are created first, so they are always listed. */
    async list(ctx: RequestContext, filter: ToolFilter, page: PageRequest): Promise<Tool[]> {
      await ensureBaseTools(db, ctx.organizationId);
      return keysetPage(filtered(ctx, filter), page, { table: 'tools' });
    },

    /**
     * Full-text search over the tools' names, descriptions and tags: a tool matches any word of the query, ranked
     * by how well (tools are not embedded here, so every search mode ranks this way). Without a query, the filters
     * alone pick the tools, in name order.
     */
    async search(ctx: RequestContext, input: ToolSearch): Promise<Array<{ tool: Tool; score: number; rank: number | null }>> {
      await ensureBaseTools(db, ctx.organizationId);
      const query = Tool.query(db).forOrg(ctx.organizationId);
      if (input.tags?.length) query.whereRaw('tools.tags && ?::text[]', [input.tags]);
      if (input.toolTypes?.length) query.whereIn('tools.tool_type', input.toolTypes);
      const words = input.query?.trim();
      if (!words) {
        const tools = await query.orderBy('tools.name').limit(input.limit);
        return tools.map((tool) => ({ tool, score: 0, rank: null }));
      }
      const document = `to_tsvector('simple', regexp_replace(tools.name, '_', ' ', 'g') || ' ' || coalesce(tools.description, '') || ' ' || array_to_string(tools.tags, ' '))`;
      const anyWord = `replace(plainto_tsquery('simple', ?)::text, '&', '|')::tsquery`;
      const rows = (await query
        .whereRaw(`${document} @@ ${anyWord}`, [words])
        .select('tools.*', Tool.raw(`ts_rank(${document}, ${anyWord}) as search_score`, [words]))
        .orderByRaw('search_score desc, tools.name')
        .limit(input.limit)) as Array<Tool & { searchScore: number }>;
      return rows.map((tool, index) => ({ tool, score: Number(tool.searchScore), rank: index + 1 }));
    },

    async count(ctx: RequestContext, filter: ToolFilter): Promise<number> {
      await ensureBaseTools(db, ctx.organizationId);
      return filtered(ctx, filter).resultSize();
    },

    get(ctx: RequestContext, toolId: string): Promise<Tool> {
      return find(db, ctx, toolId);
    },

    async create(ctx: RequestContext, input: CreateToolInput): Promise<Tool> {
      const sourceType = input.source_type ?? 'python';
      return insert(ctx, input, sourceType, await schemaOf(input, sourceType));
    },

    /** Creates the tool, or updates the organization's custom tool of the same name. */
    async upsert(ctx: RequestContext, input: CreateToolInput): Promise<Tool> {
      const sourceType = input.source_type ?? 'python';
      const jsonSchema = await schemaOf(input, sourceType);
      const existing = await Tool.query(db).forOrg(ctx.organizationId).findOne({ name: jsonSchema.name });
      if (!existing) return insert(ctx, input, sourceType, jsonSchema);
      if (existing.toolType !== 'custom') {
        throw new ConflictError(`'${jsonSchema.name}' is a built-in tool (${existing.toolType}) and cannot be replaced`);
      }
      return applyUpdate(ctx, existing, { ...input, source_type: sourceType, json_schema: jsonSchema });
    },

    async update(ctx: RequestContext, toolId: string, input: ToolFields): Promise<Tool> {
      return applyUpdate(ctx, await find(db, ctx, toolId), input);
    },

    /** Deleting a tool detaches it from every agent (their prompts are recompiled without it). */
    async delete(ctx: RequestContext, toolId: string): Promise<void> {
      await db.transaction(async (trx) => {
        const tool = await find(trx, ctx, toolId);
        const links = await AgentTool.query(trx).forOrg(ctx.organizationId).where({ toolId });
        await Tool.query(trx).forOrg(ctx.organizationId).deleteById(tool.id);
        for (const { agentId } of links) await recompileSystemMessage(trx, ctx.organizationId, agentId, new Date());
      });
    },

    /** `POST /tools/generate-schema`: schemas are derived from Python only; TypeScript tools bring theirs. */
    async generateSchema(code: string, sourceType: string): Promise<ToolJsonSchema> {
      if (sourceType !== 'python') throw new BadRequestError(`Schemas are derived from Python source only; a ${sourceType} tool supplies its json_schema`);
      return generatePythonSchema(code);
    },

    async addBaseTools(ctx: RequestContext): Promise<Tool[]> {
      return [...(await ensureBaseTools(db, ctx.organizationId)).values()];
    },

    /** Runs source in the organization's sandbox with the given arguments, saving nothing. */
    async run(ctx: RequestContext, input: RunToolInput): Promise<ToolRunMessage> {
      const sourceType = input.source_type ?? 'python';
      const jsonSchemaName = typeof input.json_schema?.name === 'string' ? input.json_schema.name : null;
      const functionName = input.name ?? jsonSchemaName ?? firstFunctionName(input.source_code, sourceType);
      const outcome = await runner.run({
        organizationId: ctx.organizationId,
        language: sourceType,
        sourceCode: input.source_code,
        functionName,
        args: input.args,
        env: input.env_vars ?? {},
        pipRequirements: input.pip_requirements ?? null,
        npmRequirements: input.npm_requirements ?? null,
        requestedSandbox: undefined,
        returnCharLimit: DEFAULT_RETURN_CHAR_LIMIT,
      });
      const toolCallId = `call-${randomUUID()}`;
      const toolReturn = { type: 'tool' as const, tool_return: outcome.funcReturn, status: outcome.status, tool_call_id: toolCallId, stdout: outcome.stdout, stderr: outcome.stderr };
      return {
        id: newId('message'),
        date: new Date().toISOString(),
        message_type: 'tool_return_message',
        name: functionName,
        otid: null,
        sender_id: null,
        step_id: null,
        run_id: null,
        is_err: outcome.status === 'error',
        tool_return: outcome.funcReturn,
        func_return: outcome.funcReturn,
        status: outcome.status,
        tool_call_id: toolCallId,
        stdout: outcome.stdout,
        stderr: outcome.stderr,
        tool_returns: [toolReturn],
      };
    },
  };
}

export type ToolService = ReturnType<typeof createToolService>;
