export type Usage = { prompt_tokens: number; completion_tokens: number; total_tokens: number };

export type ScriptedToolCall = {
  /** Generated (`call_<completion>_<index>`) when omitted. */
  id?: string;
  name: string;
  /** Objects are sent JSON-encoded; strings are sent verbatim, so tests can script invalid JSON arguments. */
  arguments: string | Record<string, unknown>;
};

export type ScriptedReply =
  | {
      type: 'text';
      text: string;
      /** Streamed as `delta.reasoning_content` before the text; non-streaming replies carry `message.reasoning_content`. */
      reasoning?: string;
      usage?: Partial<Usage>;
      finishReason?: 'stop' | 'length';
    }
  | { type: 'tool_calls'; calls: ScriptedToolCall[]; text?: string; usage?: Partial<Usage> }
  | { type: 'error'; status: number; message: string; code?: string }
  | { type: 'malformed' }
  | { type: 'hang' };

export type ScriptStep = ScriptedReply & {
  /** Wait before answering at all (headers included). */
  delayMs?: number;
  /** Answer only once this settles: a test holds a model call open until something else has happened. */
  until?: Promise<unknown>;
  /** Pause between streamed chunks; ignored for non-streaming requests. */
  chunkDelayMs?: number;
  /** A queued step with `match` is only served to requests it accepts; later steps may be served first. */
  match?: (request: ChatRequest) => boolean;
};

export type ChatContentPart = { type: string; text?: string; [key: string]: unknown };

export type ChatMessageToolCall = {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
};

export type ChatMessage = {
  role: 'system' | 'developer' | 'user' | 'assistant' | 'tool' | (string & {});
  content?: string | ChatContentPart[] | null;
  name?: string;
  tool_calls?: ChatMessageToolCall[];
  tool_call_id?: string;
  [key: string]: unknown;
};

export type ChatTool = {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown>; strict?: boolean };
};

export type ChatToolChoice =
  | 'none'
  | 'auto'
  | 'required'
  | { type: 'function'; function: { name: string } };

/** The JSON body of a chat completion request, as received. */
export type ChatRequest = {
  model: string;
  messages: ChatMessage[];
  tools?: ChatTool[];
  tool_choice?: ChatToolChoice;
  parallel_tool_calls?: boolean;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  temperature?: number;
  max_tokens?: number;
  max_completion_tokens?: number;
  [key: string]: unknown;
};

export type EmbeddingRequest = { model: string; input: string[] };

export type ScriptedModelServer = {
  /** Base URL including `/v1`: pass it as `baseURL` to the openai SDK. */
  url: string;
  port: number;
  /** Queues replies, served in FIFO order to chat completion requests. */
  enqueue(...steps: ScriptStep[]): void;
  /**
   * Adds a dynamic responder, consulted (in registration order) when no queued step fits the
   * request; the first handler returning a step answers it.
   */
  onRequest(handler: (request: ChatRequest) => ScriptStep | undefined): void;
  /** Every chat completion request received, in arrival order. */
  requests: ChatRequest[];
  embeddingRequests: EmbeddingRequest[];
  /** Ids listed by GET /v1/models; read on every request, so assigning a new list takes effect at once. */
  models: string[];
  setEmbeddingDimension(dimension: number): void;
  /** Steps still queued. */
  pending(): number;
  /** Forgets queued steps, handlers and recorded requests; restores the initial models and embedding dimension. */
  reset(): void;
  /** Stops listening and ends every open connection, hanging ones included. */
  close(): Promise<void>;
};
