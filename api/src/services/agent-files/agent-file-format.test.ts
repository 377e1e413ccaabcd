import { describe, expect, it } from 'vitest';
import { UnprocessableError, type UnprocessableIssue } from '../../errors.js';
import { parseAgentFile, type AgentFile } from './agent-file-format.js';

const llm_config = { model: 'gpt-4o-mini', model_endpoint_type: 'openai', context_window: 128_000 };

type Json = Record<string, unknown>;

/** A current-format file of one agent, with `agent` merged into the agent entry and `extra` into the file. */
function current(agent: Json = {}, extra: Json = {}): Json {
  return { agents: [{ id: 'agent-0', name: 'probe', llm_config, block_ids: [], tool_ids: [], ...agent }], blocks: [], tools: [], ...extra };
}

/** A legacy single-agent file, as Letta's first exporter wrote it. */
function legacy(fields: Json = {}): Json {
  return { name: 'old-probe', agent_type: 'memgpt_agent', llm_config, core_memory: [], tools: [], messages: [], ...fields };
}

const parse = (document: unknown) => parseAgentFile(Buffer.from(typeof document === 'string' ? document : JSON.stringify(document)));

describe('parseAgentFile: what Letta wrote is read as Letta meant it', () => {
  const cases: Array<{ what: string; file: unknown; expect: (file: AgentFile) => void }> = [
    {
      what: 'a JSON string holding the file (an older exporter double-encoded it)',
      file: JSON.stringify(JSON.stringify(current({ name: 'wrapped' }))),
      expect: (file) => expect(file.agents[0]!.name).toBe('wrapped'),
    },
    {
      what: 'null for absent lists and flags',
      file: current(
        { tags: null, tool_rules: null, messages: null, timezone: null, message_buffer_autoclear: null, block_ids: ['block-0'], tool_ids: ['tool-0'] },
        {
          blocks: [{ id: 'block-0', label: 'persona', value: 'v', tags: null, metadata: null, read_only: null, limit: null }],
          tools: [{ id: 'tool-0', name: 'send_message', tool_type: 'letta_core', tags: null, enable_parallel_execution: null, return_char_limit: null }],
          groups: null,
          files: null,
          sources: null,
          mcp_servers: null,
        },
      ),
      expect: (file) => {
        expect(file.agents[0]).toMatchObject({ tags: [], tool_rules: [], messages: [], timezone: 'UTC', message_buffer_autoclear: false });
        expect(file.blocks[0]).toMatchObject({ tags: [], metadata: {}, read_only: false, limit: expect.any(Number) });
        expect(file.tools[0]).toMatchObject({ tags: [], enable_parallel_execution: false, return_char_limit: expect.any(Number) });
        expect(file).toMatchObject({ groups: [], files: [], sources: [], mcp_servers: [] });
      },
    },
    {
      what: 'environment variables as an object, and secrets winning over them',
      file: current({ tool_exec_environment_variables: { API_KEY: 'from-file', REGION: null }, secrets: [{ key: 'API_KEY', value: 'from-secrets' }] }),
      expect: (file) =>
        expect(file.agents[0]!.tool_exec_environment_variables).toEqual([
          { key: 'API_KEY', value: 'from-secrets', description: null },
          { key: 'REGION', value: '', description: null },
        ]),
    },
    {
      what: 'environment variables as a list of entries',
      file: current({ tool_exec_environment_variables: [{ key: 'TOKEN', value: 't', description: 'The token', created_at: '2025-03-01T00:00:00' }] }),
      expect: (file) => expect(file.agents[0]!.tool_exec_environment_variables).toEqual([{ key: 'TOKEN', value: 't', description: 'The token' }]),
    },
    {
      what: 'naive timestamps, read as UTC',
      file: current({ messages: [{ role: 'user', content: 'hi', created_at: '2025-04-01T03:47:27.720714' }] }),
      expect: (file) => expect(file.agents[0]!.messages[0]!.created_at).toBe('2025-04-01T03:47:27.720Z'),
    },
    {
      what: '`metadata_` for `metadata`',
      file: current({ tool_ids: ['tool-0'] }, { tools: [{ id: 'tool-0', name: 'send_message', tool_type: 'letta_core', metadata_: { origin: 'letta' } }] }),
      expect: (file) => expect(file.tools[0]!.metadata).toEqual({ origin: 'letta' }),
    },
    {
      what: 'the context window as message ids, without the compiled system prompt',
      file: current({
        messages: [
          { id: 'message-0', role: 'system', content: [{ type: 'text', text: 'compiled' }] },
          { id: 'message-1', role: 'user', content: [{ type: 'text', text: 'old, summarized away' }] },
          { id: 'message-2', role: 'user', content: [{ type: 'text', text: 'recent' }] },
        ],
        in_context_message_ids: ['message-0', 'message-2'],
      }),
      expect: (file) => {
        expect(file.agents[0]!.messages.map((message) => message.id)).toEqual(['message-1', 'message-2']);
        expect(file.agents[0]!.in_context_message_indices).toEqual([1]);
      },
    },
    {
      what: "a legacy agent: core_memory, naive dates, indices, and tool returns without their call's id",
      file: legacy({
        core_memory: [{ label: 'human', value: 'Chad', limit: 5000, metadata_: {}, created_at: '2025-04-01T03:47:27' }],
        tools: [{ name: 'send_message', tool_type: 'letta_core', metadata_: null, created_at: '2025-04-01T03:47:27' }],
        messages: [
          { role: 'system', content: [{ type: 'text', text: 'compiled' }], created_at: '2025-04-01T03:47:27', tool_calls: [], tool_returns: [] },
          { role: 'assistant', content: [], tool_calls: [{ id: 'call-1', type: 'function', function: { name: 'send_message', arguments: '{}' } }], tool_returns: [] },
          {
            role: 'tool',
            content: [{ type: 'text', text: '{"status": "OK"}' }],
            tool_call_id: 'call-1',
            tool_calls: [],
            tool_returns: [{ status: 'success', stdout: [], stderr: [] }],
          },
        ],
        in_context_message_indices: [0, 1, 2],
      }),
      expect: (file) => {
        expect(file.blocks).toMatchObject([{ id: 'block-0', label: 'human', value: 'Chad', limit: 5000 }]);
        expect(file.agents[0]).toMatchObject({ block_ids: ['block-0'], tool_ids: ['tool-0'], in_context_message_indices: [0, 1] });
        expect(file.agents[0]!.messages[1]!.tool_returns).toEqual([
          { tool_call_id: 'call-1', status: 'success', func_response: '{"status": "OK"}', stdout: [], stderr: [] },
        ]);
      },
    },
    {
      what: 'an approval request and its answer, in order, with their tool calls and returns',
      file: current({
        messages: [
          { id: 'message-0', role: 'user', content: 'delete the draft' },
          { id: 'message-1', role: 'assistant', content: [], tool_calls: [{ id: 'call-9', type: 'function', function: { name: 'delete_draft', arguments: '{}' } }] },
          {
            id: 'message-2',
            role: 'approval',
            content: [],
            approve: false,
            approval_request_id: 'message-1',
            denial_reason: 'Keep it',
            approvals: [{ type: 'approval', tool_call_id: 'call-9', approve: false, reason: 'Keep it' }],
          },
          { id: 'message-3', role: 'tool', content: [], tool_call_id: 'call-9', tool_returns: [{ tool_call_id: 'call-9', status: 'error', func_response: 'denied' }] },
        ],
        in_context_message_ids: ['message-0', 'message-1', 'message-2', 'message-3'],
      }),
      expect: (file) => {
        const [, request, answer, result] = file.agents[0]!.messages;
        expect(file.agents[0]!.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'approval', 'tool']);
        expect(request!.tool_calls).toEqual([{ id: 'call-9', type: 'function', function: { name: 'delete_draft', arguments: '{}' } }]);
        expect(answer).toMatchObject({ approve: false, denial_reason: 'Keep it', approvals: [{ type: 'approval', tool_call_id: 'call-9', approve: false }] });
        expect(result!.tool_returns).toEqual([{ tool_call_id: 'call-9', status: 'error', func_response: 'denied' }]);
        expect(file.agents[0]!.in_context_message_indices).toEqual([0, 1, 2, 3]);
      },
    },
    {
      what: "a legacy agent's identities, all its own",
      file: legacy({ identities: [{ identifier_key: 'user-1', name: 'Chad', identity_type: 'user', properties: null, created_at: '2025-04-01T03:47:27' }] }),
      expect: (file) => {
        expect(file.identities).toEqual([{ id: 'identity-0', identifier_key: 'user-1', name: 'Chad', identity_type: 'user', properties: [] }]);
        expect(file.agents[0]!.identity_ids).toEqual(['identity-0']);
      },
    },
    {
      what: 'a legacy agent marking its context window on each message',
      file: legacy({
        messages: [
          { role: 'system', content: [{ type: 'text', text: 'compiled' }], in_context: true },
          { role: 'user', content: [{ type: 'text', text: 'forgotten' }], in_context: false },
          { role: 'user', content: [{ type: 'text', text: 'remembered' }], in_context: true },
        ],
      }),
      expect: (file) => expect(file.agents[0]!.in_context_message_indices).toEqual([1]),
    },
    {
      what: "Engram's first legacy form: blocks under memory.blocks",
      file: { name: 'first', llm_config, memory: { blocks: [{ label: 'persona', value: 'p' }] } },
      expect: (file) => expect(file.blocks.map((block) => block.label)).toEqual(['persona']),
    },
    {
      what: "a block value over its limit (Letta never enforced it on its agents' writes): the limit is raised, with a warning",
      file: current({ block_ids: ['block-0'] }, { blocks: [{ id: 'block-0', label: 'notes', value: 'x'.repeat(12), limit: 10 }] }),
      expect: (file) => {
        expect(file.blocks[0]!.limit).toBe(12);
        expect(file.warnings).toEqual([{ loc: ['blocks', 0, 'limit'], msg: expect.stringContaining('its limit was raised to 12') }]);
      },
    },
    {
      what: 'a child rule written without its children (an early exporter lost them): left out, with a warning',
      file: legacy({ tool_rules: [{ type: 'constrain_child_tools', tool_name: 'plan' }, { type: 'exit_loop', tool_name: 'send_message' }] }),
      expect: (file) => {
        expect(file.agents[0]!.tool_rules).toEqual([{ type: 'exit_loop', tool_name: 'send_message' }]);
        expect(file.warnings).toEqual([{ loc: ['tool_rules', 0], msg: expect.stringContaining('names no children') }]);
      },
    },
    {
      what: 'skills, which this server has not: left out, with a warning',
      file: current({}, { skills: [{ name: 'imessage', files: { 'SKILL.md': '# iMessage' } }] }),
      expect: (file) => expect(file.warnings).toEqual([{ loc: ['skills'], msg: expect.stringContaining('skills (imessage) were left out') }]),
    },
    {
      what: 'groups, sources, files and MCP servers with their links',
      file: current(
        { source_ids: ['source-0'] },
        {
          agents: [
            { id: 'agent-0', name: 'main', llm_config, source_ids: ['source-0'] },
            { id: 'agent-1', name: 'main-sleeptime', agent_type: 'sleeptime_agent', llm_config },
          ],
          groups: [{ id: 'group-0', agent_ids: ['agent-1'], manager_config: { manager_type: 'sleeptime', manager_agent_id: 'agent-0', sleeptime_agent_frequency: 5 } }],
          sources: [{ id: 'source-0', name: 'docs', embedding_config: null }],
          files: [{ id: 'file-0', source_id: 'source-0', file_name: 'docs/a.md', content: '# A' }],
          mcp_servers: [{ id: 'mcp_server-0', server_name: 'notion', server_type: 'streamable_http', server_url: 'https://mcp.example/mcp' }],
        },
      ),
      expect: (file) => {
        expect(file.groups[0]).toMatchObject({ agent_ids: ['agent-1'], manager_config: { manager_type: 'sleeptime', manager_agent_id: 'agent-0' } });
        expect(file.files[0]).toMatchObject({ source_id: 'source-0', content: '# A' });
        expect(file.mcp_servers[0]).toMatchObject({ server_name: 'notion' });
      },
    },
  ];

  it.each(cases)('$what', ({ file, expect: check }) => check(parse(file)));
});

