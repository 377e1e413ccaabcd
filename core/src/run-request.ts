import type { AgentSnapshot, ClientTool } from './agent-state.js';

/** One input of a send request, as stored on the run and consumed by the workflow's activities. */
export type RunInputMessage = {
  type: 'message';
  role: 'user' | 'system' | 'assistant';
  content: string | Array<Record<string, unknown>>;
  name?: string | null;
  otid?: string | null;
  sender_id?: string | null;
};

export type ApprovalDecision =
  | { type: 'approval'; tool_call_id: string; approve: boolean; reason?: string | null }
  | {
      type: 'tool';
      tool_call_id: string;
      tool_return: string;
      status: 'success' | 'error';
      stdout?: string[] | null;
      stderr?: string[] | null;
    };

export type RunInputApproval = {
  type: 'approval';
  approvals: ApprovalDecision[];
  /** The legacy form (`approve` + `approval_request_id`) answers every pending call at once. */
  answerAll?: { approve: boolean; reason: string | null } | null;
};

export type RunInput = RunInputMessage | RunInputApproval;

export type RunRequest = {
  messages: RunInput[];
  maxSteps: number;
  streamTokens: boolean;
  clientTools: ClientTool[];
  useAssistantMessage: boolean;
  assistantMessageToolName: string;
  assistantMessageToolKwarg: string;
  includeReturnMessageTypes: string[] | null;
  /**
   * The model configuration the run calls in place of its agent's: its conversation's overrides (model, model
   * settings, context window) over the agent's, resolved when the run was accepted. Absent: the agent's.
   */
  llmConfig?: AgentSnapshot['llmConfig'];
};

export const DEFAULT_MAX_STEPS = 50;

/** A request the platform sends itself (a group member's turn, an agent call, a sleep-time run): the default options unless given. */
export function platformRunRequest(messages: RunInputMessage[], options: Partial<Omit<RunRequest, 'messages'>> = {}): RunRequest {
  return {
    maxSteps: DEFAULT_MAX_STEPS,
    streamTokens: false,
    clientTools: [],
    useAssistantMessage: true,
    assistantMessageToolName: 'send_message',
    assistantMessageToolKwarg: 'message',
    includeReturnMessageTypes: null,
    ...options,
    messages,
  };
}
