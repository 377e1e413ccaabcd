/**
 * The `/v1` wire shapes the console reads. Responses come from `wire.generated.ts`, which `npm run
 * contracts:kit-types` writes from the API's route schemas (the components of /openapi.json). Still written here:
 * request bodies, the loose stream frame, the context window (no named schema yet), and the narrower agent, tool
 * and model configuration views the console's screens were written against (their full shapes: `Wire.AgentState`,
 * `Wire.Tool`, `Wire.LLMConfig`).
 */
import type * as Wire from './wire.generated.js';

export type { Wire };

export type LlmConfig = {
  model: string;
  handle: string | null;
  context_window: number;
  model_endpoint_type?: string;
  /** Generation settings the worker sends the provider; null or absent leaves the provider's default. */
  temperature?: number | null;
  max_tokens?: number | null;
  parallel_tool_calls?: boolean | null;
  [key: string]: unknown;
};

export type Model = Wire.Model;

export type Block = Wire.Block;

export type Tool = {
  id: string;
  name: string;
  description: string | null;
  tool_type: string;
  tags: string[];
  json_schema: { name?: string; description?: string; parameters?: { properties?: Record<string, { type?: string; description?: string }>; required?: string[] } };
  default_requires_approval: boolean | null;
};

export type ToolRule = { tool_name: string; type: string; [key: string]: unknown };

export type Agent = {
  id: string;
  name: string;
  /** The system prompt. */
  system: string;
  description: string | null;
  agent_type: string;
  model: string | null;
  llm_config: LlmConfig;
  tags: string[];
  blocks: Block[];
  tools: Tool[];
  tool_rules: ToolRule[] | null;
  project_id: string | null;
  created_at: string;
  updated_at: string | null;
  last_run_completion: string | null;
  last_stop_reason: string | null;
};

export type CreateBlock = { label: string; value: string; limit?: number; description?: string };

export type CreateAgent = {
  name?: string;
  model?: string;
  description?: string;
  tags?: string[];
  memory_blocks?: CreateBlock[];
  project_id?: string;
  include_base_tools?: boolean;
};


export type Run = Wire.Run;

export type RunStatus = Wire.Run['status'];

/** A step of a run: one model call and the tools it called (`GET /runs/{id}/steps`). */
export type Step = Wire.Step;

/** `GET /steps/{id}/metrics`: where a step's time went, in nanoseconds. */
export type StepMetrics = Wire.StepMetrics;

/** `GET /steps/{id}/trace`: the body sent to the provider, and the model's answer as the worker read it. */
export type StepTrace = Wire.ProviderTrace;


export type UsageStatistics = Wire.LettaUsageStatistics;

export type ContextWindow = {
  context_window_size_max: number;
  context_window_size_current: number;
  num_messages: number;
  num_archival_memory: number;
  num_recall_memory: number;
  num_tokens_system: number;
  num_tokens_core_memory: number;
  num_tokens_external_memory_summary: number;
  num_tokens_summary_memory: number;
  num_tokens_functions_definitions: number;
  num_tokens_messages: number;
};

export type Passage = { id: string; text: string; created_at: string; tags?: string[] | null };

export type ToolCall = { name?: string; arguments?: string; tool_call_id?: string };

/** A message or control frame of the agent API (`LettaMessage` and the stream's extra frames). */
export type WireMessage = {
  id: string;
  message_type: string;
  date?: string;
  otid?: string | null;
  run_id?: string | null;
  step_id?: string | null;
  seq_id?: number;
  /** user/assistant/system messages. */
  content?: string | Array<{ type: string; text?: string }>;
  /** reasoning_message. */
  reasoning?: string;
  /** tool_call_message / approval_request_message. */
  tool_call?: ToolCall;
  tool_calls?: ToolCall[];
  /** tool_return_message. */
  tool_return?: string;
  status?: 'success' | 'error';
  tool_call_id?: string;
  /** approval_response_message. */
  approve?: boolean | null;
  approval_request_id?: string | null;
  reason?: string | null;
  /** stop_reason frames. */
  stop_reason?: string;
  /** error_message frames. */
  error_type?: string;
  message?: string;
  [key: string]: unknown;
};

/**
 * What `PATCH /agents/{id}` changes. A `model` handle takes that model's configuration (with the context window,
 * max tokens and `model_settings` given); an `llm_config` replaces the current one as it is.
 */
export type UpdateAgent = Partial<Pick<Agent, 'name' | 'description' | 'tags' | 'system'>> & {
  model?: string;
  llm_config?: LlmConfig;
  context_window_limit?: number;
  max_tokens?: number | null;
  model_settings?: { temperature?: number; max_output_tokens?: number; parallel_tool_calls?: boolean };
};
