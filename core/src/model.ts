/**
 * Provider-neutral model I/O. The agent loop builds a `ModelRequest`; a provider adapter turns it into
 * the provider's own payload (`core/src/llm/*-payload.ts`), sends it, and returns a `ModelTurn`.
 * Everything here is plain JSON so it can cross the workflow/activity boundary.
 */
export type PromptToolCall = { id: string; name: string; arguments: string };

/**
 * The wire protocols Engram speaks to models. A provider type maps to one (`wireProtocolFor`), and reasoning
 * carries the protocol that produced it: only that protocol accepts it back.
 */
export type WireProtocol = 'openai_chat' | 'openai_responses' | 'anthropic' | 'gemini' | 'bedrock';

/**
 * A model's reasoning as its provider gave it, so the next step can send it back in the form that provider
 * requires: Anthropic's thinking signature, OpenAI's encrypted reasoning item (`itemId`, encrypted content in
 * `signature`), Gemini's thought signature, Bedrock's reasoning signature. `redacted_reasoning` is reasoning the
 * client may not read (Anthropic's redacted thinking, an encrypted OpenAI item without a summary).
 */
export type ReasoningPart =
  | { type: 'reasoning'; text: string; protocol: WireProtocol; signature?: string | null; itemId?: string | null }
  | { type: 'redacted_reasoning'; data: string; protocol: WireProtocol; itemId?: string | null };

export type PromptContentPart =
  | { type: 'text'; text: string }
  | { type: 'image'; mediaType: string; data: string };

export type PromptMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string | PromptContentPart[] }
  | {
      role: 'assistant';
      content: string | null;
      toolCalls?: PromptToolCall[];
      reasoning?: string | null;
      /** The reasoning as given, for the protocol that can take it back. */
      reasoningParts?: ReasoningPart[];
    }
  | { role: 'tool'; toolCallId: string; content: string };

export type ToolDefinition = {
  name: string;
  description: string;
  parameters: { type: 'object'; properties: Record<string, unknown>; required?: string[] };
};

export type ToolChoice = 'auto' | 'required' | 'none' | { name: string };

/** The llm_config fields a request needs (the agent's llm_config is passed as is). */
export type ModelSettings = {
  model: string;
  model_endpoint_type: string;
  model_endpoint?: string | null;
  provider_name?: string | null;
  provider_category?: string | null;
  context_window: number;
  handle?: string | null;
  temperature?: number | null;
  max_tokens?: number | null;
  parallel_tool_calls?: boolean | null;
  reasoning_effort?: string | null;
  enable_reasoner?: boolean | null;
  max_reasoning_tokens?: number | null;
  frequency_penalty?: number | null;
};

export type ModelRequest = {
  settings: ModelSettings;
  messages: PromptMessage[];
  tools: ToolDefinition[];
  toolChoice: ToolChoice;
  parallelToolCalls: boolean;
  stream: boolean;
};

export type TokenUsage = {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  /** Prompt tokens read from the provider's prompt cache (part of `prompt_tokens`). */
  cached_input_tokens?: number;
  /** Prompt tokens written to the provider's prompt cache (part of `prompt_tokens`). */
  cache_write_tokens?: number;
  /** Completion tokens spent reasoning (part of `completion_tokens`). */
  reasoning_tokens?: number;
};

export type ModelTurn = {
  text: string | null;
  reasoning: string | null;
  /** The reasoning as the provider gave it (signatures, encrypted items); absent from providers that give only text. */
  reasoningParts?: ReasoningPart[];
  toolCalls: PromptToolCall[];
  finishReason: 'stop' | 'tool_calls' | 'length' | 'content_filter' | 'other';
  usage: TokenUsage;
  /** The provider's model id as it answered. */
  model: string;
};

/** A fragment of a streamed answer, forwarded to live token streams. */
export type ModelDelta =
  | { kind: 'text'; text: string }
  | { kind: 'reasoning'; text: string }
  /** Reasoning the client may not read: encrypted or redacted by the provider. */
  | { kind: 'hidden_reasoning'; data: string }
  | { kind: 'tool_call'; index: number; id?: string; name?: string; argumentsFragment?: string };

/** Why a model call failed; decides retrying and the run's stop reason. */
export type ModelErrorKind =
  | 'rate_limit'
  | 'server'
  | 'timeout'
  | 'connection'
  | 'bad_request'
  | 'authentication'
  | 'context_overflow'
  | 'invalid_response'
  | 'not_configured';

export const RETRYABLE_MODEL_ERRORS: ReadonlySet<ModelErrorKind> = new Set(['rate_limit', 'server', 'timeout', 'connection']);
