import { DEFAULT_TEMPLATE_TEMPERATURE, type MemoryVariable, type TemplateSnapshot } from '@engram/core/templates/snapshot';
import type { ToolRule } from '@engram/core';
import type { AgentView } from '../agents/agent-views.js';
import type { CreateAgentInput } from '../agents/agent-service.js';

/** A template's state taken from an agent (its blocks as written, placeholders and all). */
export function snapshotOfAgent(view: AgentView): TemplateSnapshot {
  const { agent } = view;
  return {
    agentType: agent.agentType,
    system: agent.system,
    llmConfig: { ...agent.llmConfig, temperature: agent.llmConfig.temperature ?? DEFAULT_TEMPLATE_TEMPERATURE },
    embeddingConfig: agent.embeddingConfig,
    toolIds: view.tools.map((tool) => tool.id),
    toolRules: agent.toolRules as ToolRule[],
    sourceIds: view.sources.map((source) => source.id),
    tags: agent.tags,
    identityIds: view.identityIds,
    memoryVariables: [],
    toolVariables: [],
    blocks: view.blocks.map((block) => ({
      label: block.label,
      value: block.value,
      limit: block.limit,
      description: block.description,
      readOnly: block.readOnly,
      preserveOnMigration: block.preserveOnMigration,
      blockTemplateId: null,
    })),
  };
}

/** The create-agent request that builds an agent from a snapshot whose placeholders are already filled. */
export function agentInputOf(snapshot: TemplateSnapshot, fill: (text: string) => string): CreateAgentInput {
  return {
    agent_type: snapshot.agentType as CreateAgentInput['agent_type'],
    system: fill(snapshot.system),
    // Checked against the agent config schemas when the snapshot was taken.
    llm_config: snapshot.llmConfig as CreateAgentInput['llm_config'],
    embedding_config: snapshot.embeddingConfig as CreateAgentInput['embedding_config'],
    tool_ids: snapshot.toolIds,
    include_base_tools: false,
    include_base_tool_rules: false,
    tool_rules: snapshot.toolRules,
    folder_ids: snapshot.sourceIds,
    tags: snapshot.tags,
    memory_blocks: snapshot.blocks.map((block) => ({
      label: block.label,
      value: fill(block.value),
      limit: block.limit,
      description: block.description,
      read_only: block.readOnly,
      preserve_on_migration: block.preserveOnMigration,
    })),
  };
}

/**
 * An agent's tool environment variables from a template's tool variables: each given value, else the declared
 * default (a variable with neither is left out); given keys the template does not declare are kept too.
 */
export function toolVariableValues(declared: MemoryVariable[], given: Readonly<Record<string, string>>): Record<string, string> {
  const values: Record<string, string> = {};
  for (const variable of declared) {
    if (variable.defaultValue !== null) values[variable.key] = variable.defaultValue;
  }
  return { ...values, ...given };
}
