import type { AgentSnapshot, AgentType, ToolRule } from '@engram/core';
import type { Knex } from 'knex';
import { Agent } from '../models/agent.js';
import { memoryBlocksOf } from './memory-blocks.js';
import { Tool } from '../models/tool.js';
import { readTogether } from '../connection.js';

/**
 * Everything the agent loop and the context view need of an agent, in one consistent read; in a conversation,
 * memory as that conversation sees it (its isolated blocks).
 */
export async function loadAgentSnapshot(
  db: Knex,
  organizationId: string,
  agentId: string,
  conversationId: string | null = null,
): Promise<AgentSnapshot | undefined> {
  const agentRow = () => Agent.query(db).forOrg(organizationId).findById(agentId);
  const blockRows = () => memoryBlocksOf(db, organizationId, agentId, conversationId);
  const toolRows = () =>
    Tool.query(db)
      .forOrg(organizationId)
      .join('agent_tools', 'agent_tools.tool_id', 'tools.id')
      .where('agent_tools.agent_id', agentId)
      .orderBy('tools.name')
      .select('tools.*');
  const [agent, blocks, tools] = await readTogether(db, [agentRow, blockRows, toolRows] as const);
  if (!agent) return undefined;
  return {
    id: agent.id,
    organizationId,
    conversationId,
    name: agent.name,
    templateId: agent.templateId,
    templateFamily: agent.baseTemplateId,
    agentType: agent.agentType as AgentType,
    system: agent.system,
    llmConfig: agent.llmConfig,
    blocks: blocks.map((block) => ({
      id: block.id,
      label: block.label,
      value: block.value,
      limit: block.limit,
      description: block.description,
      readOnly: block.readOnly,
    })),
    tools: tools.map((tool) => ({
      id: tool.id,
      name: tool.name,
      toolType: tool.toolType,
      description: tool.description,
      jsonSchema: tool.jsonSchema as AgentSnapshot['tools'][number]['jsonSchema'],
      returnCharLimit: tool.returnCharLimit,
      defaultRequiresApproval: tool.defaultRequiresApproval ?? false,
    })),
    toolRules: agent.toolRules as ToolRule[],
    messageBufferAutoclear: agent.messageBufferAutoclear,
    timezone: agent.timezone,
  };
}
