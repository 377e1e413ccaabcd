import { TenantModel } from './base-model.js';

export type MessageRole = 'system' | 'user' | 'assistant' | 'tool' | 'approval' | 'summary';

export type ContentPart =
  | { type: 'text'; text: string; signature?: string | null }
  /** `protocol` and `item_id`: which wire protocol gave native reasoning, to send it back to that protocol only. */
  | { type: 'reasoning'; reasoning: string; is_native?: boolean; signature?: string | null; protocol?: string; item_id?: string | null }
  | { type: 'redacted_reasoning'; data: string; protocol?: string; item_id?: string | null }
  | { type: 'image'; source: Record<string, unknown> }
  | { type: string; [key: string]: unknown };

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
  [key: string]: unknown;
};

/** The stored, provider-neutral form of a message; the wire LettaMessage union is derived from it. */
export class Message extends TenantModel {
  static override tableName = 'messages';
  static override jsonAttributes = ['content', 'toolCalls', 'toolReturns', 'approvals'];
  declare id: string;
  declare sequence: string;
  declare agentId: string;
  declare runId: string | null;
  declare stepId: string | null;
  declare role: MessageRole;
  declare content: ContentPart[];
  declare name: string | null;
  declare otid: string | null;
  declare senderId: string | null;
  declare model: string | null;
  declare toolCalls: StoredToolCall[] | null;
  declare toolCallId: string | null;
  declare toolReturns: StoredToolReturn[] | null;
  declare approvals: StoredApproval[] | null;
  declare approve: boolean | null;
  declare approvalRequestId: string | null;
  declare denialReason: string | null;
  declare groupId: string | null;
  /** On a group member's copy of what another member (or the user) said: the message it copies. */
  declare copiedFromMessageId: string | null;
  declare batchItemId: string | null;
  /** The conversation the message was said in; null for the agent's default conversation. */
  declare conversationId: string | null;
  declare isErr: boolean | null;
}
