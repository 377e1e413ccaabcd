import type { AgentSnapshot, ClientTool, ToolRuleState } from '../agent-state.js';
import type { ModelRequest, ToolDefinition } from '../model.js';
import type { StoredMessage } from '../stored-message.js';
import { toPromptMessages } from '../messages/to-prompt.js';
import { planStepTools, usesHeartbeatLoop } from '../tool-rules/solver.js';

export type StepRequestInput = {
  snapshot: AgentSnapshot;
  /** The agent's in-context messages, system message first. */
  inContext: StoredMessage[];
  /** The run's inputs, stored when it was accepted, until its first step puts them in context; the model reads them last. */
  pendingInputs: StoredMessage[];
  ruleState: ToolRuleState;
  clientTools: ClientTool[];
  stream: boolean;
};

const HEARTBEAT_PARAMETER = {
  type: 'boolean',
  description: 'Request an immediate follow-up step after this tool returns, to keep working before replying.',
};

/** The provider-neutral request for one step: what the model sees and which tools it may call. */
export function buildStepRequest(input: StepRequestInput): { request: ModelRequest; allowedToolNames: string[] } {
  const { snapshot } = input;
  const clientToolNames = new Set(input.clientTools.map((tool) => tool.name));
  const serverTools = snapshot.tools.filter((tool) => !clientToolNames.has(tool.name));
  const availableToolNames = [...serverTools.map((tool) => tool.name), ...clientToolNames];
  const plan = planStepTools({ rules: snapshot.toolRules, availableToolNames, state: input.ruleState });
  const allowed = new Set(plan.allowedToolNames);
  const terminal = new Set(snapshot.toolRules.filter((rule) => rule.type === 'exit_loop').map((rule) => rule.tool_name));

  const definitions: ToolDefinition[] = [
    ...serverTools.map((tool) => ({
      name: tool.name,
      description: tool.jsonSchema.description ?? tool.description ?? '',
      parameters: tool.jsonSchema.parameters,
    })),
    ...input.clientTools.map((tool) => ({
      name: tool.name,
      description: tool.description ?? '',
      parameters: (tool.parameters as ToolDefinition['parameters'] | null | undefined) ?? { type: 'object' as const, properties: {} },
    })),
  ]
    .filter((tool) => allowed.has(tool.name))
    .map((tool) =>
      usesHeartbeatLoop(snapshot.agentType) && !terminal.has(tool.name)
        ? {
            ...tool,
            parameters: {
              ...tool.parameters,
              properties: { ...tool.parameters.properties, request_heartbeat: HEARTBEAT_PARAMETER },
              required: [...(tool.parameters.required ?? []), 'request_heartbeat'],
            },
          }
        : tool,
    );

  const onlyApprovalRules = snapshot.toolRules.every((rule) => rule.type === 'requires_approval');
  const messages = toPromptMessages([...input.inContext, ...input.pendingInputs]);
  return {
    allowedToolNames: definitions.map((tool) => tool.name),
    request: {
      settings: snapshot.llmConfig,
      messages,
      tools: definitions,
      toolChoice: definitions.length === 0 ? 'auto' : plan.toolChoice,
      parallelToolCalls: Boolean(snapshot.llmConfig.parallel_tool_calls) && onlyApprovalRules && definitions.length > 0,
      stream: input.stream,
    },
  };
}
