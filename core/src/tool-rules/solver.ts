import type { AgentType, ToolRule, ToolRuleState } from '../agent-state.js';
import type { ToolChoice } from '../model.js';

/** The tools offered to the model for one step, and whether it must call one. */
export type StepToolPlan = { allowedToolNames: string[]; toolChoice: ToolChoice };

export type AfterToolsDecision =
  | { continue: true; reminder?: string }
  | { continue: false; stopReason: 'end_turn' | 'tool_rule' | 'max_steps' };

export type AfterTextDecision = { continue: false; stopReason: 'end_turn' | 'no_tool_call' } | { continue: true; reminder: string };

/** memgpt-style agents must call a tool on every step and keep going only on request_heartbeat. */
export function usesHeartbeatLoop(agentType: AgentType): boolean {
  return agentType === 'memgpt_v2_agent' || agentType === 'memgpt_agent';
}

function rulesOfType<T extends ToolRule['type']>(rules: ToolRule[], type: T): Array<Extract<ToolRule, { type: T }>> {
  return rules.filter((rule): rule is Extract<ToolRule, { type: T }> => rule.type === type);
}

function parseNumber(text: string): number | null {
  const trimmed = text.trim();
  if (trimmed === '') return null;
  const parsed = Number(trimmed);
  return Number.isFinite(parsed) ? parsed : null;
}

function parseBoolean(text: string): boolean | null {
  const normalized = text.trim().toLowerCase();
  return normalized === 'true' ? true : normalized === 'false' ? false : null;
}

/** Tool outputs are strings, while mapping keys stand for the string, number or boolean the tool returned. */
function outputMatchesKey(output: string, key: string): boolean {
  if (output.trim() === key.trim()) return true;
  const outputNumber = parseNumber(output);
  const keyNumber = parseNumber(key);
  if (outputNumber !== null && keyNumber !== null) return outputNumber === keyNumber;
  const outputBoolean = parseBoolean(output);
  const keyBoolean = parseBoolean(key);
  return outputBoolean !== null && outputBoolean === keyBoolean;
}

function conditionalChildren(rule: Extract<ToolRule, { type: 'conditional' }>, lastToolOutput: string | null): string[] | null {
  if (lastToolOutput !== null) {
    const match = Object.entries(rule.child_output_mapping).find(([key]) => outputMatchesKey(lastToolOutput, key));
    if (match) return [match[1]];
  }
  if (rule.default_child) return [rule.default_child];
  return rule.require_output_mapping ? [] : null;
}

function exhaustedTools(rules: ToolRule[], calledTools: string[]): Set<string> {
  return new Set(
    rulesOfType(rules, 'max_count_per_step')
      .filter((rule) => calledTools.filter((name) => name === rule.tool_name).length >= rule.max_count_limit)
      .map((rule) => rule.tool_name),
  );
}

/**
 * Intersects what every active rule allows with the available tools. When the rules leave nothing, the model
 * gets every tool that is not exhausted rather than none, so a misconfigured rule cannot wedge the agent.
 */
export function planStepTools(input: { rules: ToolRule[]; availableToolNames: string[]; state: ToolRuleState }): StepToolPlan {
  const { rules, availableToolNames, state } = input;
  const lastTool = state.calledTools.at(-1) ?? null;
  const exhausted = exhaustedTools(rules, state.calledTools);
  const constraints: Array<Set<string>> = [];
  let forcing = false;
  const restrictTo = (names: string[], forcesCall: boolean): void => {
    constraints.push(new Set(names));
    forcing ||= forcesCall;
  };

  const initTools = rulesOfType(rules, 'run_first').map((rule) => rule.tool_name);
  if (initTools.length > 0 && !state.hasHistory && state.calledTools.length === 0) restrictTo(initTools, true);

  for (const rule of rulesOfType(rules, 'constrain_child_tools')) {
    if (rule.tool_name === lastTool) restrictTo(rule.children, true);
  }
  for (const rule of rulesOfType(rules, 'conditional')) {
    if (rule.tool_name !== lastTool) continue;
    const children = conditionalChildren(rule, state.lastToolOutput);
    if (children) restrictTo(children, true);
    // An output the mapping does not cover leaves the choice open, but the rule still calls for a next tool.
    else forcing = true;
  }
  for (const rule of rulesOfType(rules, 'parent_last_tool')) {
    if (rule.tool_name === lastTool) restrictTo(rule.children, true);
    else restrictTo(availableToolNames.filter((name) => !rule.children.includes(name)), false);
  }

  const callable = availableToolNames.filter((name) => !exhausted.has(name));
  const constrained = callable.filter((name) => constraints.every((allowed) => allowed.has(name)));
  const allowedToolNames = constrained.length > 0 ? constrained : callable;
  return { allowedToolNames, toolChoice: toolChoiceFor(allowedToolNames, forcing) };
}

function toolChoiceFor(allowedToolNames: string[], forcing: boolean): ToolChoice {
  if (!forcing || allowedToolNames.length === 0) return 'auto';
  const [onlyTool] = allowedToolNames;
  return allowedToolNames.length === 1 && onlyTool !== undefined ? { name: onlyTool } : 'required';
}

function uncalledRequiredTools(rules: ToolRule[], calledTools: string[]): string[] {
  const required = rulesOfType(rules, 'required_before_exit').map((rule) => rule.tool_name);
  return [...new Set(required)].filter((name) => !calledTools.includes(name));
}

