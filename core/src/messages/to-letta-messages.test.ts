import { describe, expect, it } from 'vitest';
import type { StoredMessage } from '../stored-message.js';
import { deriveOtid, filterMessageTypes, toLettaMessages } from './to-letta-messages.js';

const MESSAGE_ID = 'message-4f7d3c2a-9b1e-4c5d-8a6f-0123456789ab';

function stored(overrides: Partial<StoredMessage>): StoredMessage {
  return {
    id: MESSAGE_ID,
    agentId: 'agent-1',
    runId: 'run-1',
    stepId: 'step-1',
    role: 'assistant',
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
    createdAt: new Date('2025-01-02T03:04:05.678Z'),
    ...overrides,
  };
}

const sendMessageCall = {
  id: 'call_send',
  type: 'function' as const,
  function: { name: 'send_message', arguments: JSON.stringify({ message: 'Hello there!' }) },
};
const searchCall = {
  id: 'call_search',
  type: 'function' as const,
  function: { name: 'archival_memory_search', arguments: '{"query":"cats"}' },
};

const assistantTurn = stored({
  content: [
    { type: 'reasoning', reasoning: 'The user greeted me.', is_native: true, signature: 'sig-1' },
    { type: 'text', text: 'Let me look that up.' },
  ],
  toolCalls: [sendMessageCall, searchCall],
});

describe('deriveOtid', () => {
  it('replaces the last two hex digits of the uuid with the part index', () => {
    expect(deriveOtid(MESSAGE_ID, 0)).toBe('4f7d3c2a-9b1e-4c5d-8a6f-012345678900');
    expect(deriveOtid(MESSAGE_ID, 3)).toBe('4f7d3c2a-9b1e-4c5d-8a6f-012345678903');
    expect(deriveOtid(MESSAGE_ID, 26)).toBe('4f7d3c2a-9b1e-4c5d-8a6f-01234567891a');
  });
});

describe('toLettaMessages for a letta_v1_agent', () => {
  const messages = toLettaMessages(assistantTurn, { agentType: 'letta_v1_agent' });

  it('expands an assistant turn into reasoning, assistant text and one tool call message per call', () => {
    expect(messages.map((message) => message.message_type)).toEqual([
      'reasoning_message',
      'assistant_message',
      'tool_call_message',
      'tool_call_message',
    ]);
    expect(messages[0]).toMatchObject({ reasoning: 'The user greeted me.', source: 'reasoner_model', signature: 'sig-1' });
    expect(messages[1]).toMatchObject({ content: 'Let me look that up.' });
    const wireSend = { name: 'send_message', arguments: sendMessageCall.function.arguments, tool_call_id: 'call_send' };
    expect(messages[2]).toMatchObject({ tool_call: wireSend, tool_calls: [wireSend] });
    expect(messages[3]).toMatchObject({
      tool_call: { name: 'archival_memory_search', arguments: '{"query":"cats"}', tool_call_id: 'call_search' },
    });
  });

  it('gives every part the stored id and common fields, and its own index-derived otid', () => {
    for (const [index, message] of messages.entries()) {
      expect(message).toMatchObject({
        id: MESSAGE_ID,
        date: '2025-01-02T03:04:05+00:00',
        otid: deriveOtid(MESSAGE_ID, index),
        step_id: 'step-1',
        run_id: 'run-1',
        is_err: null,
      });
      expect(message.otid?.at(-1)).toBe(String(index));
    }
  });

  it('keeps text as assistant_message even when use_assistant_message is off', () => {
    const [, text] = toLettaMessages(assistantTurn, { agentType: 'letta_v1_agent', useAssistantMessage: false });
    expect(text?.message_type).toBe('assistant_message');
  });

  it('shows the return of send_message like any other tool return', () => {
    const toolMessage = stored({
      role: 'tool',
      name: 'send_message',
      toolReturns: [{ tool_call_id: 'call_send', status: 'success', func_response: 'None' }],
    });
    expect(toLettaMessages(toolMessage, { agentType: 'letta_v1_agent' })).toHaveLength(1);
  });
});

