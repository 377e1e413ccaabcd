import { describe, it, expect } from 'vitest';
import type { MemoryBlock } from '../agent-state.js';
import {
  READ_ONLY_BLOCK_ERROR,
  coreMemoryAppend,
  coreMemoryReplace,
  memoryApplyPatch,
  memoryInsert,
  memoryReplace,
  memoryRethink,
  type MemoryEditResult,
} from './memory-edits.js';

function block(value: string, overrides: Partial<MemoryBlock> = {}): MemoryBlock {
  return { id: 'block-1', label: 'human', value, limit: 2000, description: null, readOnly: false, ...overrides };
}

function valueOf(result: MemoryEditResult): string {
  if (!result.ok) throw new Error(`expected success, got: ${result.error}`);
  return result.value;
}

function errorOf(result: MemoryEditResult): string {
  if (result.ok) throw new Error(`expected an error, got value: ${result.value}`);
  return result.error;
}

const threeLines = 'Name: Ada\nLikes: tea\nCity: London';

describe('memoryInsert', () => {
  it('inserts at the top for line 0', () => {
    expect(valueOf(memoryInsert(block(threeLines), 'Age: 36', 0))).toBe('Age: 36\nName: Ada\nLikes: tea\nCity: London');
  });

  it('appends at the end for line -1', () => {
    expect(valueOf(memoryInsert(block(threeLines), 'Age: 36', -1))).toBe('Name: Ada\nLikes: tea\nCity: London\nAge: 36');
  });

  it('inserts after the given line', () => {
    expect(valueOf(memoryInsert(block(threeLines), 'Age: 36', 1))).toBe('Name: Ada\nAge: 36\nLikes: tea\nCity: London');
    expect(valueOf(memoryInsert(block(threeLines), 'Age: 36', 3))).toBe(`${threeLines}\nAge: 36`);
  });

  it('writes an empty block without stray newlines', () => {
    expect(valueOf(memoryInsert(block(''), 'First fact', -1))).toBe('First fact');
    expect(valueOf(memoryInsert(block(''), 'First fact', 0))).toBe('First fact');
  });

  it('rejects line numbers out of range, stating the valid range', () => {
    const error = errorOf(memoryInsert(block(threeLines), 'x', 4));
    expect(error).toContain('insert_line 4 is out of range');
    expect(error).toContain('from 0 (top) to 3');
    expect(errorOf(memoryInsert(block(threeLines), 'x', -2))).toContain('out of range');
    expect(errorOf(memoryInsert(block(threeLines), 'x', 1.5))).toContain('out of range');
  });

  it('rejects text with line-number prefixes', () => {
    expect(errorOf(memoryInsert(block(threeLines), '4→ Age: 36', -1))).toContain('line-number prefixes');
  });

  it('returns a message to the model with the new value and its size', () => {
    const result = memoryInsert(block(threeLines), 'Age: 36', -1);
    expect(result.ok && result.message).toContain('now holds 41 of 2000 characters');
    expect(result.ok && result.message).toContain('City: London\nAge: 36');
  });
});

describe('memoryReplace', () => {
  it('replaces a unique occurrence', () => {
    const result = memoryReplace(block(threeLines), 'Likes: tea', 'Likes: coffee');
    expect(valueOf(result)).toBe('Name: Ada\nLikes: coffee\nCity: London');
    expect(result.ok && result.message).toContain('line 2');
  });

  it('deletes text when new_string is empty', () => {
    expect(valueOf(memoryReplace(block(threeLines), '\nLikes: tea', ''))).toBe('Name: Ada\nCity: London');
  });

  it('inserts the replacement literally, even with $ patterns', () => {
    expect(valueOf(memoryReplace(block('price: X'), 'X', "$& and $'"))).toBe("price: $& and $'");
  });

  it('fails when old_string is missing', () => {
    const result = memoryReplace(block(threeLines), 'Likes: coffee', 'x');
    expect(errorOf(result)).toContain('old_string was not found in the block "human"');
  });

  it('fails when old_string occurs more than once, naming the lines', () => {
    const error = errorOf(memoryReplace(block('likes tea\nhates rain\nlikes tea again'), 'likes tea', 'x'));
    expect(error).toContain('occurs 2 times');
    expect(error).toContain('lines 1, 3');
  });

  it('counts occurrences on the same line once per occurrence', () => {
    expect(errorOf(memoryReplace(block('a a\nb'), 'a', 'c'))).toContain('lines 1, 1');
  });

  it('rejects line-number prefixes in old_string and new_string', () => {
    expect(errorOf(memoryReplace(block(threeLines), '2→ Likes: tea', 'x'))).toContain('old_string contains line-number prefixes');
    expect(errorOf(memoryReplace(block(threeLines), 'Likes: tea', 'Likes: tea\n3→ more'))).toContain(
      'new_string contains line-number prefixes',
    );
  });

  it('rejects an empty old_string', () => {
    expect(errorOf(memoryReplace(block(threeLines), '', 'x'))).toContain('old_string is empty');
  });
});

describe('memoryRethink', () => {
  it('replaces the whole value', () => {
    expect(valueOf(memoryRethink(block(threeLines), 'Ada, tea lover, London'))).toBe('Ada, tea lover, London');
  });
});