function requiredToolsReminder(toolNames: string[]): string {
  return `[Automated system message, hidden from the user] Your turn is not over yet. You must call ${joinNames(toolNames)} at least once before ending your turn.`;
}

/** Whether a rule makes another step follow a call of `toolName`, whatever the model asked for. */
function forcesNextStep(rules: ToolRule[], toolName: string): boolean {
  return rules.some(
    (rule) =>
      rule.tool_name === toolName &&
      (rule.type === 'continue_loop' ||
        rule.type === 'constrain_child_tools' ||
        rule.type === 'conditional' ||
        rule.type === 'parent_last_tool'),
  );
}

/** Whether the loop takes another step after a step that called tools. */
export function decideAfterTools(input: {
  rules: ToolRule[];
  calledThisStep: string[];
  state: ToolRuleState;
  stepIndex: number;
  maxSteps: number;
  agentType: AgentType;
  heartbeatRequested: boolean;
  toolFailed: boolean;
}): AfterToolsDecision {
  const { rules, calledThisStep, state } = input;
  const terminalTool = calledThisStep.find((name) => rules.some((rule) => rule.type === 'exit_loop' && rule.tool_name === name));
  const wantsToContinue =
    terminalTool === undefined &&
    (!usesHeartbeatLoop(input.agentType) ||
      input.heartbeatRequested ||
      input.toolFailed ||
      calledThisStep.some((name) => forcesNextStep(rules, name)));
  const uncalled = uncalledRequiredTools(rules, state.calledTools);
  const continuesForRequiredTools = !wantsToContinue && uncalled.length > 0;

  if (wantsToContinue || continuesForRequiredTools) {
    if (input.stepIndex >= input.maxSteps - 1) return { continue: false, stopReason: 'max_steps' };
    return continuesForRequiredTools ? { continue: true, reminder: requiredToolsReminder(uncalled) } : { continue: true };
  }
  if (terminalTool === undefined) return { continue: false, stopReason: 'end_turn' };
  return { continue: false, stopReason: terminalTool === 'send_message' ? 'end_turn' : 'tool_rule' };
}

/**
 * After an answer without tool calls. The caller still applies max_steps to a continuation, and a reminder is a
 * system message to add before the next step.
 */
export function decideAfterText(input: { rules: ToolRule[]; state: ToolRuleState; agentType: AgentType }): AfterTextDecision {
  if (usesHeartbeatLoop(input.agentType)) return { continue: false, stopReason: 'no_tool_call' };
  const uncalled = uncalledRequiredTools(input.rules, input.state.calledTools);
  if (uncalled.length > 0) return { continue: true, reminder: requiredToolsReminder(uncalled) };
  return { continue: false, stopReason: 'end_turn' };
}

export function requiresApproval(rules: ToolRule[], tool: { name: string; defaultRequiresApproval: boolean }): boolean {
  return tool.defaultRequiresApproval || rules.some((rule) => rule.type === 'requires_approval' && rule.tool_name === tool.name);
}

function joinNames(names: string[]): string {
  if (names.length <= 1) return names.join('');
  return `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

function joinAlternatives(names: string[]): string {
  if (names.length <= 1) return names.join('');
  return `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;
}

function templateValues(rule: ToolRule): Record<string, string> {
  const values: Record<string, string> = { tool_name: rule.tool_name };
  if ('children' in rule) values.children = rule.children.join(', ');
  if (rule.type === 'max_count_per_step') values.max_count_limit = String(rule.max_count_limit);
  if (rule.type === 'conditional' && rule.default_child) values.default_child = rule.default_child;
  return values;
}

/** A custom `prompt_template` may use `{{ tool_name }}`, `{{ children }}`, `{{ max_count_limit }}` and `{{ default_child }}`. */
function renderTemplate(template: string, rule: ToolRule): string {
  const values = templateValues(rule);
  return template.replace(/\{\{\s*(\w+)\s*\}\}/g, (placeholder, key: string) => values[key] ?? placeholder);
}

function describeRule(rule: ToolRule): string {
  const tool = rule.tool_name;
  switch (rule.type) {
    case 'run_first':
      return `At the start of a new conversation, call ${tool} before any other tool.`;
    case 'constrain_child_tools':
      return `After calling ${tool}, your next tool call must be ${joinAlternatives(rule.children)}.`;
    case 'conditional': {
      const branches = Object.entries(rule.child_output_mapping).map(([output, child]) => `if it returns "${output}", call ${child}`);
      if (rule.default_child) branches.push(`otherwise call ${rule.default_child}`);
      return `After calling ${tool}, choose your next tool from its result: ${branches.join('; ')}.`;
    }
    case 'parent_last_tool':
      return `${joinAlternatives(rule.children)} may only be called right after ${tool}.`;
    case 'max_count_per_step':
      return `${tool} may be called at most ${rule.max_count_limit} time${rule.max_count_limit === 1 ? '' : 's'} per turn.`;
    case 'exit_loop':
      return `${tool} ends your response (yields control) when called.`;
    case 'continue_loop':
      return `${tool} does not end your response: after it runs you get another step to continue.`;
    case 'required_before_exit':
      return `You must call ${tool} at least once before ending your turn.`;
    case 'requires_approval':
      return `${tool} needs a person's approval: calling it pauses your turn until they approve or deny the call.`;
  }
}

/** The sentence the system prompt's tool-usage section shows for one rule. */
export function renderToolRule(rule: ToolRule): string {
  return rule.prompt_template ? renderTemplate(rule.prompt_template, rule) : describeRule(rule);
}