describe('toLettaMessages for a memgpt_v2_agent', () => {
  it('turns text into inner monologue and a send_message call into the assistant message', () => {
    const messages = toLettaMessages(assistantTurn, { agentType: 'memgpt_v2_agent' });
    expect(messages.map((message) => message.message_type)).toEqual([
      'reasoning_message',
      'reasoning_message',
      'assistant_message',
      'tool_call_message',
    ]);
    expect(messages[1]).toMatchObject({ reasoning: 'Let me look that up.', source: 'non_reasoner_model' });
    expect(messages[2]).toMatchObject({ content: 'Hello there!', otid: deriveOtid(MESSAGE_ID, 2) });
  });

  it('keeps send_message as a tool call when use_assistant_message is off', () => {
    const messages = toLettaMessages(assistantTurn, { agentType: 'memgpt_v2_agent', useAssistantMessage: false });
    expect(messages.map((message) => message.message_type)).toEqual([
      'reasoning_message',
      'reasoning_message',
      'tool_call_message',
      'tool_call_message',
    ]);
  });

  it('honours a custom assistant tool name and argument', () => {
    const reply = stored({
      toolCalls: [{ id: 'call_say', type: 'function', function: { name: 'say', arguments: '{"text":"Hi!"}' } }],
    });
    const [message] = toLettaMessages(reply, {
      agentType: 'memgpt_v2_agent',
      assistantMessageToolName: 'say',
      assistantMessageToolKwarg: 'text',
    });
    expect(message).toMatchObject({ message_type: 'assistant_message', content: 'Hi!' });
  });

  it('keeps a send_message call with unreadable arguments as a tool call', () => {
    const broken = stored({
      toolCalls: [{ id: 'call_bad', type: 'function', function: { name: 'send_message', arguments: '{"message": "Hi' } }],
    });
    const [message] = toLettaMessages(broken, { agentType: 'memgpt_v2_agent' });
    expect(message?.message_type).toBe('tool_call_message');
  });

  it('hides the return of send_message but shows other returns', () => {
    const sendReturn = stored({
      role: 'tool',
      name: 'send_message',
      toolReturns: [{ tool_call_id: 'call_send', status: 'success', func_response: 'None' }],
    });
    const searchReturn = stored({
      role: 'tool',
      name: 'archival_memory_search',
      toolReturns: [{ tool_call_id: 'call_search', status: 'success', func_response: '[]' }],
    });
    expect(toLettaMessages(sendReturn, { agentType: 'memgpt_v2_agent' })).toEqual([]);
    expect(toLettaMessages(searchReturn, { agentType: 'memgpt_v2_agent' })).toHaveLength(1);
  });
});

