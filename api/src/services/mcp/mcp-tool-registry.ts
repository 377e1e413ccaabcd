import { AgentTool, McpServer, Tool, newId, recompileSystemMessage, type Database } from '@engram/db';
import { type McpTool, MCP_TOOL_TYPE, SCHEMA_STATUS_KEY, SCHEMA_WARNINGS_KEY, mcpServerTag, mcpToolLink, registeredToolSchema, type McpToolLink, assessToolHealth } from '@engram/integrations/mcp';
import type { Knex } from 'knex';
import { UniqueViolationError } from 'objection';
import { ConflictError } from '../../errors.js';
import type { RequestContext } from '../../http/request-context.js';
import { DEFAULT_RETURN_CHAR_LIMIT } from '../tools/return-char-limit.js';

/** What a resync changed, by tool name. Tools whose name another tool already holds are skipped. */
export type ToolSyncSummary = { added: string[]; updated: string[]; deleted: string[]; skipped: Array<{ name: string; reason: string }> };

/**
 * The `tools` rows that stand for MCP tools: registering, resyncing and removing them, and keeping
 * the health of their last check. Database work only; the live server is asked by the callers.
 */
export function createMcpToolRegistry(deps: { db: Database }) {
  const { db } = deps;

  function registeredTools(trx: Knex, organizationId: string, serverId: string) {
    return Tool.query(trx).forOrg(organizationId).where('tool_type', MCP_TOOL_TYPE).whereRaw(`metadata->'mcp'->>'server_id' = ?`, [serverId]);
  }

  /** Deletes tool rows (their agent links go with them) and recompiles the prompts of the agents that had them. */
  async function deleteTools(trx: Knex, organizationId: string, tools: Tool[]): Promise<void> {
    if (tools.length === 0) return;
    const toolIds = tools.map((tool) => tool.id);
    const agentIds = [...new Set((await AgentTool.query(trx).forOrg(organizationId).whereIn('toolId', toolIds)).map((link) => link.agentId))];
    await Tool.query(trx).forOrg(organizationId).whereIn('id', toolIds).delete();
    for (const agentId of agentIds) await recompileSystemMessage(trx, organizationId, agentId, new Date());
  }

  const linkOf = (server: McpServer, tool: McpTool): McpToolLink => ({ server_id: server.id, server_name: server.serverName, tool_name: tool.name });

  /** The columns a registered tool takes from its server's description of it. */
  const describedColumns = (server: McpServer, tool: McpTool) => ({
    description: tool.description ?? null,
    jsonSchema: registeredToolSchema(tool, assessToolHealth(tool)),
    tags: [mcpServerTag(server.serverName)],
    metadata: { mcp: linkOf(server, tool) },
  });

  const takenBy = (name: string, holder: Tool) =>
    holder.toolType === MCP_TOOL_TYPE
      ? `tool '${name}' of MCP server '${mcpToolLink(holder.metadata)?.server_name ?? 'unknown'}' already has this name`
      : `a ${holder.toolType} tool named '${name}' already exists in this organization`;

  /** Creates the tool's row, or refreshes it when this server registered it before. Conflicts with any other holder of the name. */
  async function upsert(trx: Knex, ctx: RequestContext, server: McpServer, tool: McpTool): Promise<{ tool: Tool; created: boolean }> {
    const existing = await Tool.query(trx).forOrg(ctx.organizationId).findOne({ name: tool.name });
    if (existing) {
      if (mcpToolLink(existing.metadata)?.server_id !== server.id) throw new ConflictError(`Cannot register MCP tool '${tool.name}': ${takenBy(tool.name, existing)}`);
      const updated = await existing.$query(trx).patchAndFetch({ ...describedColumns(server, tool), lastUpdatedById: ctx.userId });
      return { tool: updated, created: false };
    }
    try {
      const inserted = await Tool.query(trx)
        .insert({
          id: newId('tool'),
          organizationId: ctx.organizationId,
          projectId: null,
          name: tool.name,
          toolType: MCP_TOOL_TYPE,
          sourceType: 'python',
          sourceCode: null,
          argsJsonSchema: null,
          returnCharLimit: DEFAULT_RETURN_CHAR_LIMIT,
          pipRequirements: null,
          npmRequirements: null,
          defaultRequiresApproval: null,
          enableParallelExecution: false,
          ...describedColumns(server, tool),
          createdById: ctx.userId,
          lastUpdatedById: ctx.userId,
        })
        .returning('*');
      return { tool: inserted, created: true };
    } catch (error) {
      if (error instanceof UniqueViolationError) throw new ConflictError(`Cannot register MCP tool '${tool.name}': a tool of this name was just created`);
      throw error;
    }
  }

  /** The last check reached the server: its tools' health is their schemas' again. */
  async function recordReachable(trx: Knex, server: McpServer): Promise<void> {
    await McpServer.query(trx).forOrg(server.organizationId).findById(server.id).patch({ lastCheckedAt: new Date(), lastCheckError: null });
  }

  return {
    registeredTools: (organizationId: string, serverId: string) => registeredTools(db, organizationId, serverId),

    async findRegisteredTool(organizationId: string, serverId: string, toolId: string): Promise<Tool | undefined> {
      return registeredTools(db, organizationId, serverId).findById(toolId);
    },

    /** Registers one tool of the server (`POST /tools/mcp/servers/{name}/{tool}`). */
    async register(ctx: RequestContext, server: McpServer, tool: McpTool): Promise<Tool> {
      return db.transaction(async (trx) => (await upsert(trx, ctx, server, tool)).tool);
    },

    /**
     * Makes the registered tools match the server's list: tools gone from the server are deleted
     * (and detached), the others get their current schema and health, and, with `addNew`, tools not
     * registered yet are added. Returns the summary and the ids of the added tools.
     */
    async sync(ctx: RequestContext, server: McpServer, live: McpTool[], options: { addNew: boolean }): Promise<{ summary: ToolSyncSummary; addedToolIds: string[] }> {
      return db.transaction(async (trx) => {
        const summary: ToolSyncSummary = { added: [], updated: [], deleted: [], skipped: [] };
        const addedToolIds: string[] = [];
        const liveNames = new Set(live.map((tool) => tool.name));
        const current = await registeredTools(trx, ctx.organizationId, server.id);
        const gone = current.filter((tool) => !liveNames.has(mcpToolLink(tool.metadata)?.tool_name ?? tool.name));
        await deleteTools(trx, ctx.organizationId, gone);
        summary.deleted.push(...gone.map((tool) => tool.name));

        const registeredNames = new Set(current.map((tool) => tool.name));
        for (const tool of live) {
          const isRegistered = registeredNames.has(tool.name);
          if (!isRegistered && !options.addNew) continue;
          try {
            // A savepoint each, so a name conflict skips the tool without aborting the whole resync.
            const { tool: row, created } = await trx.transaction((savepoint) => upsert(savepoint, ctx, server, tool));
            (created ? summary.added : summary.updated).push(tool.name);
            if (created) addedToolIds.push(row.id);
          } catch (error) {
            if (!(error instanceof ConflictError)) throw error;
            summary.skipped.push({ name: tool.name, reason: error.message });
          }
        }
        await recordReachable(trx, server);
        return { summary, addedToolIds };
      });
    },

    /** A check that listed the server's tools: refreshes the health of those registered. */
    async recordListed(ctx: RequestContext, server: McpServer, live: McpTool[]): Promise<void> {
      await db.transaction(async (trx) => {
        const byName = new Map(live.map((tool) => [tool.name, tool]));
        for (const row of await registeredTools(trx, ctx.organizationId, server.id)) {
          const tool = byName.get(mcpToolLink(row.metadata)?.tool_name ?? row.name);
          if (tool) await row.$query(trx).patch(describedColumns(server, tool));
        }
        await recordReachable(trx, server);
      });
    },

    /** A check that could not reach the server: its registered tools show why until the next one. */
    async recordUnreachable(server: McpServer, reason: string): Promise<void> {
      await db.transaction(async (trx) => {
        for (const row of await registeredTools(trx, server.organizationId, server.id)) {
          await row.$query(trx).patch({ jsonSchema: { ...row.jsonSchema, [SCHEMA_STATUS_KEY]: 'UNREACHABLE', [SCHEMA_WARNINGS_KEY]: [reason] } });
        }
        await McpServer.query(trx).forOrg(server.organizationId).findById(server.id).patch({ lastCheckedAt: new Date(), lastCheckError: reason });
      });
    },

    /** Removes every tool of the server (detaching them), before the server itself goes. */
    async removeAll(trx: Knex, organizationId: string, serverId: string): Promise<void> {
      await deleteTools(trx, organizationId, await registeredTools(trx, organizationId, serverId));
    },

    /** A renamed server's tools carry its new name in their tag and link. */
    async renameServer(trx: Knex, server: McpServer, serverName: string): Promise<void> {
      for (const row of await registeredTools(trx, server.organizationId, server.id)) {
        const link = mcpToolLink(row.metadata);
        if (!link) continue;
        await row.$query(trx).patch({ tags: [mcpServerTag(serverName)], metadata: { ...row.metadata, mcp: { ...link, server_name: serverName } } });
      }
    },
  };
}

export type McpToolRegistry = ReturnType<typeof createMcpToolRegistry>;
