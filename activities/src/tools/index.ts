import { Context } from '@temporalio/activity';
import { createExecuteTool, type ExecuteToolDeps, type ExecuteToolInput } from '@engram/integrations/tools';

/** The activities that run tools; the agent-run workflow calls `executeTool` for each custom tool call. */
export function createToolActivities(deps: ExecuteToolDeps) {
  const execute = createExecuteTool(deps);
  return {
    /** Heartbeats while the tool runs, so a dead worker is noticed in seconds rather than at the timeout. */
    async executeTool(input: ExecuteToolInput) {
      const activity = Context.current();
      const heartbeat = setInterval(() => activity.heartbeat(), 2000);
      try {
        return await execute(input);
      } finally {
        clearInterval(heartbeat);
      }
    },
  };
}

export type ToolActivities = ReturnType<typeof createToolActivities>;
