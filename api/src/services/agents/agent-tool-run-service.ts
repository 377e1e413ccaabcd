import { randomUUID } from 'node:crypto';
import { Tool, type Database } from '@engram/db';
import { runsInToolActivity, type ExecuteToolInput, type ExecuteToolResult } from '@engram/integrations/tools';
import { BadRequestError, NotFoundError } from '../../errors.js';
import type { RequestContext } from '../../http/request-context.js';
import { findAgent } from './agent-views.js';

export type AgentToolRunServiceDeps = {
  db: Database;
  /** The same executor the agent loop's tool activity uses, so a tool runs here exactly as in a turn. */
  executeTool: (input: ExecuteToolInput) => Promise<ExecuteToolResult>;
};

/** `ToolExecutionResult` of the public API. */
export type ToolExecutionResultWire = {
  status: 'success' | 'error';
  func_return: string;
  stdout: string[];
  stderr: string[];
  agent_state: null;
  sandbox_config_fingerprint: null;
};

/**
 * Runs one of an agent's tools outside a turn (the ADE's "run tool"): with the agent's secrets, its
 * archives and its folders, as the agent would call it, but without messages or a run.
 */
export function createAgentToolRunService(deps: AgentToolRunServiceDeps) {
  return {
    async run(ctx: RequestContext, agentId: string, toolName: string, args: Record<string, unknown>): Promise<ToolExecutionResultWire> {
      await findAgent(deps.db, ctx.organizationId, agentId);
      const tool = await Tool.query(deps.db)
        .forOrg(ctx.organizationId)
        .join('agent_tools', 'agent_tools.tool_id', 'tools.id')
        .where({ 'agent_tools.agent_id': agentId, 'tools.name': toolName })
        .select('tools.*')
        .first();
      if (!tool) throw new NotFoundError(`Tool '${toolName}' of this agent`);
      if (!runsInToolActivity(tool)) {
        throw new BadRequestError(`${toolName} is a built-in ${tool.toolType} tool: it edits the agent's memory or open files within a turn, and runs only there`);
      }
      const outcome = await deps.executeTool({
        organizationId: ctx.organizationId,
        agentId,
        toolCallId: `call-${randomUUID()}`,
        toolName,
        arguments: args,
      });
      return {
        status: outcome.status,
        func_return: outcome.funcResponse,
        stdout: outcome.stdout,
        stderr: outcome.stderr,
        agent_state: null,
        sandbox_config_fingerprint: null,
      };
    },
  };
}

export type AgentToolRunService = ReturnType<typeof createAgentToolRunService>;
