/**
 * Span names and attribute keys: the OpenTelemetry GenAI semantic conventions, and Engram's ids under `engram.*`.
 * The span store summarises traces by these names, the console filters by them.
 */
export const SPAN = {
  invokeAgent: 'invoke_agent',
  agentStep: 'agent_step',
  chat: 'chat',
  executeTool: 'execute_tool',
} as const;

export const GEN_AI = {
  operationName: 'gen_ai.operation.name',
  providerName: 'gen_ai.provider.name',
  requestModel: 'gen_ai.request.model',
  responseModel: 'gen_ai.response.model',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  finishReasons: 'gen_ai.response.finish_reasons',
  agentId: 'gen_ai.agent.id',
  agentName: 'gen_ai.agent.name',
  conversationId: 'gen_ai.conversation.id',
  toolName: 'gen_ai.tool.name',
  toolCallId: 'gen_ai.tool.call.id',
  toolType: 'gen_ai.tool.type',
  toolCallArguments: 'gen_ai.tool.call.arguments',
  toolCallResult: 'gen_ai.tool.call.result',
  inputMessages: 'gen_ai.input.messages',
  outputMessages: 'gen_ai.output.messages',
} as const;

export const ENGRAM = {
  organizationId: 'engram.organization.id',
  projectId: 'engram.project.id',
  agentId: 'engram.agent.id',
  runId: 'engram.run.id',
  stepId: 'engram.step.id',
  stepIndex: 'engram.step.index',
  templateId: 'engram.template.id',
  templateFamily: 'engram.template.family',
  /** Set on an activity's span when Temporal ran it again (a worker died or the call failed before). */
  attempt: 'engram.attempt',
  retried: 'engram.retried',
  memoryEdit: 'engram.memory.edit',
  stopReason: 'engram.run.stop_reason',
  stepCount: 'engram.run.step_count',
} as const;

/** The ids every span of a run carries, so any one of them places the trace in its organization. */
export type RunSpanIds = {
  organizationId: string;
  projectId?: string | null;
  agentId: string;
  runId: string;
  stepId?: string;
  templateId?: string | null;
  templateFamily?: string | null;
};

export function runSpanAttributes(ids: RunSpanIds): Record<string, string> {
  const attributes: Record<string, string> = {
    [ENGRAM.organizationId]: ids.organizationId,
    [ENGRAM.agentId]: ids.agentId,
    [GEN_AI.agentId]: ids.agentId,
    [ENGRAM.runId]: ids.runId,
  };
  if (ids.projectId) attributes[ENGRAM.projectId] = ids.projectId;
  if (ids.stepId) attributes[ENGRAM.stepId] = ids.stepId;
  if (ids.templateId) attributes[ENGRAM.templateId] = ids.templateId;
  if (ids.templateFamily) attributes[ENGRAM.templateFamily] = ids.templateFamily;
  return attributes;
}
