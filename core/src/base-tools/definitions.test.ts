import { describe, it, expect } from 'vitest';
import {
  AGENT_CALL_TOOL_NAMES,
  BASE_TOOLS,
  BASE_TOOL_NAMES,
  FILE_TOOL_NAMES,
  MULTI_AGENT_TOOL_NAMES,
  SUPERVISOR_TOOL_NAME,
  defaultToolNamesFor,
  defaultToolRulesFor,
  isAgentCallTool,
} from './definitions.js';

function tool(name: string) {
  const found = BASE_TOOLS.find((candidate) => candidate.name === name);
  if (!found) throw new Error(`no base tool ${name}`);
  return found;
}

describe('BASE_TOOLS', () => {
  it('defines every base tool once, with a schema named after it', () => {
    expect(BASE_TOOLS.map((definition) => definition.name)).toEqual([...BASE_TOOL_NAMES]);
    for (const definition of BASE_TOOLS) {
      expect(definition.jsonSchema.name).toBe(definition.name);
      expect(definition.jsonSchema.description).toBe(definition.description);
      expect(definition.description.length).toBeGreaterThan(40);
      for (const required of definition.jsonSchema.parameters.required ?? []) {
        expect(definition.jsonSchema.parameters.properties).toHaveProperty(required);
      }
    }
  });

  it('types core tools and memory tools apart', () => {
    expect(tool('send_message').toolType).toBe('letta_core');
    expect(tool('conversation_search').toolType).toBe('letta_core');
    expect(tool('memory_insert').toolType).toBe('letta_memory_core');
    expect(tool('core_memory_replace').toolType).toBe('letta_memory_core');
    expect(tool('archival_memory_insert').toolType).toBe('letta_core');
    expect(tool('archival_memory_search').toolType).toBe('letta_core');
  });

  it('types the sleep-time tools and the multi-agent tools as the reference does', () => {
    expect(tool('memory_rethink').toolType).toBe('letta_sleeptime_core');
    expect(tool('memory_finish_edits').toolType).toBe('letta_sleeptime_core');
    expect(MULTI_AGENT_TOOL_NAMES.map((name) => tool(name).toolType)).toEqual([
      'letta_multi_agent_core',
      'letta_multi_agent_core',
      'letta_multi_agent_core',
    ]);
    expect(tool(SUPERVISOR_TOOL_NAME).toolType).toBe('letta_multi_agent_core');
    expect(AGENT_CALL_TOOL_NAMES.every(isAgentCallTool)).toBe(true);
    expect(isAgentCallTool('send_message')).toBe(false);
    expect(tool('send_message_to_agent_and_wait_for_reply').jsonSchema.parameters.required).toEqual(['message', 'other_agent_id']);
    expect(tool('send_message_to_agents_matching_tags').jsonSchema.parameters.required).toEqual(['message', 'match_all', 'match_some']);
  });

  it('leaves the archival tools out of every default tool set, as deprecated defaults', () => {
    for (const agentType of ['letta_v1_agent', 'memgpt_v2_agent', 'memgpt_agent', 'react_agent', 'workflow_agent', 'sleeptime_agent'] as const) {
      expect(defaultToolNamesFor(agentType).filter((name) => name.startsWith('archival_'))).toEqual([]);
    }
    expect(tool('archival_memory_search').jsonSchema.parameters.required).toEqual(['query']);
  });

  it('types the file tools apart and gives them to no agent type by default', () => {
    expect(FILE_TOOL_NAMES.map((name) => tool(name).toolType)).toEqual(['letta_files_core', 'letta_files_core', 'letta_files_core']);
    for (const agentType of ['letta_v1_agent', 'memgpt_v2_agent', 'memgpt_agent', 'react_agent', 'workflow_agent', 'sleeptime_agent'] as const) {
      expect(defaultToolNamesFor(agentType).filter((name) => (FILE_TOOL_NAMES as readonly string[]).includes(name))).toEqual([]);
    }
    expect(tool('open_files').jsonSchema.parameters.required).toEqual(['file_requests']);
    expect(tool('open_files').jsonSchema.parameters.properties.file_requests).toMatchObject({
      type: 'array',
      items: { type: 'object', required: ['file_name'] },
    });
    expect(tool('grep_files').jsonSchema.parameters.required).toEqual(['pattern']);
    expect(tool('grep_files').jsonSchema.parameters.properties.context_lines).toMatchObject({ type: 'integer', default: 1 });
    expect(tool('semantic_search_files').jsonSchema.parameters.properties.limit).toMatchObject({ type: 'integer', default: 5 });
  });

  it("declares Letta's built-in tools and its omni memory tools with Letta's names and arguments", () => {
    expect(['web_search', 'fetch_webpage', 'run_code'].map((name) => tool(name).toolType)).toEqual(['letta_builtin', 'letta_builtin', 'letta_builtin']);
    expect(tool('memory').toolType).toBe('letta_memory_core');
    expect(tool('memory').jsonSchema.parameters.properties.command).toMatchObject({ enum: ['view', 'create', 'str_replace', 'insert', 'delete', 'rename'] });
    expect(tool('memory_apply_patch').jsonSchema.parameters.required).toEqual(['label', 'patch']);
    expect(tool('fetch_webpage').jsonSchema.parameters.required).toEqual(['url']);
    expect(tool('run_code').jsonSchema.parameters.properties.language).toMatchObject({ enum: ['python', 'js', 'ts'] });
    for (const agentType of ['letta_v1_agent', 'memgpt_v2_agent', 'memgpt_agent', 'react_agent', 'workflow_agent', 'sleeptime_agent'] as const) {
      expect(defaultToolNamesFor(agentType).filter((name) => ['memory', 'memory_apply_patch', 'web_search', 'fetch_webpage', 'run_code'].includes(name))).toEqual([]);
    }
  });

  it('declares the documented arguments', () => {
    expect(tool('send_message').jsonSchema.parameters.required).toEqual(['message']);
    const search = tool('conversation_search').jsonSchema.parameters;
    expect(Object.keys(search.properties)).toEqual(['query', 'roles', 'limit', 'start_date', 'end_date']);
    expect(search.required).toEqual([]);
    expect(search.properties.roles).toMatchObject({ type: 'array', items: { enum: ['assistant', 'user', 'tool'] } });
    expect(search.properties.limit).toMatchObject({ type: 'integer', default: 5 });
    const insert = tool('memory_insert').jsonSchema.parameters;
    expect(insert.required).toEqual(['label', 'new_string']);
    expect(insert.properties.insert_line).toMatchObject({ type: 'integer', default: -1 });
    expect(tool('memory_replace').jsonSchema.parameters.required).toEqual(['label', 'old_string', 'new_string']);
    expect(tool('memory_rethink').jsonSchema.parameters.required).toEqual(['label', 'new_memory']);
    expect(tool('core_memory_append').jsonSchema.parameters.required).toEqual(['label', 'content']);
    expect(tool('core_memory_replace').jsonSchema.parameters.required).toEqual(['label', 'old_content', 'new_content']);
  });
});

