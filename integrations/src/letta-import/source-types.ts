/**
 * The parts of the Letta `/v1` wire a migration reads, as loose as Letta's own servers have written them:
 * fields absent from older versions are optional, and lists may be null.
 */
export type SourceEmbeddingConfig = {
  embedding_endpoint_type: string;
  embedding_endpoint?: string | null;
  embedding_model: string;
  embedding_dim: number;
  embedding_chunk_size?: number | null;
  handle?: string | null;
  batch_size?: number | null;
  [key: string]: unknown;
};

export type SourceBlock = {
  id: string;
  label: string;
  value: string;
  limit?: number | null;
  description?: string | null;
  metadata?: Record<string, unknown> | null;
  read_only?: boolean | null;
  hidden?: boolean | null;
  tags?: string[] | null;
};

export type SourceTool = {
  id: string;
  name: string;
  tool_type?: string | null;
  description?: string | null;
  source_type?: string | null;
  source_code?: string | null;
  json_schema?: Record<string, unknown> | null;
  args_json_schema?: Record<string, unknown> | null;
  tags?: string[] | null;
  return_char_limit?: number | null;
  pip_requirements?: Array<{ name: string; version?: string | null }> | null;
  npm_requirements?: Array<{ name: string; version?: string | null }> | null;
  default_requires_approval?: boolean | null;
  enable_parallel_execution?: boolean | null;
  metadata_?: Record<string, unknown> | null;
};

export type SourceAgent = {
  id: string;
  name: string;
  agent_type?: string | null;
  system?: string | null;
  description?: string | null;
  metadata?: Record<string, unknown> | null;
  llm_config: Record<string, unknown> & { model: string; context_window: number };
  embedding_config?: SourceEmbeddingConfig | null;
  response_format?: Record<string, unknown> | null;
  memory?: { blocks?: SourceBlock[] | null } | null;
  blocks?: SourceBlock[] | null;
  tools?: SourceTool[] | null;
  sources?: Array<{ id: string; name?: string }> | null;
  tags?: string[] | null;
  identity_ids?: string[] | null;
  identities?: Array<{ id: string }> | null;
  tool_rules?: Array<{ type: string; tool_name: string; [key: string]: unknown }> | null;
  message_ids?: string[] | null;
  message_buffer_autoclear?: boolean | null;
  timezone?: string | null;
  max_files_open?: number | null;
  per_file_view_window_char_limit?: number | null;
  hidden?: boolean | null;
  /** Letta answers variables with their values masked or absent; only the keys are ever carried over. */
  tool_exec_environment_variables?: Array<{ key: string; description?: string | null }> | null;
  secrets?: Array<{ key: string; description?: string | null }> | null;
};

type WireCommon = { id: string; date: string; name?: string | null; otid?: string | null; sender_id?: string | null; is_err?: boolean | null };
type WireToolCall = { name: string; arguments: string; tool_call_id: string };
type WireToolReturn = { tool_call_id: string; status: 'success' | 'error'; tool_return?: string; func_response?: string; stdout?: string[] | null; stderr?: string[] | null };
type WireApproval = { type?: 'approval' | 'tool'; tool_call_id: string; approve?: boolean | null; reason?: string | null; status?: 'success' | 'error'; tool_return?: string };
type WireContentPart = { type: string; text?: string; [key: string]: unknown };

/** One entry of `GET /v1/agents/{id}/messages`; the parts of one stored message share its `id`. */
export type SourceWireMessage = WireCommon &
  (
    | { message_type: 'system_message'; content: string }
    | { message_type: 'user_message'; content: string | WireContentPart[] }
    | { message_type: 'assistant_message'; content: string | WireContentPart[] }
    | { message_type: 'reasoning_message'; reasoning: string; source?: string | null; signature?: string | null }
    | { message_type: 'hidden_reasoning_message'; hidden_reasoning?: string | null; state?: string }
    | { message_type: 'tool_call_message'; tool_call?: WireToolCall | null; tool_calls?: WireToolCall[] | null }
    | {
        message_type: 'tool_return_message';
        tool_return: string;
        status: 'success' | 'error';
        tool_call_id: string;
        stdout?: string[] | null;
        stderr?: string[] | null;
        tool_returns?: WireToolReturn[] | null;
      }
    | { message_type: 'approval_request_message'; tool_call?: WireToolCall | null; tool_calls?: WireToolCall[] | null }
    | {
        message_type: 'approval_response_message';
        approvals?: WireApproval[] | null;
        approve?: boolean | null;
        approval_request_id?: string | null;
        reason?: string | null;
      }
    | { message_type: 'event_message' | 'summary_message' | 'ping'; [key: string]: unknown }
  );

export type SourcePassage = {
  id: string;
  text: string;
  tags?: string[] | null;
  metadata?: Record<string, unknown> | null;
  created_at?: string | null;
  embedding?: number[] | null;
  embedding_config?: SourceEmbeddingConfig | null;
};

export type SourceIdentity = {
  id: string;
  identifier_key: string;
  name: string;
  identity_type?: string | null;
  properties?: Array<{ key: string; type: string; value: unknown }> | null;
  agent_ids?: string[] | null;
  block_ids?: string[] | null;
};

export type SourceGroup = {
  id: string;
  manager_type: string;
  description?: string | null;
  agent_ids?: string[] | null;
  manager_agent_id?: string | null;
  termination_token?: string | null;
  max_turns?: number | null;
  sleeptime_agent_frequency?: number | null;
  max_message_buffer_length?: number | null;
  min_message_buffer_length?: number | null;
  shared_block_ids?: string[] | null;
  hidden?: boolean | null;
};

export type SourceFolder = {
  id: string;
  name: string;
  description?: string | null;
  instructions?: string | null;
  metadata?: Record<string, unknown> | null;
  embedding_config?: SourceEmbeddingConfig | null;
};

export type SourceFile = {
  id: string;
  file_name?: string | null;
  original_file_name?: string | null;
  file_type?: string | null;
  content?: string | null;
  processing_status?: string | null;
};

export type SourceMcpServer = {
  id: string;
  server_name: string;
  mcp_server_type?: string | null;
  type?: string | null;
  server_url?: string | null;
  command?: string | null;
  args?: string[] | null;
};

export type SourceConversation = {
  id: string;
  agent_id: string;
  summary?: string | null;
  description?: string | null;
  archived?: boolean | null;
  hidden?: boolean | null;
  model?: string | null;
  model_settings?: Record<string, unknown> | null;
  context_window_limit?: number | null;
  in_context_message_ids?: string[] | null;
};
