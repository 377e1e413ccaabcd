import { describe, it, expect } from 'vitest';
import type { MemoryBlock } from '../agent-state.js';
import {
  DEFAULT_BLOCK_DESCRIPTIONS,
  DEFAULT_BLOCK_LIMIT,
  DEFAULT_SYSTEM_PROMPTS,
  compileSystemPrompt,
  formatSystemTime,
  type CompileSystemPromptInput,
} from './compile-system.js';

const persona: MemoryBlock = {
  id: 'block-p',
  label: 'persona',
  value: 'I am Sam, a patient tutor.',
  limit: 5000,
  description: 'Who you are.',
  readOnly: true,
};
const human: MemoryBlock = { id: 'block-h', label: 'human', value: 'Name: Ada', limit: 2000, description: null, readOnly: false };

function input(overrides: Partial<CompileSystemPromptInput> = {}): CompileSystemPromptInput {
  return {
    system: 'You are helpful.\n\n{CORE_MEMORY}\n\nBe brief.',
    agentType: 'letta_v1_agent',
    blocks: [persona, human],
    toolRules: [],
    toolNames: ['conversation_search', 'memory_replace'],
    agentId: 'agent-123',
    timezone: 'UTC',
    recallMessageCount: 42,
    now: new Date('2025-01-02T15:04:05Z'),
    ...overrides,
  };
}

