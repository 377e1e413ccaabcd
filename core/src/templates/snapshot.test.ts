import { describe, expect, it } from 'vitest';
import { mergeAgentEdits, type TemplateBlock, type TemplateSnapshot } from './snapshot.js';

function block(label: string, value: string): TemplateBlock {
  return { label, value, limit: 2000, description: null, readOnly: false, preserveOnMigration: false, blockTemplateId: null };
}

function snapshot(overrides: Partial<TemplateSnapshot> = {}): TemplateSnapshot {
  return {
    agentType: 'letta_v1_agent',
    system: 'You are {{botName}}.',
    llmConfig: { model: 'gpt-4o-mini', context_window: 128000, temperature: 0.7 },
    embeddingConfig: null,
    toolIds: ['tool-a'],
    toolRules: [],
    sourceIds: [],
    tags: [],
    identityIds: [],
    memoryVariables: [{ key: 'botName', defaultValue: 'Ava', type: 'string' }],
    toolVariables: [],
    blocks: [block('persona', 'I am {{botName}}.'), block('human', 'Unknown.')],
    ...overrides,
  };
}

/** What the agent built from `snapshot()` holds: its variables filled. */
const built = () => snapshot({ system: 'You are Ava.', memoryVariables: [], blocks: [block('persona', 'I am Ava.'), block('human', 'Unknown.')] });

describe('mergeAgentEdits', () => {
  it('keeps the working state, placeholders and all, when the agent was not edited', () => {
    expect(mergeAgentEdits(snapshot(), built(), built())).toEqual(snapshot());
  });

  it('takes the fields edited on the agent, and never its blocks, which it edits itself as it talks', () => {
    const current = built();
    current.blocks = [block('persona', 'I am Ava.'), block('human', 'The user likes tea.')];
    current.llmConfig = { ...current.llmConfig, temperature: 0.2 };
    current.toolIds = ['tool-a', 'tool-b'];
    const merged = mergeAgentEdits(snapshot(), built(), current);
    expect(merged).toEqual({ ...snapshot(), llmConfig: { ...snapshot().llmConfig, temperature: 0.2 }, toolIds: ['tool-a', 'tool-b'] });
  });

  it('keeps a change of the working state made since the agent was built where the agent was not edited', () => {
    const working = snapshot({ system: 'You are {{botName}}, version two.' });
    const current = built();
    current.tags = ['beta'];
    const merged = mergeAgentEdits(working, built(), current);
    expect(merged.system).toBe('You are {{botName}}, version two.');
    expect(merged.tags).toEqual(['beta']);
  });

  it('takes a system prompt rewritten on the agent as written', () => {
    const current = built();
    current.system = 'You are Ava, terse.';
    expect(mergeAgentEdits(snapshot(), built(), current).system).toBe('You are Ava, terse.');
  });
});
