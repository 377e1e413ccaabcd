import { describe, it, expect } from 'vitest';
import type { AgentType, ToolRule, ToolRuleState } from '../agent-state.js';
import { decideAfterText, decideAfterTools, planStepTools, renderToolRule, requiresApproval } from './solver.js';

const tools = ['search', 'fetch', 'summarize', 'send_message'];

function state(overrides: Partial<ToolRuleState> = {}): ToolRuleState {
  return { calledTools: [], lastToolOutput: null, hasHistory: true, ...overrides };
}

function plan(rules: ToolRule[], ruleState: ToolRuleState, availableToolNames = tools) {
  return planStepTools({ rules, availableToolNames, state: ruleState });
}

describe('planStepTools', () => {
  it('allows every tool with auto choice when no rule applies', () => {
    expect(plan([], state())).toEqual({ allowedToolNames: tools, toolChoice: 'auto' });
  });

  describe('run_first', () => {
    const rules: ToolRule[] = [{ type: 'run_first', tool_name: 'search' }];

    it('forces the init tool on a fresh conversation', () => {
      expect(plan(rules, state({ hasHistory: false }))).toEqual({ allowedToolNames: ['search'], toolChoice: { name: 'search' } });
    });

    it('offers several init tools with a required choice', () => {
      const twoInit: ToolRule[] = [...rules, { type: 'run_first', tool_name: 'fetch' }];
      expect(plan(twoInit, state({ hasHistory: false }))).toEqual({ allowedToolNames: ['search', 'fetch'], toolChoice: 'required' });
    });

    it('no longer applies once the agent has history or has called a tool', () => {
      expect(plan(rules, state({ hasHistory: true }))).toEqual({ allowedToolNames: tools, toolChoice: 'auto' });
      expect(plan(rules, state({ hasHistory: false, calledTools: ['search'] }))).toEqual({ allowedToolNames: tools, toolChoice: 'auto' });
    });
  });

  describe('constrain_child_tools', () => {
    const rules: ToolRule[] = [{ type: 'constrain_child_tools', tool_name: 'search', children: ['fetch', 'summarize'] }];

    it('allows only the children right after the parent tool, and forces a call', () => {
      expect(plan(rules, state({ calledTools: ['search'] }))).toEqual({ allowedToolNames: ['fetch', 'summarize'], toolChoice: 'required' });
    });

    it('names the single child', () => {
      const oneChild: ToolRule[] = [{ type: 'constrain_child_tools', tool_name: 'search', children: ['fetch'] }];
      expect(plan(oneChild, state({ calledTools: ['search'] }))).toEqual({ allowedToolNames: ['fetch'], toolChoice: { name: 'fetch' } });
    });

    it('does not apply when another tool was called last', () => {
      expect(plan(rules, state({ calledTools: ['search', 'fetch'] }))).toEqual({ allowedToolNames: tools, toolChoice: 'auto' });
    });

    it('falls back to all tools when no child is available, still forcing a call', () => {
      const missing: ToolRule[] = [{ type: 'constrain_child_tools', tool_name: 'search', children: ['not_attached'] }];
      expect(plan(missing, state({ calledTools: ['search'] }))).toEqual({ allowedToolNames: tools, toolChoice: 'required' });
    });
  });

  describe('conditional', () => {
    const rule: ToolRule = {
      type: 'conditional',
      tool_name: 'search',
      child_output_mapping: { found: 'fetch', '0': 'summarize', true: 'send_message' },
      default_child: 'summarize',
    };
    const after = (output: string) => state({ calledTools: ['search'], lastToolOutput: output });

    it('picks the child mapped to the output', () => {
      expect(plan([rule], after('found'))).toEqual({ allowedToolNames: ['fetch'], toolChoice: { name: 'fetch' } });
    });

    it('matches numbers and booleans by value', () => {
      expect(plan([rule], after('0.0')).allowedToolNames).toEqual(['summarize']);
      expect(plan([rule], after('True')).allowedToolNames).toEqual(['send_message']);
    });

    it('uses the default child when nothing matches', () => {
      expect(plan([rule], after('nothing')).allowedToolNames).toEqual(['summarize']);
    });

    it('falls back to all tools, forced, when a required mapping does not match', () => {
      const strict: ToolRule = { type: 'conditional', tool_name: 'search', child_output_mapping: { found: 'fetch' }, require_output_mapping: true };
      expect(plan([strict], after('nothing'))).toEqual({ allowedToolNames: tools, toolChoice: 'required' });
    });

    it('leaves the tools open but forces a call when an optional mapping does not match', () => {
      const loose: ToolRule = { type: 'conditional', tool_name: 'search', child_output_mapping: { found: 'fetch' } };
      expect(plan([loose], after('nothing'))).toEqual({ allowedToolNames: tools, toolChoice: 'required' });
    });
  });

  describe('parent_last_tool', () => {
    const rules: ToolRule[] = [{ type: 'parent_last_tool', tool_name: 'search', children: ['fetch'] }];

    it('hides the children unless the parent was called last', () => {
      expect(plan(rules, state())).toEqual({ allowedToolNames: ['search', 'summarize', 'send_message'], toolChoice: 'auto' });
    });

    it('forces the children right after the parent', () => {
      expect(plan(rules, state({ calledTools: ['search'] }))).toEqual({ allowedToolNames: ['fetch'], toolChoice: { name: 'fetch' } });
    });
  });

  describe('max_count_per_step', () => {
    const rules: ToolRule[] = [{ type: 'max_count_per_step', tool_name: 'search', max_count_limit: 2 }];

    it('keeps the tool below the limit', () => {
      expect(plan(rules, state({ calledTools: ['search'] })).allowedToolNames).toContain('search');
    });

    it('removes the tool once the limit is reached', () => {
      expect(plan(rules, state({ calledTools: ['search', 'fetch', 'search'] }))).toEqual({
        allowedToolNames: ['fetch', 'summarize', 'send_message'],
        toolChoice: 'auto',
      });
    });

    it('keeps exhausted tools out of the fallback', () => {
      const combined: ToolRule[] = [...rules, { type: 'constrain_child_tools', tool_name: 'fetch', children: ['search'] }];
      expect(plan(combined, state({ calledTools: ['search', 'search', 'fetch'] }))).toEqual({
        allowedToolNames: ['fetch', 'summarize', 'send_message'],
        toolChoice: 'required',
      });
    });
  });

  it('intersects the rules that apply in the same step', () => {
    const rules: ToolRule[] = [
      { type: 'constrain_child_tools', tool_name: 'search', children: ['fetch', 'summarize', 'send_message'] },
      { type: 'max_count_per_step', tool_name: 'fetch', max_count_limit: 1 },
      { type: 'parent_last_tool', tool_name: 'summarize', children: ['send_message'] },
    ];
    expect(plan(rules, state({ calledTools: ['fetch', 'search'] }))).toEqual({ allowedToolNames: ['summarize'], toolChoice: { name: 'summarize' } });
  });

  it('ignores rules that do not restrict the choice', () => {
    const rules: ToolRule[] = [
      { type: 'exit_loop', tool_name: 'send_message' },
      { type: 'continue_loop', tool_name: 'search' },
      { type: 'required_before_exit', tool_name: 'summarize' },
      { type: 'requires_approval', tool_name: 'fetch' },
    ];
    expect(plan(rules, state({ calledTools: ['search'] }))).toEqual({ allowedToolNames: tools, toolChoice: 'auto' });
  });
});

