import { describe, expect, it } from 'vitest';
import type { AgentAccessScope } from '@engram/db';
import { agentAccessScopeFor, assertDelegationAllows } from './agent-access-scopes.js';

describe('agentAccessScopeFor', () => {
  it('maps the agent routes onto the four agent access scopes', () => {
    const cases: Array<[string, string, AgentAccessScope]> = [
      ['GET', '/v1/agents/', 'read_agent'],
      ['GET', '/v1/agents/:agent_id', 'read_agent'],
      ['HEAD', '/v1/agents/:agent_id/core-memory', 'read_agent'],
      ['POST', '/v1/agents/search', 'read_agent'],
      ['POST', '/v1/agents/', 'write_agent'],
      ['PATCH', '/v1/agents/:agent_id', 'write_agent'],
      ['DELETE', '/v1/agents/:agent_id', 'write_agent'],
      ['PATCH', '/v1/agents/:agent_id/tools/attach/:tool_id', 'write_agent'],
      ['GET', '/v1/agents/:agent_id/messages', 'read_messages'],
      ['POST', '/v1/agents/messages/search', 'read_messages'],
      ['POST', '/v1/agents/:agent_id/messages', 'write_messages'],
      ['POST', '/v1/agents/:agent_id/messages/stream', 'write_messages'],
      ['PATCH', '/v1/agents/:agent_id/messages/:message_id', 'write_messages'],
      ['PATCH', '/v1/agents/:agent_id/reset-messages', 'write_messages'],
      ['GET', '/v1/conversations/', 'read_messages'],
      ['GET', '/v1/conversations/:conversation_id/messages', 'read_messages'],
      ['POST', '/v1/conversations/', 'write_messages'],
      ['POST', '/v1/conversations/:conversation_id/messages', 'write_messages'],
      ['PATCH', '/v1/conversations/:conversation_id', 'write_messages'],
      ['DELETE', '/v1/conversations/:conversation_id', 'write_messages'],
    ];
    for (const [method, url, scope] of cases) expect(agentAccessScopeFor(method, url), `${method} ${url}`).toBe(scope);
  });

  it('gives no scope to anything outside /v1/agents and /v1/conversations', () => {
    expect(agentAccessScopeFor('GET', '/v1/tools/')).toBeNull();
    expect(agentAccessScopeFor('GET', '/v1/agentsx')).toBeNull();
    expect(agentAccessScopeFor('POST', '/v1/client-side-access-tokens')).toBeNull();
  });
});

describe('assertDelegationAllows', () => {
  const reading = new Set<AgentAccessScope>(['read_agent']);

  it('lets an OAuth token reach any agent within its scopes', () => {
    const delegation = { kind: 'scopes', scopes: reading } as const;
    expect(() => assertDelegationAllows(delegation, 'GET', '/v1/agents/:agent_id', { agent_id: 'agent-1' })).not.toThrow();
    expect(() => assertDelegationAllows(delegation, 'GET', '/v1/agents/:agent_id/messages', { agent_id: 'agent-1' })).toThrow(
      'This token was not granted the read_messages scope',
    );
    expect(() => assertDelegationAllows(delegation, 'GET', '/v1/tools/', {})).toThrow('This token only reaches agents, their messages and their conversations');
  });

  it('lets a client-side token reach only the agents its policy names', () => {
    const delegation = { kind: 'agents', agents: new Map([['agent-1', reading]]) } as const;
    expect(() => assertDelegationAllows(delegation, 'GET', '/v1/agents/:agent_id', { agent_id: 'agent-1' })).not.toThrow();
    expect(() => assertDelegationAllows(delegation, 'GET', '/v1/agents/:agent_id', { agent_id: 'agent-2' })).toThrow(
      'This token does not grant read_agent on this agent',
    );
    expect(() => assertDelegationAllows(delegation, 'GET', '/v1/agents/', {})).toThrow('This token only reaches the agents named in its policy');
  });
});
