/** The stored, provider-neutral message (a `messages` row in camelCase); the wire union derives from it. */
export type StoredRole = 'system' | 'user' | 'assistant' | 'tool' | 'approval' | 'summary';

export type StoredContentPart =
  | { type: 'text'; text: string; signature?: string | null }
  /** `protocol` and `item_id`: which wire protocol gave native reasoning, to send it back to that protocol only. */
  | { type: 'reasoning'; reasoning: string; is_native?: boolean; signature?: string | null; protocol?: string; item_id?: string | null }
  | { type: 'redacted_reasoning'; data: string; protocol?: string; item_id?: string | null }
  | { type: 'image'; source: Record<string, unknown> };

export type StoredToolCall = { id: string; type: 'function'; function: { name: string; arguments: string } };

export type StoredToolReturn = {
  tool_call_id: string;
  status: 'success' | 'error';
  func_response: string;
  stdout?: string[] | null;
  stderr?: string[] | null;
};

export type StoredApproval = {
  type: 'approval' | 'tool';
  tool_call_id: string;
  approve?: boolean;
  reason?: string | null;
  status?: 'success' | 'error';
  tool_return?: string;
};

export type StoredMessage = {
  id: string;
  agentId: string;
  runId: string | null;
  stepId: string | null;
  role: StoredRole;
  content: StoredContentPart[];
  name: string | null;
  otid: string | null;
  senderId: string | null;
  model: string | null;
  /** On assistant messages; on `approval` messages, the calls awaiting a decision. */
  toolCalls: StoredToolCall[] | null;
  toolCallId: string | null;
  toolReturns: StoredToolReturn[] | null;
  /** On `approval` role messages that answer a request. */
  approvals: StoredApproval[] | null;
  isErr: boolean | null;
  createdAt: Date;
};