describe('decideAfterTools', () => {
  function decide(overrides: {
    rules?: ToolRule[];
    calledThisStep: string[];
    agentType: AgentType;
    heartbeatRequested?: boolean;
    toolFailed?: boolean;
    stepIndex?: number;
    calledBefore?: string[];
  }) {
    return decideAfterTools({
      rules: overrides.rules ?? [],
      calledThisStep: overrides.calledThisStep,
      state: state({ calledTools: [...(overrides.calledBefore ?? []), ...overrides.calledThisStep] }),
      stepIndex: overrides.stepIndex ?? 0,
      maxSteps: 10,
      agentType: overrides.agentType,
      heartbeatRequested: overrides.heartbeatRequested ?? false,
      toolFailed: overrides.toolFailed ?? false,
    });
  }

  describe('letta_v1 agents', () => {
    it('continue after any tool call', () => {
      expect(decide({ calledThisStep: ['search'], agentType: 'letta_v1_agent' })).toEqual({ continue: true });
      expect(decide({ calledThisStep: ['memory_replace'], agentType: 'sleeptime_agent' })).toEqual({ continue: true });
    });

    it('stop with tool_rule after a terminal tool, even among parallel calls', () => {
      const rules: ToolRule[] = [{ type: 'exit_loop', tool_name: 'fetch' }];
      expect(decide({ rules, calledThisStep: ['fetch'], agentType: 'letta_v1_agent' })).toEqual({ continue: false, stopReason: 'tool_rule' });
      expect(decide({ rules, calledThisStep: ['search', 'fetch'], agentType: 'letta_v1_agent' })).toEqual({
        continue: false,
        stopReason: 'tool_rule',
      });
    });

    it('stop with max_steps when the last allowed step would continue', () => {
      expect(decide({ calledThisStep: ['search'], agentType: 'letta_v1_agent', stepIndex: 9 })).toEqual({
        continue: false,
        stopReason: 'max_steps',
      });
      expect(decide({ calledThisStep: ['search'], agentType: 'letta_v1_agent', stepIndex: 8 })).toEqual({ continue: true });
    });

    it('keep a terminal stop as tool_rule on the last step', () => {
      const rules: ToolRule[] = [{ type: 'exit_loop', tool_name: 'fetch' }];
      expect(decide({ rules, calledThisStep: ['fetch'], agentType: 'letta_v1_agent', stepIndex: 9 })).toEqual({
        continue: false,
        stopReason: 'tool_rule',
      });
    });
  });

  describe('memgpt_v2 and memgpt agents', () => {
    const rules: ToolRule[] = [
      { type: 'exit_loop', tool_name: 'send_message' },
      { type: 'continue_loop', tool_name: 'search' },
    ];

    it('end the turn after a tool without a heartbeat', () => {
      expect(decide({ calledThisStep: ['fetch'], agentType: 'memgpt_v2_agent' })).toEqual({ continue: false, stopReason: 'end_turn' });
      expect(decide({ calledThisStep: ['fetch'], agentType: 'memgpt_agent' })).toEqual({ continue: false, stopReason: 'end_turn' });
    });

    it('continue when a heartbeat was requested', () => {
      expect(decide({ calledThisStep: ['fetch'], agentType: 'memgpt_v2_agent', heartbeatRequested: true })).toEqual({ continue: true });
    });

    it('continue when the tool failed', () => {
      expect(decide({ calledThisStep: ['fetch'], agentType: 'memgpt_v2_agent', toolFailed: true })).toEqual({ continue: true });
    });

    it('continue after a continue_loop tool', () => {
      expect(decide({ rules, calledThisStep: ['search'], agentType: 'memgpt_v2_agent' })).toEqual({ continue: true });
    });

    it('continue after a tool with child or conditional rules', () => {
      const childRules: ToolRule[] = [{ type: 'constrain_child_tools', tool_name: 'fetch', children: ['summarize'] }];
      expect(decide({ rules: childRules, calledThisStep: ['fetch'], agentType: 'memgpt_v2_agent' })).toEqual({ continue: true });
      const conditional: ToolRule[] = [{ type: 'conditional', tool_name: 'fetch', child_output_mapping: { ok: 'summarize' } }];
      expect(decide({ rules: conditional, calledThisStep: ['fetch'], agentType: 'memgpt_v2_agent' })).toEqual({ continue: true });
    });

    it('end the turn on send_message as end_turn, and on other terminal tools as tool_rule, despite a heartbeat', () => {
      expect(decide({ rules, calledThisStep: ['send_message'], agentType: 'memgpt_v2_agent', heartbeatRequested: true })).toEqual({
        continue: false,
        stopReason: 'end_turn',
      });
      const terminalFetch: ToolRule[] = [{ type: 'exit_loop', tool_name: 'fetch' }];
      expect(decide({ rules: terminalFetch, calledThisStep: ['fetch'], agentType: 'memgpt_v2_agent', heartbeatRequested: true })).toEqual({
        continue: false,
        stopReason: 'tool_rule',
      });
    });

    it('stop with max_steps when a heartbeat arrives on the last step', () => {
      expect(decide({ calledThisStep: ['fetch'], agentType: 'memgpt_v2_agent', heartbeatRequested: true, stepIndex: 9 })).toEqual({
        continue: false,
        stopReason: 'max_steps',
      });
    });
  });

  describe('required_before_exit', () => {
    const rules: ToolRule[] = [
      { type: 'exit_loop', tool_name: 'send_message' },
      { type: 'required_before_exit', tool_name: 'summarize' },
    ];

    it('keeps the loop going with a reminder until the tool is called', () => {
      const decision = decide({ rules, calledThisStep: ['send_message'], agentType: 'memgpt_v2_agent' });
      expect(decision.continue).toBe(true);
      expect(decision.continue && decision.reminder).toContain('You must call summarize at least once before ending your turn.');
      expect(decide({ rules, calledThisStep: ['fetch'], agentType: 'memgpt_v2_agent' }).continue).toBe(true);
    });

    it('lets the loop end once the tool was called earlier in the request', () => {
      expect(decide({ rules, calledThisStep: ['send_message'], calledBefore: ['summarize'], agentType: 'memgpt_v2_agent' })).toEqual({
        continue: false,
        stopReason: 'end_turn',
      });
    });

    it('overrides a terminal tool for letta_v1 agents too', () => {
      const v1Rules: ToolRule[] = [
        { type: 'exit_loop', tool_name: 'fetch' },
        { type: 'required_before_exit', tool_name: 'summarize' },
      ];
      expect(decide({ rules: v1Rules, calledThisStep: ['fetch'], agentType: 'letta_v1_agent' }).continue).toBe(true);
    });
  });
});

