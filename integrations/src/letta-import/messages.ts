import type { StoredApproval, StoredContentPart, StoredRole, StoredToolCall, StoredToolReturn } from '@engram/core';
import type { SourceWireMessage } from './source-types.js';

/** A stored message rebuilt from the wire parts a Letta server listed for it, still under its source id. */
export type RebuiltMessage = {
  sourceId: string;
  role: StoredRole;
  content: StoredContentPart[];
  name: string | null;
  otid: string | null;
  senderId: string | null;
  toolCalls: StoredToolCall[] | null;
  toolCallId: string | null;
  toolReturns: StoredToolReturn[] | null;
  approvals: StoredApproval[] | null;
  approve: boolean | null;
  approvalRequestId: string | null;
  denialReason: string | null;
  isErr: boolean | null;
  createdAt: Date;
};

type WireToolCall = { name: string; arguments: string; tool_call_id: string };

const storedCall = (call: WireToolCall): StoredToolCall => ({ id: call.tool_call_id, type: 'function', function: { name: call.name, arguments: call.arguments } });

function textParts(content: string | Array<{ type: string; text?: string; [key: string]: unknown }>): StoredContentPart[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return content.flatMap((part): StoredContentPart[] => {
    if (part.type === 'text') return [{ type: 'text', text: part.text ?? '' }];
    if (part.type === 'image' && typeof part.source === 'object' && part.source !== null) return [{ type: 'image', source: part.source as Record<string, unknown> }];
    return [];
  });
}

/**
 * Groups the wire parts of one page into stored messages, inverting how a Letta server expands a stored message
 * into LettaMessages (listed with `use_assistant_message=false`). `textIsAssistant`: the agent is a `letta_v1_agent`,
 * whose plain text is what it says; other agents' plain text is inner monologue, which reads back as a
 * reasoning part from a non-reasoning model. Parts of a kind no stored message holds (pings, events) are skipped.
 */
export function rebuildMessages(parts: SourceWireMessage[], options: { textIsAssistant: boolean }): RebuiltMessage[] {
  const rebuilt: RebuiltMessage[] = [];
  let current: RebuiltMessage | null = null;
  const start = (part: SourceWireMessage, role: StoredRole): RebuiltMessage => {
    if (current && current.sourceId === part.id && (current.role === role || (current.role === 'assistant' && role === 'approval'))) {
      if (role === 'approval') current.role = 'approval';
      return current;
    }
    current = {
      sourceId: part.id,
      role,
      content: [],
      name: part.name ?? null,
      otid: part.otid ?? null,
      senderId: part.sender_id ?? null,
      toolCalls: null,
      toolCallId: null,
      toolReturns: null,
      approvals: null,
      approve: null,
      approvalRequestId: null,
      denialReason: null,
      isErr: part.is_err ?? null,
      createdAt: new Date(part.date),
    };
    rebuilt.push(current);
    return current;
  };

  for (const part of parts) {
    switch (part.message_type) {
      case 'system_message':
        start(part, 'system').content.push({ type: 'text', text: part.content });
        break;
      case 'user_message':
        start(part, 'user').content.push(...textParts(part.content));
        break;
      case 'assistant_message':
        start(part, 'assistant').content.push(...textParts(part.content));
        break;
      case 'reasoning_message': {
        const message = start(part, 'assistant');
        const signature = part.signature ? { signature: part.signature } : {};
        if (!options.textIsAssistant && part.source !== 'reasoner_model') message.content.push({ type: 'text', text: part.reasoning, ...signature });
        else message.content.push({ type: 'reasoning', reasoning: part.reasoning, is_native: part.source === 'reasoner_model', ...signature });
        break;
      }
      case 'hidden_reasoning_message':
        start(part, 'assistant').content.push({ type: 'redacted_reasoning', data: part.hidden_reasoning ?? '' });
        break;
      case 'tool_call_message': {
        const message = start(part, 'assistant');
        const calls = part.tool_calls?.length ? part.tool_calls : part.tool_call ? [part.tool_call] : [];
        message.toolCalls = [...(message.toolCalls ?? []), ...calls.map(storedCall)];
        break;
      }
      case 'tool_return_message': {
        const message = start(part, 'tool');
        const returns = part.tool_returns?.length
          ? part.tool_returns
          : [{ tool_call_id: part.tool_call_id, status: part.status, tool_return: part.tool_return, stdout: part.stdout ?? null, stderr: part.stderr ?? null }];
        message.toolReturns = [
          ...(message.toolReturns ?? []),
          ...returns.map((toolReturn) => ({
            tool_call_id: toolReturn.tool_call_id,
            status: toolReturn.status,
            func_response: toolReturn.tool_return ?? toolReturn.func_response ?? '',
            stdout: toolReturn.stdout ?? null,
            stderr: toolReturn.stderr ?? null,
          })),
        ];
        message.toolCallId ??= part.tool_call_id;
        if (message.content.length === 0) message.content.push({ type: 'text', text: part.tool_return });
        break;
      }
      case 'approval_request_message': {
        const message = start(part, 'approval');
        const calls = part.tool_calls?.length ? part.tool_calls : part.tool_call ? [part.tool_call] : [];
        message.toolCalls = calls.map(storedCall);
        break;
      }
      case 'approval_response_message': {
        const message = start(part, 'approval');
        message.approvals = (part.approvals ?? []).map((approval) => ({
          type: approval.type ?? 'approval',
          tool_call_id: approval.tool_call_id,
          ...(approval.approve !== undefined && approval.approve !== null ? { approve: approval.approve } : {}),
          ...(approval.reason !== undefined ? { reason: approval.reason } : {}),
          ...(approval.status ? { status: approval.status } : {}),
          ...(approval.tool_return !== undefined ? { tool_return: approval.tool_return } : {}),
        }));
        message.approve = part.approve ?? null;
        message.approvalRequestId = part.approval_request_id ?? null;
        message.denialReason = part.reason ?? null;
        break;
      }
      default:
        break;
    }
  }
  return rebuilt;
}
