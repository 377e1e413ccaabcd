/** One queue per agent, so its runs never interleave. The run workflow's id is the run id itself. */
export function agentQueueWorkflowId(agentId: string): string {
  return `agent-queue-${agentId}`;
}
