import { AgentTool, McpServer, Tool, recompileSystemMessage, type Database } from '@engram/db';
import type { ToolRule } from '@engram/core';
import type { Knex } from 'knex';
import { mcpToolLink } from '@engram/integrations/mcp';
import { NotFoundError } from '../../errors.js';
import type { RequestContext } from '../../http/request-context.js';
import { findAgent, toolsByAgent } from './agent-views.js';
import { pageInMemory, type PageRequest } from '../shared/paging.js';

export type AgentToolServiceDeps = { db: Database };

/** The tools attached to agents, and the per-agent approval switch. */
export function createAgentToolService(deps: AgentToolServiceDeps) {
  const { db } = deps;

  async function findTool(trx: Knex, ctx: RequestContext, toolId: string): Promise<Tool> {
    const tool = await Tool.query(trx).forOrg(ctx.organizationId).findById(toolId);
    if (!tool) throw new NotFoundError('Tool');
    return tool;
  }

  async function attachedTools(trx: Knex, ctx: RequestContext, agentId: string): Promise<Tool[]> {
    return (await toolsByAgent(trx, ctx.organizationId, [agentId])).get(agentId) ?? [];
  }

  // Tool names and rules appear in the system prompt, so every change here recompiles it.
  const recompile = (trx: Knex, ctx: RequestContext, agentId: string) =>
    recompileSystemMessage(trx, ctx.organizationId, agentId, new Date());

  return {
    async listTools(ctx: RequestContext, agentId: string, page: PageRequest): Promise<Tool[]> {
      await findAgent(db, ctx.organizationId, agentId);
      // Listed like every other collection: by creation, the id breaking ties, so cursors are stable.
      const byCreation = (await attachedTools(db, ctx, agentId)).sort(
        (a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id),
      );
      return pageInMemory(byCreation, page);
    },

    /** The names (and descriptions) of the secrets the agent's tools run with; their values never leave here. */
    async secretNamesOf(ctx: RequestContext, agentId: string): Promise<Array<{ key: string; description: string | null }>> {
      const agent = await findAgent(db, ctx.organizationId, agentId);
      return agent.toolExecEnvironmentVariables.map((variable) => ({ key: variable.key, description: variable.description ?? null }));
    },

    /** The MCP servers whose tools the agent has, in the order they were added. */
    async mcpServersOf(ctx: RequestContext, agentId: string): Promise<McpServer[]> {
      await findAgent(db, ctx.organizationId, agentId);
      const serverIds = new Set((await attachedTools(db, ctx, agentId)).flatMap((tool) => mcpToolLink(tool.metadata)?.server_id ?? []));
      if (serverIds.size === 0) return [];
      return McpServer.query(db).forOrg(ctx.organizationId).whereIn('id', [...serverIds]).orderBy([{ column: 'createdAt' }, { column: 'id' }]);
    },

    async attachTool(ctx: RequestContext, agentId: string, toolId: string): Promise<void> {
      await db.transaction(async (trx) => {
        await findAgent(trx, ctx.organizationId, agentId);
        await findTool(trx, ctx, toolId);
        await AgentTool.query(trx).insert({ agentId, toolId, organizationId: ctx.organizationId }).onConflict(['agentId', 'toolId']).ignore();
        await recompile(trx, ctx, agentId);
      });
    },

    async detachTool(ctx: RequestContext, agentId: string, toolId: string): Promise<void> {
      await db.transaction(async (trx) => {
        await findAgent(trx, ctx.organizationId, agentId);
        await findTool(trx, ctx, toolId);
        const detached = await AgentTool.query(trx).forOrg(ctx.organizationId).where({ agentId, toolId }).delete();
        if (detached > 0) await recompile(trx, ctx, agentId);
      });
    },

    /** Adds or removes the agent's `requires_approval` rule for one of its tools. */
    async setToolApproval(ctx: RequestContext, agentId: string, toolName: string, requiresApproval: boolean): Promise<void> {
      await db.transaction(async (trx) => {
        const agent = await findAgent(trx, ctx.organizationId, agentId);
        if (!(await attachedTools(trx, ctx, agentId)).some((tool) => tool.name === toolName)) {
          throw new NotFoundError(`Tool '${toolName}' on this agent`);
        }
        const others = (agent.toolRules as ToolRule[]).filter((rule) => !(rule.type === 'requires_approval' && rule.tool_name === toolName));
        const toolRules: ToolRule[] = requiresApproval ? [...others, { type: 'requires_approval', tool_name: toolName }] : others;
        await agent.$query(trx).patch({ toolRules, lastUpdatedById: ctx.userId });
        await recompile(trx, ctx, agentId);
      });
    },
  };
}

export type AgentToolService = ReturnType<typeof createAgentToolService>;
