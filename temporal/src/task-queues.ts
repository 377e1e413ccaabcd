/** Versioned so a breaking workflow change can move to a new queue while old runs drain. */
export const AGENT_RUNS_TASK_QUEUE = 'engram-agent-runs-v1';