describe('decideAfterText', () => {
  const required: ToolRule[] = [{ type: 'required_before_exit', tool_name: 'summarize' }];

  it('ends the turn for letta_v1 agents', () => {
    expect(decideAfterText({ rules: [], state: state(), agentType: 'letta_v1_agent' })).toEqual({ continue: false, stopReason: 'end_turn' });
  });

  it('continues with a reminder while a required tool is uncalled', () => {
    const decision = decideAfterText({ rules: required, state: state({ calledTools: ['search'] }), agentType: 'letta_v1_agent' });
    expect(decision).toEqual({ continue: true, reminder: expect.stringContaining('You must call summarize at least once before ending your turn.') });
  });

  it('names every uncalled required tool', () => {
    const rules: ToolRule[] = [...required, { type: 'required_before_exit', tool_name: 'fetch' }];
    const decision = decideAfterText({ rules, state: state(), agentType: 'letta_v1_agent' });
    expect(decision.continue && decision.reminder).toContain('You must call summarize and fetch at least once');
  });

  it('ends the turn once the required tool was called', () => {
    expect(decideAfterText({ rules: required, state: state({ calledTools: ['summarize'] }), agentType: 'letta_v1_agent' })).toEqual({
      continue: false,
      stopReason: 'end_turn',
    });
  });

  it('treats text as a missing tool call for heartbeat agents', () => {
    expect(decideAfterText({ rules: [], state: state(), agentType: 'memgpt_v2_agent' })).toEqual({ continue: false, stopReason: 'no_tool_call' });
    expect(decideAfterText({ rules: required, state: state(), agentType: 'memgpt_agent' })).toEqual({ continue: false, stopReason: 'no_tool_call' });
  });
});

