import type { Knex } from 'knex';
import { runInputContent, type RunInputMessage, type RunRequest } from '@engram/core';
import { newId } from '../ids.js';
import { Agent } from '../models/agent.js';
import { Message } from '../models/message.js';
import { Run } from '../models/run.js';

export type QueuedRunRecord = {
  organizationId: string;
  agentId: string;
  request: RunRequest;
  runType: string;
  callbackUrl: string | null;
  /** Merged into the run's metadata (e.g. the batch or schedule that started it). */
  metadata: Record<string, unknown>;
  /** Carried by the run's input messages (`batch_item_id` on the wire). */
  batchItemId?: string;
  /** The group whose turn this run is: its input messages (and what the run writes) carry `group_id`. */
  groupId?: string;
  /** By position among the request's plain messages: the message each input copies (a group member's copy of what was said). */
  copiedFrom?: Array<string | null>;
  /** Names the start (e.g. a schedule's firing): a retried start finds the run it recorded. */
  idempotencyKey?: string;
};

/**
 * Records a run started by the platform itself (a batch item, a scheduled message) as the API records a
 * send: the run, and its input messages stored with it, pending until its first step. The caller queues it.
 * Null when the agent no longer exists.
 */
export async function insertQueuedRun(trx: Knex.Transaction, record: QueuedRunRecord): Promise<Run | null> {
  const agent = await Agent.query(trx).forOrg(record.organizationId).findById(record.agentId);
  if (!agent) return null;
  if (record.idempotencyKey) {
    const existing = await Run.query(trx).forOrg(record.organizationId).findOne({ agentId: record.agentId, idempotencyKey: record.idempotencyKey });
    if (existing) return existing;
  }
  const runId = newId('run');
  const now = Date.now();
  const inputs = record.request.messages
    .filter((input): input is RunInputMessage => input.type === 'message')
    .map((input, index) => ({
      id: newId('message'),
      organizationId: record.organizationId,
      agentId: record.agentId,
      runId,
      role: input.role,
      content: runInputContent(input),
      name: input.name ?? null,
      otid: input.otid ?? null,
      senderId: input.sender_id ?? null,
      batchItemId: record.batchItemId ?? null,
      groupId: record.groupId ?? null,
      copiedFromMessageId: record.copiedFrom?.[index] ?? null,
      createdAt: new Date(now + index),
    }));
  const run = await Run.query(trx).insertAndFetch({
    id: runId,
    organizationId: record.organizationId,
    projectId: agent.projectId,
    agentId: record.agentId,
    userId: null,
    status: 'created',
    background: true,
    jobType: 'run',
    metadata: {
      run_type: record.runType,
      ...(record.batchItemId ? { batch_item_id: record.batchItemId } : {}),
      ...(record.groupId ? { group_id: record.groupId } : {}),
      ...record.metadata,
    },
    requestConfig: {
      use_assistant_message: record.request.useAssistantMessage,
      assistant_message_tool_name: record.request.assistantMessageToolName,
      assistant_message_tool_kwarg: record.request.assistantMessageToolKwarg,
      include_return_message_types: record.request.includeReturnMessageTypes,
    },
    request: record.request as unknown as Record<string, unknown>,
    idempotencyKey: record.idempotencyKey ?? null,
    pendingInputIds: inputs.map((input) => input.id),
    callbackUrl: record.callbackUrl,
  } as Partial<Run>);
  if (inputs.length > 0) await Message.query(trx).insert(inputs as unknown as Message[]);
  return run;
}
