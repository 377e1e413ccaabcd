import type { Knex } from 'knex';
import type { AgentSnapshot, RunRequest, StoredMessage } from '@engram/core';
import { contextMessageIds, loadAgentSnapshot, readTogether, loadMessagesInOrder, Run, type ContextOwner } from '@engram/db';

export class RunStateError extends Error {}

export type RunContext = {
  run: Run;
  request: RunRequest;
  snapshot: AgentSnapshot;
  inContext: StoredMessage[];
  /** The run's input messages, stored when it was accepted, until its first step puts them in context. */
  pendingInputs: StoredMessage[];
};

/** What one step sees: the agent as it is now, its context window, and the run's inputs not in it yet. */
export async function loadRunContext(db: Knex, organizationId: string, runId: string): Promise<RunContext> {
  const run = await Run.query(db).forOrg(organizationId).findById(runId);
  if (!run) throw new RunStateError(`run ${runId} does not exist`);
  const [agent, messageIds] = await readTogether(db, [() => loadAgentSnapshot(db, organizationId, run.agentId, run.conversationId ?? null), () => contextMessageIds(db, contextOwnerOf(run))] as const);
  if (!agent) throw new RunStateError(`agent ${run.agentId} of run ${runId} no longer exists`);
  const request = run.request as unknown as RunRequest;
  // A run in a conversation with model overrides calls the model its send resolved; everything else is the agent's.
  const snapshot: AgentSnapshot = request.llmConfig ? { ...agent, llmConfig: request.llmConfig } : agent;
  // With autoclear, each request starts from the system message alone; history stays stored and searchable.
  const contextIds = snapshot.messageBufferAutoclear ? messageIds.slice(0, 1) : messageIds;
  const [inContext, pendingInputs] = await readTogether(db, [
    () => loadMessagesInOrder(db, organizationId, contextIds),
    () => loadMessagesInOrder(db, organizationId, run.pendingInputIds),
  ] as const);
  return { run, request, snapshot, inContext, pendingInputs };
}

/** The context window a run reads and extends: its conversation's, or the agent's own. */
export function contextOwnerOf(run: Run): ContextOwner {
  return { organizationId: run.organizationId, agentId: run.agentId, conversationId: run.conversationId ?? null };
}

/**
 * What every message a run writes carries besides its agent and run: the group whose turn it is, the
 * batch item it answers (`group_id`, `batch_item_id` on the wire) and its conversation, as its input messages do.
 */
export function messageTagsOf(run: Run): { groupId: string | null; batchItemId: string | null; conversationId: string | null } {
  const { group_id: groupId, batch_item_id: batchItemId } = run.metadata;
  return {
    groupId: typeof groupId === 'string' ? groupId : null,
    batchItemId: typeof batchItemId === 'string' ? batchItemId : null,
    conversationId: run.conversationId ?? null,
  };
}
