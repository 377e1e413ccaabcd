import type { StopReason, ToolRuleState, TokenUsage } from '@engram/core';

export type AgentRunInput = {
  runId: string;
  agentId: string;
  organizationId: string;
  maxSteps: number;
  /** The conversation the run answers in; absent for the agent's default conversation. */
  conversationId?: string;
  /** A workflow waiting for the run (a group turn, a run that called this agent): signalled when it ends. */
  notify?: string;
};

export type RunFailure = { errorType: string; message: string };

export type AgentRunResult = { stopReason: StopReason; usage: TokenUsage & { step_count: number } };

export type BeginRunResult =
  | { proceed: true; ruleState: ToolRuleState; usage: TokenUsage; stepCount: number; stopReason?: undefined }
  /** The run ends before calling the model: cancelled while queued, or its input was answered already. */
  | { proceed: false; stopReason: StopReason; failure?: RunFailure };

export type ApplyTurnResult =
  | { stop: false; ruleState: ToolRuleState }
  | { stop: true; stopReason: StopReason; ruleState: ToolRuleState };

/** `conversationId`: the queue of one conversation of the agent; absent for its default conversation. */
export type QueueInput = { agentId: string; organizationId: string; conversationId?: string; pending?: QueuedRun[] };

/**
 * `traceContext`: the W3C trace context of the request that queued the run (absent when tracing is off).
 * `notify`: the id of a workflow waiting for the run (a group turn, or a run that called this agent), signalled when it ends.
 */
export type QueuedRun = { runId: string; maxSteps: number; runType: string; traceContext?: Record<string, string>; notify?: string };

export type RunFinished = { runId: string };
