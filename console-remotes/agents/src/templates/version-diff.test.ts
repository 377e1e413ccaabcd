import { describe, expect, it } from 'vitest';
import type { AgentState } from './template-types.js';
import { diffLines, diffStates } from './version-diff.js';

function state(overrides: Partial<AgentState> = {}): AgentState {
  return {
    model: 'openai/gpt-4o-mini',
    systemPrompt: 'You are {{botName}}.',
    toolIds: ['tool-a'],
    sourceIds: [],
    tags: [],
    identityIds: [],
    agentType: 'letta_v1_agent',
    toolRules: [],
    memoryVariables: [{ key: 'botName', defaultValue: null, type: 'string' }],
    toolVariables: [],
    blocks: [{ label: 'persona', value: 'I am {{botName}}.\nI help.', limit: 2000, description: null, readOnly: false, preserveOnMigration: false, blockTemplateId: null }],
    properties: { temperature: 0.7, contextWindow: 128000, maxTokens: null },
    ...overrides,
  };
}

describe('diffLines', () => {
  it('keeps common lines and marks the removed and added ones in place', () => {
    expect(diffLines('a\nb\nc', 'a\nx\nc\nd')).toEqual([
      { kind: 'same', text: 'a' },
      { kind: 'removed', text: 'b' },
      { kind: 'added', text: 'x' },
      { kind: 'same', text: 'c' },
      { kind: 'added', text: 'd' },
    ]);
    expect(diffLines('', 'new')).toEqual([{ kind: 'added', text: 'new' }]);
  });
});

describe('diffStates', () => {
  it('is empty for equal states', () => {
    expect(diffStates(state(), state())).toEqual([]);
  });

  it('names each changed setting and block, with the lines that changed', () => {
    const after = state({
      properties: { temperature: 0.2, contextWindow: 128000, maxTokens: null },
      blocks: [
        { label: 'persona', value: 'I am {{botName}}.\nI help a lot.', limit: 2000, description: null, readOnly: false, preserveOnMigration: true, blockTemplateId: null },
        { label: 'human', value: 'Unknown.', limit: 500, description: null, readOnly: false, preserveOnMigration: false, blockTemplateId: null },
      ],
    });
    const changes = diffStates(state(), after);
    expect(changes.map((change) => change.field)).toEqual(['Temperature', 'Block persona', 'Block persona settings', 'Block human', 'Block human settings']);
    expect(changes[1]!.lines).toEqual([
      { kind: 'same', text: 'I am {{botName}}.' },
      { kind: 'removed', text: 'I help.' },
      { kind: 'added', text: 'I help a lot.' },
    ]);
    expect(changes[2]).toMatchObject({ before: 'limit 2000', after: 'limit 2000, kept on migration' });
    expect(changes[3]).toMatchObject({ before: '', after: 'Unknown.' });
  });
});
