import { describe, expect, it } from 'vitest';
import type { StoredMessage } from '../stored-message.js';
import { toPromptMessages } from './to-prompt.js';

let sequence = 0;
function stored(overrides: Partial<StoredMessage>): StoredMessage {
  sequence += 1;
  return {
    id: `message-00000000-0000-4000-8000-${String(sequence).padStart(12, '0')}`,
    agentId: 'agent-1',
    runId: null,
    stepId: null,
    role: 'user',
    content: [],
    name: null,
    otid: null,
    senderId: null,
    model: null,
    toolCalls: null,
    toolCallId: null,
    toolReturns: null,
    approvals: null,
    isErr: null,
    createdAt: new Date('2025-01-02T03:04:05Z'),
    ...overrides,
  };
}

function call(id: string, name: string, args: Record<string, unknown>) {
  return { id, type: 'function' as const, function: { name, arguments: JSON.stringify(args) } };
}

describe('toPromptMessages', () => {
  it('maps system, user, assistant and tool rows to prompt messages', () => {
    const prompt = toPromptMessages([
      stored({ role: 'system', content: [{ type: 'text', text: 'You are Engram.' }] }),
      stored({ role: 'user', content: [{ type: 'text', text: 'Find cats.' }] }),
      stored({
        role: 'assistant',
        content: [
          { type: 'reasoning', reasoning: 'Search first.' },
          { type: 'text', text: 'Searching.' },
        ],
        toolCalls: [call('call_1', 'search', { query: 'cats' }), call('call_2', 'search', { query: 'kittens' })],
      }),
      stored({
        role: 'tool',
        toolReturns: [
          { tool_call_id: 'call_1', status: 'success', func_response: '3 cats' },
          { tool_call_id: 'call_2', status: 'error', func_response: 'timeout' },
        ],
      }),
      stored({ role: 'assistant', content: [{ type: 'text', text: 'Found 3 cats.' }] }),
    ]);
    expect(prompt).toEqual([
      { role: 'system', content: 'You are Engram.' },
      { role: 'user', content: 'Find cats.' },
      {
        role: 'assistant',
        content: 'Searching.',
        reasoning: 'Search first.',
        toolCalls: [
          { id: 'call_1', name: 'search', arguments: '{"query":"cats"}' },
          { id: 'call_2', name: 'search', arguments: '{"query":"kittens"}' },
        ],
      },
      { role: 'tool', toolCallId: 'call_1', content: '3 cats' },
      { role: 'tool', toolCallId: 'call_2', content: 'timeout' },
      { role: 'assistant', content: 'Found 3 cats.', reasoning: null },
    ]);
  });

  it('sends image parts with their base64 data', () => {
    const [message] = toPromptMessages([
      stored({
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
        ],
      }),
    ]);
    expect(message).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'What is this?' },
        { type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
      ],
    });
  });

  it('presents an approval request as the assistant tool call, and the response only through its tool result', () => {
    const prompt = toPromptMessages([
      stored({ role: 'approval', toolCalls: [call('call_x', 'delete_file', { path: '/tmp/a' })] }),
      stored({ role: 'approval', approvals: [{ type: 'approval', tool_call_id: 'call_x', approve: false, reason: 'No' }] }),
      stored({
        role: 'tool',
        toolReturns: [{ tool_call_id: 'call_x', status: 'error', func_response: 'Error: request to call tool denied. Reason: No' }],
      }),
    ]);
    expect(prompt).toEqual([
      { role: 'assistant', content: null, reasoning: null, toolCalls: [{ id: 'call_x', name: 'delete_file', arguments: '{"path":"/tmp/a"}' }] },
      { role: 'tool', toolCallId: 'call_x', content: 'Error: request to call tool denied. Reason: No' },
    ]);
  });

  describe('a trailing tool call without a result', () => {
    const history = [
      stored({ role: 'user', content: [{ type: 'text', text: 'Delete it.' }] }),
      stored({
        role: 'assistant',
        content: [{ type: 'text', text: 'Deleting.' }],
        toolCalls: [call('call_done', 'search', {}), call('call_pending', 'delete_file', {})],
      }),
      stored({ role: 'tool', toolReturns: [{ tool_call_id: 'call_done', status: 'success', func_response: 'ok' }] }),
      stored({ role: 'approval', toolCalls: [call('call_waiting', 'delete_file', {})] }),
    ];

    it('is kept by default', () => {
      const prompt = toPromptMessages(history);
      expect(prompt).toHaveLength(4);
      expect(prompt.at(-1)).toMatchObject({ role: 'assistant', toolCalls: [{ id: 'call_waiting' }] });
    });

    it('is dropped on request, together with unanswered calls of earlier turns', () => {
      expect(toPromptMessages(history, { dropDanglingToolCalls: true })).toEqual([
        { role: 'user', content: 'Delete it.' },
        { role: 'assistant', content: 'Deleting.', reasoning: null, toolCalls: [{ id: 'call_done', name: 'search', arguments: '{}' }] },
        { role: 'tool', toolCallId: 'call_done', content: 'ok' },
      ]);
    });
  });
});
