import { SpanKind } from '@opentelemetry/api';
import { Context } from '@temporalio/activity';
import { GEN_AI, runSpanAttributes, SPAN } from '@engram/core';
import { createExecuteTool, type ExecuteToolDeps, type ExecuteToolInput } from '@engram/integrations/tools';
import { inSpan, markToolResult, tracingOf, type ActivityTracing } from '../agent-run/spans.js';

/** The activities that run tools; the agent-run workflow calls `executeTool` for each custom tool call. */
export function createToolActivities(deps: ExecuteToolDeps & { tracing?: ActivityTracing }) {
  const execute = createExecuteTool(deps);
  const { tracer, recordContent } = tracingOf(deps);
  return {
    /** Heartbeats while the tool runs, so a dead worker is noticed in seconds rather than at the timeout. */
    async executeTool(input: ExecuteToolInput) {
      const activity = Context.current();
      const heartbeat = setInterval(() => activity.heartbeat(), 2000);
      const attributes = {
        ...(input.runId ? runSpanAttributes({ organizationId: input.organizationId, agentId: input.agentId, runId: input.runId }) : {}),
        [GEN_AI.operationName]: SPAN.executeTool,
        [GEN_AI.toolName]: input.toolName,
        [GEN_AI.toolCallId]: input.toolCallId,
        [GEN_AI.toolType]: 'function',
        ...(recordContent ? { [GEN_AI.toolCallArguments]: JSON.stringify(input.arguments) } : {}),
      };
      try {
        return await inSpan(tracer, `${SPAN.executeTool} ${input.toolName}`, { kind: SpanKind.INTERNAL, attributes }, async (span) => {
          const result = await execute(input);
          markToolResult(span, result.status, result.funcResponse, recordContent);
          return result;
        });
      } finally {
        clearInterval(heartbeat);
      }
    },
  };
}

export type ToolActivities = ReturnType<typeof createToolActivities>;