describe('compileSystemPrompt', () => {
  it('replaces {CORE_MEMORY} in place', () => {
    const prompt = compileSystemPrompt(input());
    expect(prompt.startsWith('You are helpful.\n\n<memory_blocks>\n')).toBe(true);
    expect(prompt.endsWith('</memory_metadata>\n\nBe brief.')).toBe(true);
    expect(prompt).not.toContain('{CORE_MEMORY}');
  });

  it('appends the memory after a blank line when the placeholder is missing', () => {
    const prompt = compileSystemPrompt(input({ system: 'You are helpful.' }));
    expect(prompt.startsWith('You are helpful.\n\n<memory_blocks>\n')).toBe(true);
    expect(prompt.endsWith('</memory_metadata>')).toBe(true);
  });

  it('mentions archival memory only when it holds passages, with its tags', () => {
    expect(compileSystemPrompt(input())).not.toContain('Archival memory');
    expect(compileSystemPrompt(input({ archivalPassageCount: 0, archivalTags: ['x'] }))).not.toContain('Archival memory');
    const prompt = compileSystemPrompt(
      input({ archivalPassageCount: 3, archivalTags: ['travel', 'work'], toolNames: ['archival_memory_search'] }),
    );
    expect(prompt).toContain('- Archival memory holds 3 memories; search them with archival_memory_search.\n- Archival memory tags: travel, work\n</memory_metadata>');
    expect(compileSystemPrompt(input({ archivalPassageCount: 1 }))).toContain('- Archival memory holds 1 memory.\n</memory_metadata>');
  });

  it('keeps $ patterns in block values literally', () => {
    const prompt = compileSystemPrompt(input({ blocks: [{ ...human, value: "costs $& and $'" }] }));
    expect(prompt).toContain("<value>\ncosts $& and $'\n</value>");
  });

  it('renders each block with its description, metadata and value', () => {
    const prompt = compileSystemPrompt(input());
    expect(prompt).toContain('The following memory blocks are currently engaged in your core memory unit:');
    expect(prompt).toContain(
      [
        '<persona>',
        '<description>',
        'Who you are.',
        '</description>',
        '<metadata>',
        '- read_only=true',
        '- chars_current=26',
        '- chars_limit=5000',
        '</metadata>',
        '<value>',
        'I am Sam, a patient tutor.',
        '</value>',
        '</persona>',
      ].join('\n'),
    );
    expect(prompt).toContain(
      ['<human>', '<metadata>', '- chars_current=9', '- chars_limit=2000', '</metadata>', '<value>', 'Name: Ada', '</value>', '</human>'].join(
        '\n',
      ),
    );
    expect(prompt.indexOf('<persona>')).toBeLessThan(prompt.indexOf('<human>'));
  });

  it('renders tool rules for attached tools, one line each', () => {
    const prompt = compileSystemPrompt(
      input({
        toolNames: ['send_message', 'memory_replace'],
        toolRules: [
          { type: 'exit_loop', tool_name: 'send_message' },
          { type: 'continue_loop', tool_name: 'memory_replace' },
          { type: 'exit_loop', tool_name: 'detached_tool' },
        ],
      }),
    );
    const section = /<tool_usage_rules>\n([\s\S]*?)\n<\/tool_usage_rules>/.exec(prompt)?.[1];
    expect(section).toBeDefined();
    const lines = section!.split('\n').filter((line) => line.startsWith('- '));
    expect(lines).toEqual([
      '- send_message ends your response (yields control) when called.',
      '- memory_replace does not end your response: after it runs you get another step to continue.',
    ]);
  });

  it('omits the tool rules section when there are no rules', () => {
    expect(compileSystemPrompt(input())).not.toContain('<tool_usage_rules>');
  });

  it('ends with memory metadata: agent id, time in the agent timezone and recall count', () => {
    const prompt = compileSystemPrompt(input({ timezone: 'America/New_York' }));
    const metadata = /<memory_metadata>\n([\s\S]*?)\n<\/memory_metadata>/.exec(prompt)?.[1];
    expect(metadata).toContain('- Agent ID: agent-123');
    expect(metadata).toContain('- Current system time: 2025-01-02 10:04:05 Thursday (UTC-05:00, America/New_York)');
    expect(metadata).toContain('Recall memory holds 42 previous messages of your conversations; search them with conversation_search.');
    expect(prompt.indexOf('</memory_blocks>')).toBeLessThan(prompt.indexOf('<memory_metadata>'));
  });

  it('orders the sections blocks, rules, metadata', () => {
    const prompt = compileSystemPrompt(input({ toolRules: [{ type: 'continue_loop', tool_name: 'memory_replace' }] }));
    const blocksAt = prompt.indexOf('<memory_blocks>');
    const rulesAt = prompt.indexOf('<tool_usage_rules>');
    const metadataAt = prompt.indexOf('<memory_metadata>');
    expect(blocksAt).toBeLessThan(rulesAt);
    expect(rulesAt).toBeLessThan(metadataAt);
  });

  it('gives react and workflow agents no memory block section', () => {
    for (const agentType of ['react_agent', 'workflow_agent'] as const) {
      const prompt = compileSystemPrompt(input({ agentType }));
      expect(prompt).not.toContain('<memory_blocks>');
      expect(prompt).not.toContain('I am Sam');
      expect(prompt).toContain('<memory_metadata>');
    }
  });
});