describe('defaultToolNamesFor', () => {
  it('follows the default tool table', () => {
    expect(defaultToolNamesFor('letta_v1_agent')).toEqual(['conversation_search', 'memory_replace', 'memory_insert']);
    expect(defaultToolNamesFor('memgpt_v2_agent')).toEqual(['send_message', 'conversation_search', 'memory_replace', 'memory_insert']);
    expect(defaultToolNamesFor('memgpt_agent')).toEqual(['send_message', 'conversation_search', 'core_memory_append', 'core_memory_replace']);
    expect(defaultToolNamesFor('react_agent')).toEqual([]);
    expect(defaultToolNamesFor('workflow_agent')).toEqual([]);
    expect(defaultToolNamesFor('sleeptime_agent')).toEqual(['memory_replace', 'memory_insert', 'memory_rethink', 'memory_finish_edits']);
  });

  it('returns a fresh array each time', () => {
    defaultToolNamesFor('letta_v1_agent').push('web_search');
    expect(defaultToolNamesFor('letta_v1_agent')).not.toContain('web_search');
  });
});

describe('defaultToolRulesFor', () => {
  it('gives letta_v1 agents no rules', () => {
    expect(defaultToolRulesFor('letta_v1_agent', defaultToolNamesFor('letta_v1_agent'))).toEqual([]);
  });

  it('ends the loop on send_message and continues it on the other base tools, ignoring custom tools', () => {
    expect(defaultToolRulesFor('memgpt_v2_agent', [...defaultToolNamesFor('memgpt_v2_agent'), 'my_custom_tool'])).toEqual([
      { type: 'exit_loop', tool_name: 'send_message' },
      { type: 'continue_loop', tool_name: 'conversation_search' },
      { type: 'continue_loop', tool_name: 'memory_replace' },
      { type: 'continue_loop', tool_name: 'memory_insert' },
    ]);
  });

  it('continues the loop after sleeptime memory tools and ends it on memory_finish_edits', () => {
    expect(defaultToolRulesFor('sleeptime_agent', defaultToolNamesFor('sleeptime_agent')).map((rule) => rule.type)).toEqual([
      'continue_loop',
      'continue_loop',
      'continue_loop',
      'exit_loop',
    ]);
  });
});