describe('coreMemoryAppend', () => {
  it('appends on a new line', () => {
    expect(valueOf(coreMemoryAppend(block(threeLines), 'Age: 36'))).toBe(`${threeLines}\nAge: 36`);
  });
});

describe('coreMemoryReplace', () => {
  it('replaces every occurrence', () => {
    const result = coreMemoryReplace(block('tea at 5\nmore tea'), 'tea', 'coffee');
    expect(valueOf(result)).toBe('coffee at 5\nmore coffee');
    expect(result.ok && result.message).toContain('Replaced 2 occurrences');
  });

  it('fails when old_content is missing', () => {
    expect(errorOf(coreMemoryReplace(block(threeLines), 'coffee', 'tea'))).toContain('old_content was not found');
  });
});

describe('every memory edit', () => {
  const edits: Array<[string, (target: MemoryBlock) => MemoryEditResult]> = [
    ['memoryInsert', (target) => memoryInsert(target, 'x'.repeat(30), -1)],
    ['memoryReplace', (target) => memoryReplace(target, 'Ada', 'x'.repeat(30))],
    ['memoryRethink', (target) => memoryRethink(target, 'x'.repeat(41))],
    ['coreMemoryAppend', (target) => coreMemoryAppend(target, 'x'.repeat(30))],
    ['coreMemoryReplace', (target) => coreMemoryReplace(target, 'Ada', 'x'.repeat(30))],
  ];

  it.each(edits)('%s fails on a read-only block', (_name, edit) => {
    expect(edit(block(threeLines, { readOnly: true }))).toEqual({ ok: false, error: READ_ONLY_BLOCK_ERROR });
    expect(READ_ONLY_BLOCK_ERROR).toBe('This block is read-only and cannot be edited.');
  });

  it.each(edits)('%s fails over the limit, giving both sizes', (_name, edit) => {
    const target = block(threeLines, { limit: 40 });
    const error = errorOf(edit(target));
    expect(error).toMatch(/^Edit failed: the new value is \d+ characters, over the block's limit of 40\./);
    const size = Number(/the new value is (\d+) characters/.exec(error)?.[1]);
    expect(size).toBeGreaterThan(40);
  });

  it('reports the exact new size when over the limit', () => {
    expect(errorOf(coreMemoryAppend(block('abc', { limit: 5 }), 'defg'))).toContain(
      "the new value is 8 characters, over the block's limit of 5.",
    );
  });

  it('accepts a value of exactly the limit', () => {
    expect(valueOf(memoryRethink(block('', { limit: 5 }), 'abcde'))).toBe('abcde');
  });
});

describe('memoryApplyPatch', () => {
  const notes = block('Name: Ada\nLikes: tea\nCity: Paris\nPet: cat');

  it('applies every hunk, in a Codex-style envelope or bare', () => {
    const patch = ['*** Begin Patch', '*** Update File: human', '@@', ' Name: Ada', '-Likes: tea', '+Likes: coffee', '@@', '-Pet: cat', '+Pet: dog', '+Plant: fern', '*** End Patch', ''].join('\n');
    expect(valueOf(memoryApplyPatch(notes, patch))).toBe('Name: Ada\nLikes: coffee\nCity: Paris\nPet: dog\nPlant: fern');
    expect(valueOf(memoryApplyPatch(notes, '@@ -3 +3 @@\n-City: Paris\n+City: Lyon\n'))).toBe('Name: Ada\nLikes: tea\nCity: Lyon\nPet: cat');
  });

  it('appends a hunk without old lines, and fills an empty block', () => {
    expect(valueOf(memoryApplyPatch(notes, '@@\n+Age: 36'))).toBe('Name: Ada\nLikes: tea\nCity: Paris\nPet: cat\nAge: 36');
    expect(valueOf(memoryApplyPatch(block(''), '@@\n+first\n+second'))).toBe('first\nsecond');
  });

  it('applies nothing when one hunk does not match, or matches twice', () => {
    const stale = memoryApplyPatch(notes, '@@\n-Likes: tea\n+Likes: milk\n@@\n-City: Rome\n+City: Oslo');
    expect(errorOf(stale)).toContain('hunk 2 were not found');
    const twice = memoryApplyPatch(block('a\nx\na'), '@@\n-a\n+b');
    expect(errorOf(twice)).toContain('occur 2 times');
  });

  it('refuses read-only blocks, patches without hunks, stray lines and results over the limit', () => {
    expect(errorOf(memoryApplyPatch(block('x', { readOnly: true }), '@@\n-x\n+y'))).toBe(READ_ONLY_BLOCK_ERROR);
    expect(errorOf(memoryApplyPatch(notes, ''))).toContain('no hunks');
    expect(errorOf(memoryApplyPatch(notes, 'Likes: tea'))).toContain('comes before any hunk');
    expect(errorOf(memoryApplyPatch(notes, '@@\n*Likes'))).toContain('does not start with');
    expect(errorOf(memoryApplyPatch(block('x', { limit: 5 }), '@@\n-x\n+far too long'))).toContain("over the block's limit of 5");
  });
});
