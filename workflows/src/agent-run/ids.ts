/**
 * One queue per conversation, so its runs never interleave while the agent's conversations run side by side. The
 * default conversation (the agent's own history) keeps the agent's queue id, so queues started before conversations
 * existed go on taking its runs. The run workflow's id is the run id itself.
 */
export function agentQueueWorkflowId(agentId: string, conversationId?: string | null): string {
  return conversationId ? `agent-queue-${agentId}-${conversationId}` : `agent-queue-${agentId}`;
}
