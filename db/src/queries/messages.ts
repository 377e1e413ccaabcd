import type { StoredMessage } from '@engram/core';
import type { Knex } from 'knex';
import { Message } from '../models/message.js';

export function toStoredMessage(row: Message): StoredMessage {
  return {
    id: row.id,
    agentId: row.agentId,
    runId: row.runId,
    stepId: row.stepId,
    role: row.role,
    content: row.content as StoredMessage['content'],
    name: row.name,
    otid: row.otid,
    senderId: row.senderId,
    model: row.model,
    toolCalls: row.toolCalls,
    toolCallId: row.toolCallId,
    toolReturns: row.toolReturns,
    approvals: row.approvals as StoredMessage['approvals'],
    isErr: row.isErr,
    createdAt: row.createdAt,
  };
}

/** The agent's context window in `message_ids` order (the system message first). */
export async function loadMessagesInOrder(db: Knex, organizationId: string, messageIds: string[]): Promise<StoredMessage[]> {
  if (messageIds.length === 0) return [];
  const rows = await Message.query(db).forOrg(organizationId).whereIn('id', messageIds);
  const byId = new Map(rows.map((row) => [row.id, row]));
  return messageIds.flatMap((id) => {
    const row = byId.get(id);
    return row ? [toStoredMessage(row)] : [];
  });
}
