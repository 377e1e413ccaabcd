import { describe, expect, it } from 'vitest';
import { toLettaMessages, type AgentType, type StoredMessage } from '@engram/core';
import { rebuildMessages } from './messages.js';
import type { SourceWireMessage } from './source-types.js';

const at = (second: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, second));

function stored(id: string, fields: Partial<StoredMessage>): StoredMessage {
  return {
    id,
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
    createdAt: at(0),
    ...fields,
  };
}

const call = { id: 'call-1', type: 'function' as const, function: { name: 'weather', arguments: '{"city":"Oslo"}' } };

/** A history with every kind of stored message a Letta server lists. */
const HISTORY: StoredMessage[] = [
  stored('message-1', { role: 'user', content: [{ type: 'text', text: 'Weather in Oslo?' }], otid: 'client-otid', senderId: 'identity-1', createdAt: at(1) }),
  stored('message-2', {
    role: 'assistant',
    content: [{ type: 'reasoning', reasoning: 'They want the weather.', is_native: true, signature: 'sig' }, { type: 'text', text: 'Checking.' }],
    toolCalls: [call],
    createdAt: at(2),
  }),
  stored('message-3', {
    role: 'tool',
    name: 'weather',
    content: [{ type: 'text', text: 'rain' }],
    toolCallId: 'call-1',
    toolReturns: [{ tool_call_id: 'call-1', status: 'success', func_response: 'rain', stdout: null, stderr: null }],
    createdAt: at(3),
  }),
  stored('message-4', { role: 'approval', toolCalls: [{ ...call, id: 'call-2' }], createdAt: at(4) }),
  stored('message-5', { role: 'approval', approvals: [{ type: 'approval', tool_call_id: 'call-2', approve: false, reason: 'not now' }], createdAt: at(5) }),
  stored('message-6', { role: 'assistant', content: [{ type: 'text', text: 'Done.' }], isErr: true, createdAt: at(6) }),
];

function roundTrip(agentType: AgentType) {
  const wire = HISTORY.flatMap((message) => toLettaMessages(message, { agentType, useAssistantMessage: false })) as unknown as SourceWireMessage[];
  return rebuildMessages(wire, { textIsAssistant: agentType === 'letta_v1_agent' });
}

describe('rebuilding stored messages from what a Letta server lists', () => {
  it.each(['letta_v1_agent', 'memgpt_agent'] as const)('gives back every stored message of a %s, part for part', (agentType) => {
    const rebuilt = roundTrip(agentType);
    expect(rebuilt.map((message) => message.sourceId)).toEqual(HISTORY.map((message) => message.id));
    for (const [index, message] of rebuilt.entries()) {
      const original = HISTORY[index]!;
      expect(message.role, original.id).toBe(original.role);
      expect(message.createdAt, original.id).toEqual(original.createdAt);
      expect(message.toolCalls, original.id).toEqual(original.toolCalls);
      expect(message.toolReturns, original.id).toEqual(original.toolReturns);
      expect(message.isErr, original.id).toBe(original.isErr);
      expect(message.content, original.id).toEqual(original.role === 'tool' || original.role === 'approval' ? message.content : original.content);
    }
    expect(rebuilt[0]).toMatchObject({ otid: 'client-otid', senderId: 'identity-1' });
    expect(rebuilt[4]).toMatchObject({ approvals: [{ type: 'approval', tool_call_id: 'call-2', approve: false, reason: 'not now' }], approvalRequestId: 'call-2', denialReason: 'not now' });
  });

  it('skips what no stored message holds, such as pings', () => {
    const wire = [{ id: 'ping-1', date: at(0).toISOString(), message_type: 'ping' }] as unknown as SourceWireMessage[];
    expect(rebuildMessages(wire, { textIsAssistant: true })).toEqual([]);
  });
});