describe('parseAgentFile: broken data is refused with the path of every problem', () => {
  const cases: Array<{ what: string; file: unknown; loc: Array<string | number>; msg: RegExp }> = [
    { what: 'malformed JSON', file: '{"agents": [', loc: [], msg: /not valid JSON/ },
    { what: 'a JSON string holding something else', file: JSON.stringify('hello'), loc: [], msg: /Not an agent file/ },
    { what: 'neither agents nor a legacy agent', file: { hello: 'world' }, loc: [], msg: /Not an agent file/ },
    { what: 'a field of the wrong type', file: current({ tags: 'books' }), loc: ['agents', 0, 'tags'], msg: /expected array/ },
    { what: 'an agent without a model', file: current({ llm_config: undefined }), loc: ['agents', 0, 'llm_config'], msg: /expected object/ },
    { what: 'a dangling block reference', file: current({ block_ids: ['block-3'] }), loc: ['agents', 0, 'block_ids', 0], msg: /No block has the id 'block-3'/ },
    {
      what: 'a context window naming an unknown message',
      file: current({ messages: [{ id: 'message-0', role: 'user', content: 'hi' }], in_context_message_ids: ['message-4'] }),
      loc: ['agents', 0, 'in_context_message_ids', 0],
      msg: /no message with the id 'message-4'/,
    },
    { what: 'an unknown tool rule', file: current({ tool_rules: [{ type: 'sometimes', tool_name: 'x' }] }), loc: ['agents', 0, 'tool_rules', 0, 'type'], msg: /Invalid discriminator value/ },
    {
      what: 'an environment variable name a shell cannot hold',
      file: current({ tool_exec_environment_variables: { 'NOT A NAME': 'v' } }),
      loc: ['agents', 0, 'tool_exec_environment_variables', 0, 'key'],
      msg: /environment variable name/,
    },
    { what: 'a timestamp that is no date', file: current({ messages: [{ role: 'user', content: 'hi', created_at: 'yesterday' }] }), loc: ['agents', 0, 'messages', 0, 'created_at'], msg: /Invalid/ },
    {
      what: 'a tool return that answers no call',
      file: current({ messages: [{ role: 'tool', content: 'ok', tool_returns: [{ status: 'success' }] }] }),
      loc: ['agents', 0, 'messages', 0, 'tool_returns', 0, 'tool_call_id'],
      msg: /needs the tool_call_id/,
    },
    { what: 'a legacy block without a label, at its legacy path', file: legacy({ core_memory: [{ value: 'v' }] }), loc: ['core_memory', 0, 'label'], msg: /expected string/ },
    {
      what: 'a group of an agent the file lacks',
      file: current({}, { groups: [{ id: 'group-0', agent_ids: ['agent-9'], manager_config: { manager_type: 'round_robin' } }] }),
      loc: ['groups', 0, 'agent_ids', 0],
      msg: /No agent has the id 'agent-9'/,
    },
    {
      what: 'a file of a source the file lacks',
      file: current({}, { files: [{ id: 'file-0', source_id: 'source-2', file_name: 'a.md' }] }),
      loc: ['files', 0, 'source_id'],
      msg: /No source has the id 'source-2'/,
    },
    {
      what: 'an identity the file lacks',
      file: current({ identity_ids: ['identity-3'] }),
      loc: ['agents', 0, 'identity_ids', 0],
      msg: /No identity has the id 'identity-3'/,
    },
    { what: 'a custom tool without its source', file: current({ tool_ids: ['tool-0'] }, { tools: [{ id: 'tool-0', name: 'mine' }] }), loc: ['tools', 0, 'source_code'], msg: /needs its source_code/ },
  ];

  /** The problems the refusal lists; a file that parses fails the test. */
  function problemsOf(file: unknown): UnprocessableIssue[] {
    try {
      parse(file);
    } catch (error) {
      if (error instanceof UnprocessableError) return error.issues;
      throw error;
    }
    throw new Error('The file was accepted');
  }

  it.each(cases)('$what', ({ file, loc, msg }) => {
    const [first] = problemsOf(file);
    expect(first!.loc).toEqual(['body', 'file', ...loc]);
    expect(first!.msg).toMatch(msg);
  });

  it('lists every problem of the file, not just the first', () => {
    const broken = current({ tags: 'books', block_ids: 'persona' }, { blocks: [{ id: 'block-0', value: 'v' }] });
    expect(problemsOf(broken).map((issue) => issue.loc.slice(2).join('.'))).toEqual(
      expect.arrayContaining(['agents.0.tags', 'agents.0.block_ids', 'blocks.0.label']),
    );
  });
});