describe('requiresApproval', () => {
  it('follows the tool default or a requires_approval rule', () => {
    const rules: ToolRule[] = [{ type: 'requires_approval', tool_name: 'fetch' }];
    expect(requiresApproval(rules, { name: 'fetch', defaultRequiresApproval: false })).toBe(true);
    expect(requiresApproval(rules, { name: 'search', defaultRequiresApproval: false })).toBe(false);
    expect(requiresApproval([], { name: 'search', defaultRequiresApproval: true })).toBe(true);
  });
});

describe('renderToolRule', () => {
  it('renders one sentence per rule kind', () => {
    const rendered: Array<[ToolRule, string]> = [
      [{ type: 'run_first', tool_name: 'search' }, 'At the start of a new conversation, call search before any other tool.'],
      [{ type: 'constrain_child_tools', tool_name: 'search', children: ['fetch', 'summarize'] }, 'After calling search, your next tool call must be fetch or summarize.'],
      [
        { type: 'conditional', tool_name: 'check', child_output_mapping: { yes: 'fetch', no: 'search' }, default_child: 'send_message' },
        'After calling check, choose your next tool from its result: if it returns "yes", call fetch; if it returns "no", call search; otherwise call send_message.',
      ],
      [{ type: 'parent_last_tool', tool_name: 'search', children: ['fetch'] }, 'fetch may only be called right after search.'],
      [{ type: 'max_count_per_step', tool_name: 'search', max_count_limit: 3 }, 'search may be called at most 3 times per turn.'],
      [{ type: 'exit_loop', tool_name: 'send_message' }, 'send_message ends your response (yields control) when called.'],
      [{ type: 'continue_loop', tool_name: 'search' }, 'search does not end your response: after it runs you get another step to continue.'],
      [{ type: 'required_before_exit', tool_name: 'summarize' }, 'You must call summarize at least once before ending your turn.'],
      [{ type: 'requires_approval', tool_name: 'fetch' }, "fetch needs a person's approval: calling it pauses your turn until they approve or deny the call."],
    ];
    for (const [rule, sentence] of rendered) expect(renderToolRule(rule)).toBe(sentence);
  });

  it('fills a custom prompt_template', () => {
    expect(
      renderToolRule({ type: 'constrain_child_tools', tool_name: 'search', children: ['fetch', 'summarize'], prompt_template: 'After {{ tool_name }} use {{children}}; {{ unknown }}' }),
    ).toBe('After search use fetch, summarize; {{ unknown }}');
  });
});
