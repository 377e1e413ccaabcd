import type { ModelSettings, ToolDefinition } from './model.js';

/** What the agent loop needs of an agent, loaded in one place and passed around as plain data. */
export type AgentType = 'letta_v1_agent' | 'memgpt_v2_agent' | 'memgpt_agent' | 'react_agent' | 'workflow_agent' | 'sleeptime_agent';

export type MemoryBlock = {
  id: string;
  label: string;
  value: string;
  limit: number;
  description: string | null;
  readOnly: boolean;
};

export type AgentTool = {
  id: string;
  name: string;
  toolType: string;
  description: string | null;
  jsonSchema: ToolDefinition & Record<string, unknown>;
  returnCharLimit: number;
  defaultRequiresApproval: boolean;
};

export type ToolRule =
  | { type: 'run_first'; tool_name: string; args?: Record<string, unknown> | null; prompt_template?: string | null }
  | { type: 'constrain_child_tools'; tool_name: string; children: string[]; prompt_template?: string | null }
  | {
      type: 'conditional';
      tool_name: string;
      child_output_mapping: Record<string, string>;
      default_child?: string | null;
      require_output_mapping?: boolean;
      prompt_template?: string | null;
    }
  | { type: 'parent_last_tool'; tool_name: string; children: string[]; prompt_template?: string | null }
  | { type: 'max_count_per_step'; tool_name: string; max_count_limit: number; prompt_template?: string | null }
  | { type: 'exit_loop'; tool_name: string; prompt_template?: string | null }
  | { type: 'continue_loop'; tool_name: string; prompt_template?: string | null }
  | { type: 'required_before_exit'; tool_name: string; prompt_template?: string | null }
  | { type: 'requires_approval'; tool_name: string; prompt_template?: string | null };

export type AgentSnapshot = {
  id: string;
  organizationId: string;
  /** The conversation whose view of memory `blocks` is (its isolated blocks in place of the agent's); null for the agent's own. */
  conversationId?: string | null;
  name: string;
  agentType: AgentType;
  system: string;
  llmConfig: ModelSettings & Record<string, unknown>;
  blocks: MemoryBlock[];
  tools: AgentTool[];
  toolRules: ToolRule[];
  messageBufferAutoclear: boolean;
  timezone: string;
  /** The template the agent was made from and its family (null for an agent made by hand): traces and metrics filter by them. */
  templateId: string | null;
  templateFamily: string | null;
};

/** A client-side tool declared on one request; calling it pauses the run like an approval. */
export type ClientTool = { name: string; description?: string | null; parameters?: Record<string, unknown> | null };

/** Per-request tool-rule bookkeeping the workflow carries from step to step. */
export type ToolRuleState = {
  /** Tool names called in this request, in order. */
  calledTools: string[];
  /** The last tool's return `message`, for conditional rules. */
  lastToolOutput: string | null;
  /** Whether the agent's history had any assistant turn before this request (init rules apply when not). */
  hasHistory: boolean;
};