describe('toLettaMessages for other roles', () => {
  it('emits one tool_return_message per tool return, with the deprecated first-return fields', () => {
    const toolMessage = stored({
      role: 'tool',
      name: 'run_code',
      isErr: true,
      toolReturns: [
        { tool_call_id: 'call_a', status: 'success', func_response: '42', stdout: ['computing'], stderr: [] },
        { tool_call_id: 'call_b', status: 'error', func_response: 'ZeroDivisionError' },
      ],
    });
    const messages = toLettaMessages(toolMessage, { agentType: 'letta_v1_agent' });
    expect(messages).toHaveLength(2);
    expect(messages[0]).toMatchObject({
      message_type: 'tool_return_message',
      tool_return: '42',
      status: 'success',
      tool_call_id: 'call_a',
      stdout: ['computing'],
      stderr: [],
      is_err: true,
      name: 'run_code',
      tool_returns: [{ type: 'tool', tool_return: '42', status: 'success', tool_call_id: 'call_a', stdout: ['computing'], stderr: [] }],
    });
    expect(messages[1]).toMatchObject({
      tool_return: 'ZeroDivisionError',
      status: 'error',
      tool_call_id: 'call_b',
      stdout: null,
      tool_returns: [{ type: 'tool', tool_return: 'ZeroDivisionError', status: 'error', tool_call_id: 'call_b' }],
    });
  });

  it('keeps a user message with one text part as a string and uses the client otid first', () => {
    const userMessage = stored({ role: 'user', content: [{ type: 'text', text: 'hi' }], otid: 'client-otid-1', senderId: 'identity-1' });
    expect(toLettaMessages(userMessage, { agentType: 'letta_v1_agent' })).toEqual([
      {
        id: MESSAGE_ID,
        date: '2025-01-02T03:04:05+00:00',
        name: null,
        otid: 'client-otid-1',
        sender_id: 'identity-1',
        step_id: 'step-1',
        run_id: 'run-1',
        is_err: null,
        message_type: 'user_message',
        content: 'hi',
      },
    ]);
  });

  it('keeps the parts of a multi-part user message and derives the otid when the client sent none', () => {
    const source = { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' };
    const userMessage = stored({
      role: 'user',
      content: [
        { type: 'text', text: 'What is this?' },
        { type: 'image', source },
      ],
    });
    const [message] = toLettaMessages(userMessage, { agentType: 'letta_v1_agent' });
    expect(message).toMatchObject({
      otid: deriveOtid(MESSAGE_ID, 0),
      content: [
        { type: 'text', text: 'What is this?' },
        { type: 'image', source },
      ],
    });
  });

  it('does not take a stored otid for parts of an assistant turn', () => {
    const [message] = toLettaMessages({ ...assistantTurn, otid: 'some-otid' }, { agentType: 'letta_v1_agent' });
    expect(message?.otid).toBe(deriveOtid(MESSAGE_ID, 0));
  });

  it('turns a system message into system_message', () => {
    const systemMessage = stored({ role: 'system', content: [{ type: 'text', text: 'You are Engram.' }] });
    expect(toLettaMessages(systemMessage, { agentType: 'letta_v1_agent' })).toMatchObject([
      { message_type: 'system_message', content: 'You are Engram.' },
    ]);
  });

  it('turns an approval request into its reasoning and one approval_request_message holding every call', () => {
    const request = stored({
      role: 'approval',
      content: [{ type: 'reasoning', reasoning: 'This needs a human.' }],
      toolCalls: [searchCall, sendMessageCall],
    });
    const messages = toLettaMessages(request, { agentType: 'letta_v1_agent' });
    expect(messages.map((message) => message.message_type)).toEqual(['reasoning_message', 'approval_request_message']);
    expect(messages[0]).toMatchObject({ source: 'non_reasoner_model' });
    expect(messages[1]).toMatchObject({
      otid: deriveOtid(MESSAGE_ID, 1),
      tool_call: { name: 'archival_memory_search', tool_call_id: 'call_search' },
      tool_calls: [
        { name: 'archival_memory_search', tool_call_id: 'call_search' },
        { name: 'send_message', tool_call_id: 'call_send' },
      ],
    });
  });

  it('turns an approval response into approval_response_message with the deprecated fields of the first decision', () => {
    const response = stored({
      role: 'approval',
      otid: 'client-otid-2',
      approvals: [
        { type: 'approval', tool_call_id: 'call_search', approve: false, reason: 'Not now' },
        { type: 'tool', tool_call_id: 'call_client', status: 'success', tool_return: 'done' },
      ],
    });
    expect(toLettaMessages(response, { agentType: 'letta_v1_agent' })).toMatchObject([
      {
        message_type: 'approval_response_message',
        otid: 'client-otid-2',
        approvals: [
          { type: 'approval', tool_call_id: 'call_search', approve: false, reason: 'Not now' },
          { type: 'tool', tool_call_id: 'call_client', status: 'success', tool_return: 'done' },
        ],
        approve: false,
        approval_request_id: 'call_search',
        reason: 'Not now',
      },
    ]);
  });

  it('shows redacted reasoning as hidden_reasoning_message', () => {
    const redacted = stored({ content: [{ type: 'redacted_reasoning', data: 'opaque' }] });
    expect(toLettaMessages(redacted, { agentType: 'letta_v1_agent' })).toMatchObject([
      { message_type: 'hidden_reasoning_message', state: 'redacted', hidden_reasoning: 'opaque' },
    ]);
  });
});

describe('filterMessageTypes', () => {
  const messages = toLettaMessages(assistantTurn, { agentType: 'letta_v1_agent' });

  it('keeps only the listed types, in order', () => {
    expect(filterMessageTypes(messages, ['tool_call_message', 'assistant_message']).map((message) => message.otid)).toEqual([
      deriveOtid(MESSAGE_ID, 1),
      deriveOtid(MESSAGE_ID, 2),
      deriveOtid(MESSAGE_ID, 3),
    ]);
  });

  it('keeps everything without a list or with an empty one', () => {
    expect(filterMessageTypes(messages)).toEqual(messages);
    expect(filterMessageTypes(messages, [])).toEqual(messages);
  });
});