describe('compileSystemPrompt <directories>', () => {
  const directories = {
    maxFilesOpen: 5,
    folders: [
      {
        name: 'handbook',
        description: 'Company handbook',
        instructions: 'Cite the section you used.',
        files: [
          { name: 'handbook/leave.md', isOpen: true, visibleContent: '[Viewing file start (out of 2 lines)]\n1: # Leave\n2: 25 days a year' },
          { name: 'handbook/pay.md', isOpen: false, visibleContent: null },
        ],
      },
      { name: 'code', description: null, instructions: null, files: [{ name: 'code/"odd".ts', isOpen: false, visibleContent: null }] },
    ],
  };

  it('is left out when no folder is attached', () => {
    expect(compileSystemPrompt(input())).not.toContain('<directories>');
    expect(compileSystemPrompt(input({ directories: { maxFilesOpen: 5, folders: [] } }))).not.toContain('<directories>');
  });

  it('lists each folder with its description and instructions, open files with their window and closed files by name only', () => {
    const prompt = compileSystemPrompt(input({ directories }));
    const section = prompt.slice(prompt.indexOf('<directories>'), prompt.indexOf('</directories>') + '</directories>'.length);
    expect(section).toBe(
      [
        '<directories>',
        '<file_limits>',
        '- current_files_open=1',
        '- max_files_open=5',
        '</file_limits>',
        '<directory name="handbook">',
        '<description>',
        'Company handbook',
        '</description>',
        '<instructions>',
        'Cite the section you used.',
        '</instructions>',
        '<file status="open" name="handbook/leave.md">',
        '<value>',
        '[Viewing file start (out of 2 lines)]',
        '1: # Leave',
        '2: 25 days a year',
        '</value>',
        '</file>',
        '<file status="closed" name="handbook/pay.md"></file>',
        '</directory>',
        '<directory name="code">',
        '<file status="closed" name="code/&quot;odd&quot;.ts"></file>',
        '</directory>',
        '</directories>',
      ].join('\n'),
    );
  });

  it('sits between the tool rules and the memory metadata', () => {
    const prompt = compileSystemPrompt(input({ directories, toolRules: [{ type: 'continue_loop', tool_name: 'memory_replace' }] }));
    expect(prompt.indexOf('<tool_usage_rules>')).toBeLessThan(prompt.indexOf('<directories>'));
    expect(prompt.indexOf('</directories>')).toBeLessThan(prompt.indexOf('<memory_metadata>'));
  });
});

describe('formatSystemTime', () => {
  it('formats in the given timezone with a 24-hour clock', () => {
    expect(formatSystemTime(new Date('2025-07-01T00:30:00Z'), 'Asia/Tokyo')).toBe('2025-07-01 09:30:00 Tuesday (UTC+09:00, Asia/Tokyo)');
    expect(formatSystemTime(new Date('2025-07-01T00:30:00Z'), 'UTC')).toBe('2025-07-01 00:30:00 Tuesday (UTC+00:00, UTC)');
    expect(formatSystemTime(new Date('2025-01-01T00:00:00.900Z'), 'Asia/Kolkata')).toBe('2025-01-01 05:30:00 Wednesday (UTC+05:30, Asia/Kolkata)');
    expect(formatSystemTime(new Date('2025-01-01T04:59:59Z'), 'America/New_York')).toBe('2024-12-31 23:59:59 Tuesday (UTC-05:00, America/New_York)');
  });

  it('falls back to UTC for an unknown timezone', () => {
    expect(formatSystemTime(new Date('2025-07-01T00:30:00Z'), 'Mars/Olympus')).toBe('2025-07-01 00:30:00 Tuesday (UTC+00:00, UTC)');
  });
});

describe('defaults', () => {
  it('has a system prompt per agent type, each with the memory placeholder', () => {
    expect(Object.keys(DEFAULT_SYSTEM_PROMPTS).sort()).toEqual(
      ['letta_v1_agent', 'memgpt_agent', 'memgpt_v2_agent', 'react_agent', 'sleeptime_agent', 'workflow_agent'].sort(),
    );
    for (const prompt of Object.values(DEFAULT_SYSTEM_PROMPTS)) expect(prompt).toContain('{CORE_MEMORY}');
  });

  it('tells heartbeat agents to talk through send_message and letta_v1 agents to answer in text', () => {
    expect(DEFAULT_SYSTEM_PROMPTS.memgpt_v2_agent).toContain('send_message');
    expect(DEFAULT_SYSTEM_PROMPTS.memgpt_v2_agent).toContain('request_heartbeat');
    expect(DEFAULT_SYSTEM_PROMPTS.memgpt_agent).toContain('core_memory_append');
    expect(DEFAULT_SYSTEM_PROMPTS.letta_v1_agent).not.toContain('send_message');
    expect(DEFAULT_SYSTEM_PROMPTS.letta_v1_agent).toContain('memory_replace');
  });

  it('defines the block defaults', () => {
    expect(DEFAULT_BLOCK_LIMIT).toBe(20000);
    expect(Object.keys(DEFAULT_BLOCK_DESCRIPTIONS).sort()).toEqual(['human', 'persona']);
  });
});
